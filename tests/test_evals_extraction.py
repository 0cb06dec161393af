"""The extraction stage: planted facts against what kept's write path stored.

A scripted memory model, driven through the real adapter and write path,
extracts exactly what each test says, so every count is known in advance.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest

from agent.memory_llm import ModelMemoryLLM
from agent.models.scripted import ScriptedModel, tool_call
from evals import extraction
from evals.records import read_records
from evals.run import Settings, resolve_persona, run


def _empty(schema):
    out = {}
    for key in schema.get("required", []):
        kind = schema["properties"][key].get("type")
        out[key] = [] if kind == "array" else {} if kind == "object" else ""
    return out


class Memory:
    """A memory model whose every reply the test decides.

    ``facts``: (fact text, a piece of the message it cites); a fact is
    extracted in the pass whose transcript shows that message. ``soul``: the
    SOUL text of the first rewrite. ``updates``: candidate text -> a piece of
    the kept fact it updates (every other candidate is an ADD)."""

    def __init__(self, facts, soul="", updates=None):
        self.facts, self.soul, self.updates = facts, soul, updates or {}
        self.tools: list[str] = []

    def __call__(self, request):
        spec = request.tools[0]
        self.tools.append(spec.name)
        prompt = request.messages[0].content
        args = _empty(spec.parameters)
        if spec.name == "save_memory" and self.soul and self.tools.count("save_memory") == 1:
            args["soul"] = self.soul
        elif spec.name == "save_facts":
            numbers = dict((text, int(n)) for n, text in re.findall(r"^\[(\d+)\] \S+ \S+ person: (.*)$", prompt, re.M))
            args["facts"] = [
                {"text": fact, "messages": [n]}
                for fact, cite in self.facts
                for text, n in numbers.items()
                if cite in text
            ]
        elif spec.name == "decide_facts":
            candidates = re.findall(r"^(\d+)\. \d{4}-\d{2}-\d{2}: (.*)$", prompt.split("Kept facts:")[0], re.M)
            kept = re.findall(r"^(\d+)\. (.*)$", prompt.split("Kept facts:")[1], re.M)
            args["decisions"] = []
            for n, text in candidates:
                target = next(
                    (int(k) for k, line in kept for c, piece in self.updates.items() if c in text and piece in line),
                    None,
                )
                args["decisions"].append(
                    {"candidate": int(n), "action": "UPDATE", "kept": target}
                    if target
                    else {"candidate": int(n), "action": "ADD"}
                )
        return tool_call(spec.name, **args)


def write_run(tmp_path, memory, passes=1):
    model = ScriptedModel([memory] * (6 * passes))
    llm = ModelMemoryLLM(model, sleep=lambda s: None)
    run_dir = run(Settings(personas=["tiny"], facts="write", designs=["kept"]), base=tmp_path, memory_llm=llm)
    return run_dir, json.loads((run_dir / "extraction-tiny.json").read_text())["facts"]


COUNTS = (
    "planted",
    "current",
    "right",
    "wrong_date",
    "missing",
    "changes",
    "superseded",
    "linked",
    "stale_left_active",
    "active_facts",
    "facts_planted",
    "facts_stale",
    "facts_wrong",
    "facts_invented",
    "facts_unplanned",
    "soul_wishes",
    "soul_kept",
)


def test_each_count_of_the_extraction_stage_through_the_write_path(tmp_path):
    memory = Memory(
        [
            ("Aisha Karim owns Lighthouse; her email is aisha.karim@northwind.example.", "Aisha Karim owns"),  # right
            ("The Lighthouse budget is $42,000.", "The Harbor budget"),  # right value, cites the wrong day
            ("The Lighthouse launch is on December 3.", "launch is on December 3"),  # left active after its change
            ("The Lighthouse launch moved to December 10.", "moved to December 10"),  # the change: right
            ("The Lighthouse budget is $44,000.", "The Harbor budget"),  # a decoy's value on the wrong subject
            ("The Orion budget is $75,000.", "closed a pile"),  # never said anywhere
            ("The office wifi is flaky.", "office wifi"),  # true, not planted
        ],
        soul="- Call them Robin, never Robert.",
    )
    run_dir, facts = write_run(tmp_path, memory)
    assert "save_facts" in memory.tools and "decide_facts" not in memory.tools  # one pass, nothing to reconcile
    assert {k: facts[k] for k in COUNTS} == {
        "planted": 8,
        "current": 7,
        "right": 2,
        "wrong_date": 1,
        "missing": 4,
        "changes": 1,
        "superseded": 0,
        "linked": 0,
        "stale_left_active": 1,
        "active_facts": 7,
        "facts_planted": 3,
        "facts_stale": 1,
        "facts_wrong": 1,
        "facts_invented": 1,
        "facts_unplanned": 1,
        "soul_wishes": 1,
        "soul_kept": 1,
    }
    verdicts = {p["planted"]: p["verdict"] for p in facts["per_planted"]}
    assert verdicts == {
        "p003": "right",
        "p004": "wrong_date",
        "p005": "missing",
        "p006": "right",
        "p007": "missing",
        "p008": "missing",
        "p009": "missing",
    }
    assert next(p for p in facts["per_planted"] if p["planted"] == "p004")["said_on"] == ["2026-11-05"]
    classes = {re.sub(r"^\S+ ", "", f["text"]): f["class"] for f in facts["facts"]}
    assert classes == {
        "Aisha Karim owns Lighthouse; her email is aisha.karim@northwind.example.": "planted",
        "The Lighthouse budget is $42,000.": "planted",
        "The Lighthouse launch is on December 3.": "stale",
        "The Lighthouse launch moved to December 10.": "planted",
        "The Lighthouse budget is $44,000.": "wrong",
        "The Orion budget is $75,000.": "invented",
        "The office wifi is flaky.": "unplanned",
    }
    invented = next(f for f in facts["facts"] if f["class"] == "invented")
    assert invented["not_in_any_message"] == ["n:75000", "orion"]
    # The run prints the line and the report carries the table.
    from evals.report import build_report

    report = build_report(run_dir, charts=False)
    assert "### Extraction: planted facts" in report
    assert "| tiny | 2/7 | 1 | 4 | 0/1 (0) | 1 | 7 | 3 | 1 | 1 | 1 | 1 | 1/1 |" in report
    assert read_records(run_dir)


def test_a_change_the_write_path_supersedes_counts_as_superseded_and_linked(tmp_path, monkeypatch):
    from memory import writer

    monkeypatch.setattr(writer, "MAX_MESSAGES", 10)  # four passes: the change meets its old fact in reconcile
    persona, _ = resolve_persona("tiny")
    memory = Memory(
        [(p.text, p.text) for p in persona.planted if p.kind != "nickname"],
        updates={"moved to December 10": "launch is on December 3"},
    )
    run_dir, facts = write_run(tmp_path, memory, passes=4)
    assert "decide_facts" in memory.tools
    assert {k: facts[k] for k in COUNTS} == {
        "planted": 8,
        "current": 7,
        "right": 7,
        "wrong_date": 0,
        "missing": 0,
        "changes": 1,
        "superseded": 1,
        "linked": 1,
        "stale_left_active": 0,
        "active_facts": 7,
        "facts_planted": 7,
        "facts_stale": 0,
        "facts_wrong": 0,
        "facts_invented": 0,
        "facts_unplanned": 0,
        "soul_wishes": 1,
        "soul_kept": 0,
    }


def test_the_cli_prints_the_extraction_line(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from agent.cli import app
    from agent.models import registry
    from evals import run as runner

    memory = Memory([("The Lighthouse budget is $42,000.", "Lighthouse budget")])
    monkeypatch.setattr(registry, "create", lambda spec, **kw: ScriptedModel([memory] * 6))
    monkeypatch.setattr(runner, "RUNS_DIR", tmp_path)
    result = CliRunner().invoke(
        app,
        [
            "eval",
            "run",
            "--personas",
            "tiny",
            "--designs",
            "kept",
            "--facts",
            "write",
            "--memory-model",
            "scripted",
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    assert (
        "extraction tiny: planted facts 8 (7 current): right value and date 1, wrong date 0, missing 6; "
        "changed facts 1: superseded 0 (linked 0), stale left active 0; active facts 1: planted 1, stale 0, "
        "wrong 0, invented 0, unplanned 0; SOUL wishes kept 0/1"
    ) in result.output
    # The memory model named by --memory-model logs its calls, so the run can say what writing cost.
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    write = json.loads((run_dir / "extraction-tiny.json").read_text())["write"]
    calls = len(memory.tools)
    assert calls >= 2 and write["model_calls"] == calls
    assert write["input_tokens"] == 10 * calls and write["output_tokens"] == 5 * calls


@pytest.mark.parametrize("name", ["tiny", "light", "heavy", "mixed"])
def test_a_perfect_extractor_scores_perfectly_and_a_verbatim_one_leaves_every_change_stale(name):
    """Gold facts (each change superseding its fact) are all right; storing every
    message the person wrote as a fact keeps every planted value but supersedes nothing."""
    from evals.load import load
    from memory import facts as fact_log
    from memory.db import transaction

    persona, _ = resolve_persona(name)
    with tempfile.TemporaryDirectory() as tmp:
        gold = extraction.score(persona, load(persona, Path(tmp) / "gold.db").db)
        verbatim_store = load(persona, Path(tmp) / "verbatim.db", facts="none")
        with transaction(verbatim_store.db) as conn:
            for m in persona.messages:
                if m.role == "user":
                    fact_log.add_fact(conn, m.text, m.at[:10], [verbatim_store.ids[m.id]])
        verbatim = extraction.score(persona, verbatim_store.db)
    assert gold["right"] == gold["current"] > 0 and gold["wrong_date"] == gold["missing"] == 0
    assert gold["superseded"] == gold["linked"] == gold["changes"] > 0 and gold["stale_left_active"] == 0
    assert gold["facts_planted"] == gold["active_facts"]
    assert gold["soul_kept"] == gold["soul_wishes"] == 2 - (name == "tiny")
    assert verbatim["right"] == verbatim["current"]
    assert verbatim["superseded"] == 0 and verbatim["stale_left_active"] == verbatim["changes"]
    assert verbatim["facts_wrong"] == verbatim["facts_invented"] == 0
    assert verbatim["facts_stale"] >= verbatim["changes"] and verbatim["facts_unplanned"] > 0


@pytest.mark.parametrize(
    "text, expected",
    [
        ("The launch moved to December 10.", {"d:12-10"}),
        ("Launch: Dec. 10th, 2026", {"d:12-10"}),
        ("launch on 10 December", {"d:12-10"}),
        ("launch 2026-12-10 (moved)", {"d:12-10"}),
        ("Helix 的 launch 改到 1月15日 了。", {"d:01-15"}),
        ("due 12/18", {"d:12-18"}),
        ("The budget is $42,000.", {"n:42000"}),
        ("budget 42k", {"n:42000"}),
        ("预算 4.2万", {"n:42000"}),
        ("weekly sync on Wednesdays at 17:30", {"w:wed", "t:17:30"}),
        ("sync Wed 5:30 pm", {"w:wed", "t:17:30"}),
        ("周三 17点30", {"w:wed", "t:17:30"}),
        ("email Aisha.Karim@Northwind.example.", {"e:aisha.karim@northwind.example"}),
        ("the build failed 3 times", set()),
    ],
)
def test_values_read_the_forms_a_model_writes(text, expected):
    assert extraction.values(text) == expected


def test_dates_kept_adds_after_relative_dates_are_not_the_models_values():
    assert extraction.values(extraction.strip("2026-11-10: send the deck by Friday (2026-11-13).")) == {"w:fri"}  # noqa: B005 (extraction.strip, not str.strip)


def test_an_invented_name_is_one_no_message_holds_not_an_acronym_or_a_clause_opening():
    persona, _ = resolve_persona("tiny")
    matcher = extraction.Matcher(persona)
    text = "2026-11-02: Deadline: the Lighthouse budget is 42,000 USD, approved by Orion. Noted by Kestrel"
    found = extraction._invented(text, matcher.shape(text), {"n:42000"}, {"lighthouse", "kestrel"})
    assert found == ["orion"]


def test_the_halves_of_a_hyphenated_name_a_message_said_are_not_invented():
    persona, _ = resolve_persona("tiny")
    matcher = extraction.Matcher(persona)
    text = "2026-11-02: Jean-Luc Moreau reviews the Lighthouse budget with Anne-Marie on Tues."
    said = extraction.said_words([{"jean-luc", "lighthouse"}, {"moreau"}])
    found = extraction._invented(text, matcher.shape(text), {"w:tue"}, said)
    assert found == ["anne", "marie"]  # Marie begins like March and is a name all the same


def test_a_write_path_that_keeps_failing_stops_and_is_scored_as_it_stands(tmp_path):
    """An unusable memory model ends the write path (after one rerun of the pass), not the run."""
    from agent.models.scripted import text

    model = ScriptedModel([text("no tool call here")] * 2)  # unusable at once: the pass, then its one rerun
    llm = ModelMemoryLLM(model, sleep=lambda s: None)
    run_dir = run(Settings(personas=["tiny"], facts="write", designs=["none", "kept"]), base=tmp_path, memory_llm=llm)
    model.assert_complete()
    data = json.loads((run_dir / "extraction-tiny.json").read_text())
    assert data["write"]["passes"] == 0 and data["write"]["unread_messages"] == 36
    assert data["write"]["stopped"].startswith("UnusableReply: memory.rewrite")
    assert data["facts"]["right"] == 0 and data["facts"]["missing"] == 7 and data["facts"]["active_facts"] == 0
    from evals.report import build_report

    assert "tiny: the write path stopped with 36 messages unread" in build_report(run_dir, charts=False)


def test_failed_attempts_of_the_write_path_are_counted_apart_from_its_calls(tmp_path):
    from agent.models.base import MALFORMED
    from agent.models.scripted import error

    memory = Memory([("The Lighthouse budget is $42,000.", "Lighthouse budget")])
    model = ScriptedModel([error(MALFORMED, "not JSON"), *[memory] * 6])
    llm = ModelMemoryLLM(model, sleep=lambda s: None)
    llm.db = None
    run_dir = run(Settings(personas=["tiny"], facts="write", designs=["kept"]), base=tmp_path, memory_llm=llm)
    write = json.loads((run_dir / "extraction-tiny.json").read_text())["write"]
    calls = len(memory.tools)
    assert write["failed_attempts"] == 1 and write["model_calls"] == calls and write["input_tokens"] == 10 * calls
    assert write["stopped"] is None and write["passes"] == 1
