"""The persona generator: deterministic, sized as promised, and its plan holds."""

from __future__ import annotations

import dataclasses
import functools

import pytest

from evals.generate import PERSONA_DIR, SPECS, generate
from evals.items import dump_items
from evals.persona import verify


@functools.cache
def generated(name):
    """One generation per persona for the tests that only read it."""
    return generate(name)


@pytest.mark.parametrize("name", ["light", "heavy", "mixed"])
def test_committed_personas_match_a_fresh_generation(name):
    persona, items = generated(name)
    assert (PERSONA_DIR / f"{name}.json").read_text(encoding="utf-8") == persona.dumps()
    assert (PERSONA_DIR / f"{name}.items.jsonl").read_text(encoding="utf-8") == dump_items(items)


def test_generation_is_deterministic():
    a, ai = generate("light")
    b, bi = generate("light")
    assert a.dumps() == b.dumps() and dump_items(ai) == dump_items(bi)


@pytest.mark.parametrize(
    "name,low,high", [("light", 650, 750), ("heavy", 1100, 1300), ("mixed", 850, 950), ("yearlong", 5000, 6000)]
)
def test_persona_sizes_and_plan(name, low, high):
    persona, items = generated(name)
    assert low <= len(persona.messages) <= high
    assert verify(persona, items) == []
    kinds = {i.kind for i in items}
    assert {
        "old_fact",
        "changed_fact",
        "when",
        "counting",
        "promise",
        "treatment",
        "preference",
        "never_said",
        "task",
        "ordinary",
        "indirect_rule",
    } <= kinds
    planted = {p.kind for p in persona.planted}
    assert {"fact", "change", "promise", "evidence", "event", "nickname", "treatment", "preference", "rule"} <= planted
    tasks = [i for i in items if i.kind == "task"]
    two_fact = [i for i in tasks if len(i.needs) >= 2]
    assert len(two_fact) * 4 >= len(tasks)  # about a third need two facts


def test_mixed_persona_is_chinese_and_english():
    persona, _ = generated("mixed")
    user = [m.text for m in persona.messages if m.role == "user"]
    both = [
        t for t in user if any("\u4e00" <= ch <= "\u9fff" for ch in t) and any("a" <= ch.lower() <= "z" for ch in t)
    ]
    assert len(both) > len(user) / 2


def test_verify_finds_a_planted_fact_that_is_not_where_planned():
    persona, items = generate("light")
    p = persona.planted[0]
    persona.messages = [
        dataclasses.replace(m, text="nothing here") if m.id == p.message else m for m in persona.messages
    ]
    problems = verify(persona, items)
    assert any(p.id in x and "does not hold" in x for x in problems)


def test_verify_finds_a_trace_of_something_never_said():
    persona, items = generate("light")
    name = persona.never_said[0]
    leaked = persona.messages[5]
    persona.messages[5] = dataclasses.replace(leaked, text="We should talk about Orion and Polaris and Titan.")
    problems = verify(persona, items)
    assert any("never-said" in x and leaked.id in x for x in problems), name


def test_verify_finds_a_current_value_said_where_it_was_not_planned():
    persona, items = generate("light")
    item = next(i for i in items if i.kind == "changed_fact")
    source = persona.by_id()[item.sources[-1]]
    stray = next(m for m in persona.messages if m.role == "user" and m.id not in item.sources)
    persona.messages = [dataclasses.replace(m, text=source.text) if m.id == stray.id else m for m in persona.messages]
    assert any(item.id in x and stray.id in x for x in verify(persona, items))


def test_the_recent_messages_hold_nothing_planted():
    for name in SPECS:
        persona, _ = generated(name)
        recent = {m.id for m in persona.messages[-14:]}
        assert not recent & {p.message for p in persona.planted}


def test_cli_generate_check_confirms_the_committed_files(tmp_path):
    from typer.testing import CliRunner

    from agent.cli import app

    result = CliRunner().invoke(app, ["eval", "generate", "light", "--check"])
    assert result.exit_code == 0, result.output
    assert "light: 700 messages, 37 items, matches the committed file" in result.output
    result = CliRunner().invoke(app, ["eval", "generate", "light", "--out", str(tmp_path)])
    assert result.exit_code == 0 and (tmp_path / "light.json").read_text() == (PERSONA_DIR / "light.json").read_text()
