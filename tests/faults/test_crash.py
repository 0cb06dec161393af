"""Crash safety: SIGKILL `kept ask` mid-turn and mid-write-pass. After each
restart every message sent before the kill is stored exactly once, no fact is
doubled, the cursor is consistent, the interrupted pass reruns, and
``PRAGMA integrity_check`` is ok. `kept bench faults` runs 50+ of these."""

from __future__ import annotations

import time

from evals.bench import faults, harness
from evals.bench.fakemodel import RespondingOpenAI
from evals.bench.faults import NO_PASSES, PASS_EVERY_TURN, cursor, facts_citing
from tests.faults.checks import assert_clean


def _wait_for(predicate, timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "the fake model never got the request"
        time.sleep(0.05)


def _memory_calls(server) -> int:
    return sum(1 for r in server.model_requests if len(r.body.get("tools") or []) == 1)


def test_a_kill_during_the_model_call_keeps_the_message_exactly_once(kept_home):
    with RespondingOpenAI(delay=60) as server:
        text = "The Q3 budget for Falcon is 12,500 euros"
        proc = harness.spawn_kept("ask", text, home=kept_home, base_url=server.base_url, **NO_PASSES)
        _wait_for(lambda: server.requests_with(text) > 0)
        assert harness.sigkill(proc), "kept finished before the kill"
        proc.stdout.close(), proc.stderr.close()
        rows = harness.history(kept_home)
        assert harness.user_texts(rows)[text] == 1
        assert [r for r in rows if r["role"] == "assistant"] == []
        assert harness.integrity(kept_home) == "ok"
        server.delay = 0
        again = harness.run_kept("ask", "Are you there?", home=kept_home, base_url=server.base_url, **NO_PASSES)
        assert_clean(again)
        assert again.returncode == 0
        assert harness.user_texts(harness.history(kept_home))[text] == 1


def test_a_kill_during_the_write_pass_leaves_the_cursor_and_the_next_pass_reruns(kept_home):
    slow_memory = {"on": True}

    def delay(body) -> float:
        return 60.0 if slow_memory["on"] and len(body.get("tools") or []) == 1 else 0.0

    with RespondingOpenAI(delay=delay) as server:
        first = "The Atlas launch moved to November 10"
        proc = harness.spawn_kept("ask", first, home=kept_home, base_url=server.base_url, **PASS_EVERY_TURN)
        _wait_for(lambda: _memory_calls(server) > 0)  # the reply is stored; the pass is mid-call
        assert harness.sigkill(proc)
        proc.stdout.close(), proc.stderr.close()
        assert harness.integrity(kept_home) == "ok"
        assert cursor(kept_home) == 0, "a killed pass moved the cursor"
        assert facts_citing(kept_home, first) == 0
        # Restart: the next turn's pass must read the interrupted pass's messages.
        slow_memory["on"] = False
        proc = harness.run_kept("ask", "Thanks", home=kept_home, base_url=server.base_url, **PASS_EVERY_TURN)
        assert_clean(proc)
        assert proc.returncode == 0
        lease = harness.query(kept_home, "SELECT value FROM state WHERE key = 'writer.lease'")
        assert facts_citing(kept_home, first) == 1, f"the interrupted pass did not rerun; lease {lease}"
        assert cursor(kept_home) >= 3
        assert faults.duplicate_facts(kept_home) == 0


def test_random_sigkills_during_turns_and_passes_lose_and_duplicate_nothing(tmp_path):
    tally = faults.crash_trials(4, seed=8, workdir=tmp_path, per_store=4)
    assert tally.trials == 4
    why = "\n".join(tally.problems)
    assert (tally.messages_lost, tally.messages_duplicated, tally.facts_duplicated) == (0, 0, 0), why
    assert (tally.integrity_failures, tally.cursor_errors, tally.unclean_outputs, tally.locked_errors) == (
        0,
        0,
        0,
        0,
    ), why
