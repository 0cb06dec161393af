"""MEMORY: four sections under a hard cap; what does not fit goes to the fact log, dated."""

from __future__ import annotations

import pytest

from memory import summary
from memory.llm import UnusableReply


def _sections(lately_lines: int) -> dict[str, str]:
    return {
        "who": "- Mo, data engineer in Berlin",
        "asked": "- weekly status on Fridays",
        "keep": "- Atlas launch: November 10",
        "lately": "\n".join(f"- 2026-10-{i + 1:02d}: event number {i} with some words" for i in range(lately_lines)),
    }


def test_render_and_parse_round_trip():
    text = summary.render(_sections(2))
    assert text.startswith("## Who they are\n- Mo")
    assert summary.parse(text) == _sections(2)


def test_a_note_within_the_cap_is_kept_whole():
    text, moved = summary.fit(_sections(3), 6000, "2026-10-07")
    assert moved == [] and text == summary.render(_sections(3))


def test_over_the_cap_the_oldest_lines_move_out_dated_never_cut():
    sections = _sections(40)
    full = summary.render(sections)
    cap = len(full) // 2
    text, moved = summary.fit(sections, cap, "2026-10-31")
    assert len(text) <= cap
    assert moved, "something had to move"
    # Whole lines moved, oldest first, each with its own date; nothing silently lost.
    assert moved[0].said_on == "2026-10-01" and moved[0].text == "event number 0 with some words"
    kept_lines = set(text.splitlines())
    for line in full.splitlines():
        assert line in kept_lines or any(m.text in line for m in moved), line
    assert "Mo, data engineer" in text  # identity is the last thing to go


def test_undated_lines_that_move_out_take_the_pass_date():
    sections = {"who": "- Mo", "asked": "", "keep": "\n".join(f"- durable fact {i}" for i in range(50)), "lately": ""}
    text, moved = summary.fit(sections, 200, "2026-10-31")
    assert len(text) <= 200
    assert moved and all(m.said_on == "2026-10-31" for m in moved)
    assert moved[0].text == "durable fact 49"


class FakeLLM:
    def __init__(self, reply):
        self.reply, self.calls = reply, []

    def __call__(self, **kwargs):
        self.calls.append(kwargs)
        return self.reply


def test_plan_takes_moved_out_items_and_soul_changes():
    llm = FakeLLM(
        {
            "who": "- Mo",
            "asked": "",
            "keep": "- Atlas: Nov 17",
            "lately": "",
            "moved_out": [
                {"text": "Atlas was planned for November 10", "date": "2026-09-01"},
                {"text": "2026-09-02: the old team was Falcon"},
            ],
            "soul": "Call me Mo.",
        }
    )
    plan = summary.rewrite(llm, old_note="", old_soul="", transcript="[1] ...", cap=6000, default_date="2026-10-07")
    assert plan.soul == "Call me Mo."
    assert [(o.text, o.said_on) for o in plan.overflow] == [
        ("Atlas was planned for November 10", "2026-09-01"),
        ("the old team was Falcon", "2026-09-02"),
    ]
    assert llm.calls[0]["schema_name"] == summary.TOOL and "6000" in llm.calls[0]["system"]


def test_plan_redacts_secrets_and_ignores_an_unchanged_soul():
    llm = FakeLLM(
        {"who": "- Mo, token: ghp_" + "FAKE" * 6, "asked": "", "keep": "", "lately": "", "soul": "Call me Mo."}
    )
    plan = summary.rewrite(llm, old_note="", old_soul="Call me Mo.", transcript="", cap=6000, default_date="2026-10-07")
    assert "ghp_" not in plan.text and "[redacted secret]" in plan.text
    assert plan.soul is None


def test_plan_refuses_a_reply_without_sections():
    with pytest.raises(UnusableReply):
        summary.rewrite(
            FakeLLM({"who": ["not", "text"]}),
            old_note="",
            old_soul="",
            transcript="",
            cap=6000,
            default_date="2026-10-07",
        )
