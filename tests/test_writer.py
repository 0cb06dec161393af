"""The write pass, driven by the scripted model through the real adapter."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from agent.memory_llm import ModelMemoryLLM
from agent.models import base
from agent.models.base import Response, ToolCall, Usage
from agent.models.scripted import ScriptedModel, error, text, tool_call
from memory import facts, soul, state, summary, writer
from memory import messages as store
from memory.db import transaction
from memory.llm import UnusableReply

TZ = ZoneInfo("Europe/Berlin")
T0 = datetime(2026, 10, 7, 9, 0, tzinfo=TZ)  # a Wednesday
FAKE_KEY = "sk-ant-" + "FAKEFAKEFAKE" + "0123456789abcdef"


def say(db, lines, start=T0, chat=None) -> list[int]:
    chat = chat or store.get_chat(db)
    return [
        store.add_message(db, chat, role, "me" if role == "user" else "kept", body, start + timedelta(minutes=i))
        for i, (role, body) in enumerate(lines)
    ]


def rewrite(**sections):
    return tool_call("save_memory", **{"who": "", "asked": "", "keep": "", "lately": "", **sections})


def extracted(*items):
    return tool_call("save_facts", facts=[{"text": t, "messages": m} for t, m in items])


def decided(*decisions):
    return tool_call("decide_facts", decisions=list(decisions))


def scripted(db, *steps):
    model = ScriptedModel(list(steps))
    return model, ModelMemoryLLM(model, db, sleep=lambda s: None)


def run(db, llm, **kw):
    kw.setdefault("cap", 6000)
    kw.setdefault("max_active", 500)
    kw.setdefault("force", True)
    kw.setdefault("now", T0 + timedelta(hours=1))
    return writer.run_pass(db, llm, **kw)


def prompts(model, purpose_tool):
    return [r.messages[0].content for r in model.requests if r.tools and r.tools[0].name == purpose_tool]


# --- a pass end to end --------------------------------------------------------


def test_a_pass_writes_memory_and_dated_linked_facts_and_advances_the_cursor(db):
    ids = say(
        db,
        [
            ("user", "The design review moved to next Tuesday."),
            ("assistant", "Noted."),
            ("user", "评审会改到下周二了。"),
            ("assistant", "好的。"),
        ],
    )
    model, llm = scripted(
        db,
        rewrite(who="- Mo, data engineer", lately="- 2026-10-07: design review moved"),
        extracted(("The design review moved to next Tuesday.", [1]), ("评审会改到下周二了", [3, 4])),
    )
    result = run(db, llm)
    model.assert_complete()
    assert result.ran and result.added == 2 and result.messages == 4
    assert writer.cursor(db) == ids[-1]
    assert summary.current(db).startswith("## Who they are\n- Mo, data engineer")
    got = [(f.text, f.source_ids) for f in facts.by_status(db, facts.ACTIVE)]
    assert got == [
        ("2026-10-07: The design review moved to next Tuesday (2026-10-13).", [ids[0]]),
        ("2026-10-07: 评审会改到下周二 (2026-10-13)了", [ids[2], ids[3]]),
    ]
    # The model saw messages by small numbers and dates, never by id.
    first = model.requests[0].messages[0].content
    assert "[1] 2026-10-07 09:00 person: The design review moved to next Tuesday." in first
    # Nothing kept yet: no reconcile call was needed.
    assert [r.tools[0].name for r in model.requests] == ["save_memory", "save_facts"]


def test_the_next_pass_reads_only_new_messages(db):
    say(db, [("user", "first message about Atlas")])
    _, llm = scripted(db, rewrite(keep="- Atlas"), extracted())
    run(db, llm)
    say(db, [("user", "second message about Billing")], start=T0 + timedelta(hours=2))
    model, llm = scripted(db, rewrite(keep="- Atlas\n- Billing"), extracted())
    run(db, llm)
    sent = model.requests[0].messages[0].content
    assert "second message about Billing" in sent and "first message about Atlas" not in sent


def test_relative_dates_resolve_from_the_date_of_the_source_message(db):
    ids = say(db, [("user", "we shipped the beta last weekend")], start=datetime(2026, 10, 12, 10, tzinfo=TZ))
    _, llm = scripted(db, rewrite(), extracted(("Mo's team shipped the beta last weekend", [1])))
    run(db, llm, now=datetime(2026, 10, 20, 10, tzinfo=TZ))  # the pass runs days later
    [fact] = facts.by_status(db, facts.ACTIVE)
    assert fact.text == "2026-10-12: Mo's team shipped the beta last weekend (2026-10-10 to 2026-10-11)"
    assert fact.source_ids == ids


# --- reconcile ----------------------------------------------------------------


def _seed(db, n_other=30):
    """Kept facts with large ids, and the Atlas fact among them."""
    with transaction(db) as conn:
        for i in range(n_other):
            facts.add_fact(conn, f"unrelated fact {i} about gardening", "2026-09-01", [])
        return facts.add_fact(conn, "the Atlas launch is November 10", "2026-09-02", [])


def _number_of(prompt: str, needle: str) -> int:
    kept = prompt.split("Kept facts:", 1)[1]
    return next(int(m.group(1)) for m in re.finditer(r"^(\d+)\. (.*)$", kept, re.M) if needle in m.group(2))


def test_update_supersedes_links_and_keeps_history_with_small_numbers(db):
    atlas = _seed(db)
    ids = say(db, [("user", "Atlas launch moved to November 17.")])

    def decide(request):
        prompt = request.messages[0].content
        assert f"{atlas}. " not in prompt.split("Kept facts:", 1)[1]  # real ids never shown
        return decided(
            {
                "candidate": 1,
                "action": "UPDATE",
                "kept": _number_of(prompt, "Atlas"),
                "text": "the Atlas launch moved to November 17",
            }
        )

    model, llm = scripted(db, rewrite(), extracted(("Atlas launch moved to November 17.", [1])), decide)
    result = run(db, llm)
    model.assert_complete()
    assert result.updated == 1 and result.added == 0
    old = facts.get(db, atlas)
    new = facts.replaced_by(db, atlas)
    assert old.status == facts.SUPERSEDED and new.status == facts.ACTIVE
    assert new.text == "2026-10-07: the Atlas launch moved to November 17" and new.source_ids == ids
    event = facts.events(db, fact_id=new.id)[0]
    assert (event.event, event.old_text, event.new_text) == ("UPDATE", old.text, new.text)


def test_delete_marks_the_kept_fact_deleted_with_an_event(db):
    atlas = _seed(db, 3)
    say(db, [("user", "Atlas is cancelled, forget the launch date.")])

    def decide(request):
        return decided({"candidate": 1, "action": "DELETE", "kept": _number_of(request.messages[0].content, "Atlas")})

    _, llm = scripted(db, rewrite(), extracted(("The Atlas launch is cancelled", [1])), decide)
    assert run(db, llm).deleted == 1
    assert facts.get(db, atlas).status == facts.DELETED
    assert facts.events(db, fact_id=atlas)[0].event == "DELETE"


def test_add_without_text_falls_back_to_its_candidate_and_none_saves_nothing(db):
    _seed(db, 2)
    say(db, [("user", "Priya joined the Atlas team. I like tea.")])
    _, llm = scripted(
        db,
        rewrite(),
        extracted(("Priya joined the Atlas team", [1]), ("Mo likes tea", [1])),
        decided({"candidate": 1, "action": "ADD"}, {"candidate": 2, "action": "NONE"}),
    )
    result = run(db, llm)
    assert result.added == 1
    assert facts.by_status(db, facts.ACTIVE)[-1].text == "2026-10-07: Priya joined the Atlas team"


def test_a_reply_with_no_decisions_saves_nothing(db):
    _seed(db, 2)
    say(db, [("user", "Priya joined the Atlas team.")])
    _, llm = scripted(db, rewrite(), extracted(("Priya joined the Atlas team", [1])), decided())
    before = len(facts.by_status(db))
    result = run(db, llm)
    assert result.ran and result.added == 0 and len(facts.by_status(db)) == before


def test_decisions_naming_unknown_numbers_are_ignored_not_guessed(db):
    atlas = _seed(db, 2)
    say(db, [("user", "Atlas launch moved to November 17.")])
    _, llm = scripted(
        db,
        rewrite(),
        extracted(("Atlas launch moved to November 17", [1])),
        decided({"candidate": 1, "action": "UPDATE", "kept": 99}, {"candidate": 7, "action": "ADD"}),
    )
    result = run(db, llm)
    assert result.updated == 0 and result.added == 0 and result.unused_decisions == 2
    assert facts.get(db, atlas).status == facts.ACTIVE


# --- failures and rereads -----------------------------------------------------


def test_failure_between_extraction_and_commit_leaves_the_cursor_and_a_reread_adds_no_duplicates(db):
    say(db, [("user", "Atlas launch is November 10."), ("user", "Budget is 5000 euros.")])
    steps = [
        rewrite(keep="- Atlas Nov 10"),
        extracted(("Atlas launch is November 10", [1]), ("The budget is 5000 euros", [2])),
    ]
    _, llm = scripted(db, *steps)

    def crash():
        raise RuntimeError("power cut")

    with pytest.raises(RuntimeError):
        run(db, llm, before_commit=crash)
    assert writer.cursor(db) == 0 and facts.by_status(db) == [] and summary.current(db) == ""
    assert state.get(db, writer.LEASE) == ""  # the lease was given back

    _, llm = scripted(db, *steps)
    assert run(db, llm).added == 2
    # Reading the same messages once more (at-least-once) stores nothing twice.
    with transaction(db):
        state.put(db, writer.CURSOR, "0")
    model, llm = scripted(
        db,
        rewrite(keep="- Atlas Nov 10"),
        extracted(("Atlas launch is November 10.", [1]), ("the budget is 5000 euros", [2])),
    )
    result = run(db, llm)
    model.assert_complete()  # no reconcile call: both candidates were already kept
    assert result.added == 0 and result.already_kept == 2
    assert len(facts.by_status(db)) == 2 and len(facts.events(db)) == 2


def test_a_model_error_or_an_unusable_reply_leaves_the_cursor(db):
    say(db, [("user", "Atlas launch is November 10.")])
    _, llm = scripted(db, rewrite(), error(base.AUTH, "bad key"))
    with pytest.raises(base.ModelError):
        run(db, llm)
    assert writer.cursor(db) == 0
    _, llm = scripted(db, rewrite(), text("Here are the facts: Atlas is November 10."))
    with pytest.raises(UnusableReply):
        run(db, llm)
    assert writer.cursor(db) == 0 and facts.by_status(db) == [] and summary.current(db) == ""


def test_kill_9_inside_the_commit_leaves_nothing_half_written(kept_home, db):
    say(db, [("user", "Atlas launch is November 10.")])
    script = textwrap.dedent(f"""
        import os, signal
        from agent.memory_llm import ModelMemoryLLM
        from agent.models.scripted import ScriptedModel, tool_call
        from agent.session import open_store
        from memory import facts, writer
        db = open_store({str(kept_home / "kept.db")!r})
        model = ScriptedModel([
            tool_call("save_memory", who="- Mo", asked="", keep="", lately=""),
            tool_call("save_facts", facts=[{{"text": "Atlas launch is November 10", "messages": [1]}}]),
        ])
        # Die after the note and the facts are written, before COMMIT.
        facts.archive_over_bound = lambda conn, n: os.kill(os.getpid(), signal.SIGKILL)
        writer.run_pass(db, ModelMemoryLLM(model, db), cap=6000, max_active=500, force=True)
    """)
    proc = subprocess.run([sys.executable, "-c", script], cwd=os.getcwd(), capture_output=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-2000:]
    assert writer.cursor(db) == 0 and facts.by_status(db) == [] and summary.current(db) == ""
    # The dead pass's lease lapses with its process: the next pass reads the messages again at once.
    assert json.loads(state.get(db, writer.LEASE))["owner"], "the killed pass still holds its lease"
    _, llm = scripted(db, rewrite(who="- Mo"), extracted(("Atlas launch is November 10", [1])))
    result = run(db, llm)
    assert result.ran and result.added == 1


# --- only one pass at a time ----------------------------------------------------


def _expire_lease(db):
    """What the lease looks like once its holder has been gone for longer than the lease."""
    lease = json.loads(state.get(db, writer.LEASE))
    lease["expires"] = (datetime.now().astimezone() - timedelta(seconds=1)).isoformat()
    with transaction(db):
        state.put(db, writer.LEASE, json.dumps(lease))


def test_a_lease_held_by_a_dead_process_lapses_before_its_expiry(db):
    say(db, [("user", "hello")])
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    lease = {
        "owner": "killed",
        "expires": (datetime.now().astimezone() + timedelta(minutes=10)).isoformat(),
        "pid": int(dead.stdout),
        "host": __import__("socket").gethostname(),
    }
    with transaction(db):
        state.put(db, writer.LEASE, json.dumps(lease))
    _, llm = scripted(db, rewrite(), extracted())
    assert run(db, llm).ran


def test_a_live_lease_blocks_a_second_pass_and_an_expired_one_does_not(db):
    say(db, [("user", "hello")])
    assert writer.claim(db, "someone-else")
    assert not writer.claim(db, "a-third-one")
    _, llm = scripted(db)
    assert run(db, llm).reason == "another write pass is running"
    _expire_lease(db)
    _, llm = scripted(db, rewrite(), extracted())
    assert run(db, llm).ran


def test_a_pass_that_loses_its_lease_before_commit_writes_nothing(db):
    say(db, [("user", "Atlas launch is November 10.")])
    _, llm = scripted(db, rewrite(who="- Mo"), extracted(("Atlas launch is November 10", [1])))

    def steal():
        with transaction(db):
            state.put(db, writer.LEASE, json.dumps({"owner": "thief", "expires": "2999-01-01T00:00:00+00:00"}))

    with pytest.raises(writer.PassAborted):
        run(db, llm, before_commit=steal)
    assert writer.cursor(db) == 0 and facts.by_status(db) == []


# --- schedule -----------------------------------------------------------------


def test_schedule_waits_for_turns_person_turns_and_hours(db):
    sched = writer.Schedule(every_turns=8, min_user_turns=4, min_hours=3)
    say(db, [("user", f"u{i}") if i % 4 == 0 else ("assistant", f"a{i}") for i in range(8)])
    ok, why = writer.due(db, sched, T0)
    assert not ok and "from the person" in why  # 8 turns but only 2 from the person
    say(db, [("user", "more"), ("user", "and more")], start=T0 + timedelta(minutes=30))
    assert writer.due(db, sched, T0)[0]
    _, llm = scripted(db, rewrite(), extracted())
    run(db, llm, now=T0 + timedelta(hours=1))
    say(db, [("user", f"u{i}") for i in range(8)], start=T0 + timedelta(hours=2))
    assert not writer.due(db, sched, T0 + timedelta(hours=2))[0]  # only 1 h since the last pass
    assert writer.due(db, sched, T0 + timedelta(hours=4, minutes=1))[0]
    # Not forced and not due: no model call at all.
    model, llm = scripted(db)
    assert not run(db, llm, force=False, schedule=sched, now=T0 + timedelta(hours=2)).ran
    assert model.requests == []


def test_team_chat_messages_are_never_written_into_private_memory(db):
    team = store.get_chat(db, "ops", store.TEAM)
    say(db, [("user", "TEAMSECRETPLAN for the offsite")], chat=team)
    say(db, [("user", "private note about Atlas")])
    model, llm = scripted(db, rewrite(), extracted())
    run(db, llm)
    sent = "".join(r.messages[0].content for r in model.requests)
    assert "private note about Atlas" in sent and "TEAMSECRETPLAN" not in sent


# --- cap, overflow, bound, secrets, SOUL --------------------------------------------


def test_a_rewrite_over_the_cap_moves_the_overflow_to_the_fact_log(db):
    say(db, [("user", "lots happened")])
    lately = "\n".join(f"- 2026-10-0{i % 9 + 1}: happening number {i} in the team" for i in range(30))
    _, llm = scripted(
        db,
        rewrite(who="- Mo", lately=lately, moved_out=[{"text": "the old team name was Falcon", "date": "2026-09-15"}]),
        extracted(),
    )
    result = run(db, llm, cap=400)
    note = summary.current(db)
    assert len(note) <= 400 and "- Mo" in note
    moved = {f.text for f in facts.by_status(db, facts.ACTIVE)}
    assert "2026-09-15: the old team name was Falcon" in moved
    # Every line of the model's note is either in MEMORY or in the fact log.
    for i in range(30):
        line = f"happening number {i} in the team"
        assert line in note or any(line in t for t in moved), line
    assert result.overflow == len(moved)
    assert {e.reason for e in facts.events(db)} == {"moved out of MEMORY"}


def test_every_memory_version_is_kept(db):
    for n in range(3):
        say(db, [("user", f"update {n}")], start=T0 + timedelta(hours=4 * n))
        _, llm = scripted(db, rewrite(keep=f"- version {n}"), extracted())
        run(db, llm, now=T0 + timedelta(hours=4 * n + 1))
    assert [v.text for v in summary.history(db)] == [f"## What to keep\n- version {n}" for n in range(3)]


def test_the_bound_archives_the_least_recently_touched_and_keeps_them(db):
    with transaction(db) as conn:
        old = [facts.add_fact(conn, f"old fact {i}", "2026-09-01", []) for i in range(4)]
        facts.touch(conn, old[2:], "2099-01-01T00:00:00.000+00:00")
    say(db, [("user", "news")])
    _, llm = scripted(db, rewrite(), extracted(("Priya joined", [1])), decided({"candidate": 1, "action": "ADD"}))
    result = run(db, llm, max_active=3)
    assert result.archived == 2
    assert [f.id for f in facts.by_status(db, facts.ARCHIVED)] == old[:2]
    assert len(facts.by_status(db, facts.ACTIVE)) == 3


def test_secrets_never_reach_the_model_memory_or_facts(db):
    say(db, [("user", f"the staging key is {FAKE_KEY} and my password: hunter2hunter2")])
    model, llm = scripted(
        db,
        rewrite(keep=f"- staging key {FAKE_KEY}", soul="Call me Mo. password: hunter2hunter2"),
        extracted((f"the staging key is {FAKE_KEY}", [1])),
    )
    run(db, llm)
    sent = "".join(r.messages[0].content for r in model.requests)
    assert FAKE_KEY not in sent and "hunter2hunter2" not in sent
    stored = summary.current(db) + soul.current(db) + "".join(f.text for f in facts.by_status(db))
    stored += "".join((e.new_text or "") for e in facts.events(db))
    assert FAKE_KEY not in stored and "hunter2hunter2" not in stored
    assert "[redacted secret]" in summary.current(db)


def test_a_request_about_treatment_updates_soul_with_history(db):
    soul.set_text(db, "Answer in English.")
    say(db, [("user", "Please call me Mo from now on.")])
    _, llm = scripted(db, rewrite(soul="Answer in English. Call them Mo."), extracted())
    assert run(db, llm).soul_changed
    assert soul.render(db) == "Answer in English. Call them Mo."
    assert [v.text for v in soul.history(db)] == ["Answer in English.", "Answer in English. Call them Mo."]


# --- the adapter --------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        text("no tool call"),
        tool_call("other_tool", facts=[]),
        Response(
            "",
            [ToolCall("a", "save_facts", {"facts": []}), ToolCall("b", "save_facts", {"facts": []})],
            Usage(1, 1),
            "s",
        ),
        tool_call("save_facts", facts="not a list"),
        tool_call("save_facts", facts=[{"text": "x"}]),  # a required key is missing
    ],
)
def test_the_adapter_accepts_only_exactly_one_call_of_the_offered_tool(db, reply):
    from memory.reconcile import ExtractReply

    _, llm = scripted(db, reply)
    with pytest.raises(UnusableReply):
        llm(purpose="memory.extract", system="s", prompt="p", schema=ExtractReply, schema_name="save_facts")


def test_the_adapter_offers_one_tool_logs_the_call_and_treats_null_optionals_as_absent(db):
    from memory.call_log import list_calls
    from memory.reconcile import ReconcileReply

    model, llm = scripted(db, decided({"candidate": 1, "action": "ADD", "kept": None, "text": None}))
    reply = llm(purpose="memory.reconcile", system="s", prompt="p", schema=ReconcileReply, schema_name="decide_facts")
    assert reply.decisions[0].action == "ADD" and reply.decisions[0].kept is None and reply.decisions[0].text == ""
    assert [t.name for t in model.requests[0].tools] == ["decide_facts"]
    assert model.requests[0].tools[0].parameters == ReconcileReply.model_json_schema()
    assert list_calls(db)[0]["purpose"] == "memory.reconcile"


# --- what one pass costs --------------------------------------------------------


class CountingMemoryModel:
    """Answers whatever memory tool it is offered with a plausible minimal reply, and counts."""

    name = "counting"

    def __init__(self, provider: str = "scripted"):
        self.provider = provider  # "openai": the write pass treats it as a hosted model
        self.calls = []  # (tool name, system chars, prompt chars)

    def complete(self, messages, *, system="", tools=None, on_text=None, max_tokens=1024, require_tool=False):
        name = tools[0].name
        prompt = messages[0].content
        args = {
            "save_memory": lambda: {
                "who": "- Mo, data engineer in Berlin",
                "asked": "- weekly status",
                "keep": "\n".join(f"- fact {i}" for i in range(20)),
                "lately": "\n".join(f"- 2026-10-07: item {i}" for i in range(20)),
            },
            "save_facts": lambda: {
                "facts": [{"text": f"Project {i} owner is person {i}", "messages": [i * 2 + 1]} for i in range(25)],
                # Read only when the schema asks for it (a hosted model's extraction).
                **(
                    {
                        "commitments": [
                            {
                                "message": int(n),
                                "who": "me",
                                "to_whom": "Priya",
                                "what": f"send Priya the report {n}",
                                "due_text": "by Friday",
                                "due_date": None,
                            }
                            for n in re.findall(r"^\[(\d+)\][^\n]*I'll send Priya", prompt, re.M)
                        ]
                    }
                    if "commitments" in tools[0].parameters["properties"]
                    else {}
                ),
            },
            "promises": lambda: {
                "promises": [
                    {
                        "message": int(n),
                        "who": "me",
                        "to_whom": "Priya",
                        "what": f"send Priya the report {n}",
                        "due_text": "by Friday",
                        "due_date": None,
                    }
                    for n in re.findall(r"^\[(\d+)\][^\n]*I'll send Priya", prompt, re.M)
                ],
                "closures": [],
            },
            "decide_facts": lambda: {
                "decisions": [
                    {"candidate": n, "action": "ADD"} for n in range(1, prompt.split("Kept facts:")[0].count("\n"))
                ]
            },
        }.get(name, lambda: {k: [] for k in tools[0].parameters.get("required", [])})()
        # The tool's schema is sent with every call: count it with the system prompt.
        schema = len(json.dumps(tools[0].parameters)) + len(tools[0].description)
        self.calls.append((name, len(system) + schema, len(prompt), len(json.dumps(args, ensure_ascii=False))))
        return Response("", [ToolCall("c", name, args)], Usage(None, None), "counting")


@pytest.mark.parametrize("provider", ["scripted", "openai"], ids=["embedded-like", "hosted"])
def test_cost_of_one_write_pass_on_100_messages(db, capsys, provider):
    """Prints model calls and prompt size for one pass over 100 messages with 200 facts kept.

    A hosted model's extraction also reads the commitments, so the promises
    stage makes no call of its own when nothing closes."""
    with transaction(db) as conn:
        for i in range(200):
            facts.add_fact(conn, f"kept fact {i}: project {i % 40} detail {i}", "2026-09-01", [])

    def person(i):
        # Every tenth message of the person holds a promise or a repeated event, so every stage runs.
        if i % 20 == 0:
            return f"I'll send Priya the project {i // 2} report by Friday."
        if i % 20 == 10:
            return f"Interviewed another data engineering candidate today, number {i // 10}."
        return f"Project {i // 2} status: the owner is person {i // 2}, budget {1000 + i} euros, review on 2026-10-{i % 20 + 1:02d}."

    say(
        db,
        [
            ("user", person(i)) if i % 2 == 0 else ("assistant", f"Noted the status of project {i // 2}.")
            for i in range(100)
        ],
    )
    model = CountingMemoryModel(provider)
    result = run(db, ModelMemoryLLM(model, db))
    assert result.ran and result.messages == 100
    names = [c[0] for c in model.calls]
    assert names[:3] == ["save_memory", "save_facts", "decide_facts"]
    assert ("promises" in names) == (provider != "openai")
    assert result.extra["promises"]["opened"] == 5  # the five "I'll send Priya" messages, either way
    chars = sum(s + p for _, s, p, _ in model.calls)
    out = sum(o for *_, o in model.calls)
    with capsys.disabled():
        print(
            f"\n[{provider}] write pass over 100 messages (10 with a promise or a repeated event), 200 kept facts: {len(model.calls)} model calls ({', '.join(names)}); "
            f"input {chars} characters ≈ {chars // 4} tokens, scripted output {out} characters ≈ {out // 4} tokens "
            "(at 4 characters per token)"
        )
        for name, s, p, o in model.calls:
            print(
                f"  {name:14} system+schema {s:5} + prompt {p:6} characters ≈ {(s + p) // 4} tokens in, {o} characters out"
            )


# --- after the turn -------------------------------------------------------------


def _session(db, chat, **kw):
    from agent.loop import Session

    return Session(db=db, model=kw.pop("model", ScriptedModel([])), tools=[], tz=TZ, chat=chat)


def test_after_turn_runs_a_due_pass_in_the_background_on_its_own_connection(db):
    from agent.background import after_turn

    ids = say(db, [("user", f"note {i} about Atlas") if i % 2 == 0 else ("assistant", "ok") for i in range(8)])
    session = _session(db, store.get_chat(db))
    session.memory_model = ScriptedModel([rewrite(keep="- Atlas notes"), extracted()])
    thread = after_turn(session, background=True)
    assert thread is not None
    thread.join(120)
    session.memory_model.assert_complete()
    assert writer.cursor(db) == ids[-1] and "Atlas notes" in summary.current(db)
    assert session.model.requests == []  # the chat model was not used
    assert after_turn(session) is None  # nothing new: not due


def test_after_turn_skips_team_chats_and_never_borrows_a_scripted_chat_model(db):
    from agent.background import after_turn

    team = store.get_chat(db, "ops", store.TEAM)
    say(db, [("user", f"team note {i}") for i in range(8)], chat=team)
    session = _session(db, team)
    session.memory_model = ScriptedModel([])
    assert after_turn(session) is None
    say(db, [("user", f"private note {i}") for i in range(8)])
    chat_model = ScriptedModel([text("a reply meant for the chat")])
    assert after_turn(_session(db, store.get_chat(db), model=chat_model)) is None
    assert chat_model.requests == [] and writer.cursor(db) == 0


def test_archived_facts_stay_searchable(db):
    search = pytest.importorskip("memory.search")
    if not hasattr(search, "search_facts"):
        pytest.skip("memory.search.search_facts has not landed yet")
    with transaction(db) as conn:
        old = facts.add_fact(conn, "the Falcon contract renews in March", "2026-01-05", [])
        for i in range(3):
            facts.add_fact(conn, f"newer fact {i}", "2026-10-01", [])
        assert facts.archive_over_bound(conn, 3) == [old]
    hits = search.search_facts(db, "Falcon contract")
    assert [(h.fact_id, h.status) for h in hits][:1] == [(old, facts.ARCHIVED)]


def test_model_calls_never_hold_the_write_lock(db, kept_home):
    import sqlite3

    say(db, [("user", "Atlas launch is November 10.")])
    other = sqlite3.connect(str(kept_home / "kept.db"), timeout=0.2, isolation_level=None)

    def write_meanwhile(step):
        def respond(request):
            other.execute("BEGIN IMMEDIATE")  # raises "database is locked" if the pass held the lock
            other.execute("ROLLBACK")
            return step

        return respond

    _, llm = scripted(db, write_meanwhile(rewrite()), write_meanwhile(extracted(("Atlas launch is November 10", [1]))))
    assert run(db, llm).added == 1
