"""Assertions the fault tests share: what a person may and may not see."""

from __future__ import annotations

from evals.bench import harness


def assert_clean(proc) -> None:
    """The person saw either success or one clear line: never a traceback."""
    problem = harness.person_error(proc)
    assert problem is None, problem


def assert_one_line_error(proc) -> str:
    assert proc.returncode != 0, f"expected a failure, got exit 0: {proc.stdout[-500:]}"
    assert_clean(proc)
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("kept:")][0]
    return line
