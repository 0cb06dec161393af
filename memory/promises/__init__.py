"""Promises: who committed to what, for whom, by when, and what closed it.

A summary that says "handled" turns an open loop into a closed one without
anyone having done anything. So promises live in their own ledger, and a
promise leaves the open state only on evidence:

- an explicit statement by the person in a message ("sent Priya the doc",
  "done", "已经发了"), whose id is kept as the evidence;
- the assistant's own tool action that fulfils it (a ``send_message`` to
  Priya carrying the doc), whose outbox row is kept as the evidence;
- "never mind the doc" from the person, which drops it.

Nothing else closes a promise: not MEMORY, not a fact, not a model's guess.

The package: ``ledger`` (the table and the one way a promise opens or closes),
``detect`` (candidate commitments, due dates), ``write`` (the write-pass stage: plan and apply),
``evidence`` (what closes one), ``read`` (lines for a turn). As a write-pass
stage it has the three functions every stage has: ``plan``, ``apply`` and
``for_turn``.
"""

from __future__ import annotations

from memory.promises.detect import OWN, THIRD, Candidate, detect, own, resolve_due
from memory.promises.evidence import completion_cue, drop_cue, on_tool_action
from memory.promises.ledger import (
    DONE,
    DROPPED,
    MIGRATIONS,
    OPEN,
    Promise,
    add,
    close,
    close_by_person,
    describe,
    events,
    get,
    list_promises,
    today_here,
)
from memory.promises.read import relevant_open, status_lines
from memory.promises.write import (
    READ_WITH_FACTS,
    SYSTEM,
    Closure,
    ExtractWithCommitments,
    NewPromise,
    PromisePlan,
    PromisesReply,
    apply_pass,
    plan_in_code,
    plan_pass,
    same_thing,
)
from memory.stages import InCode

NAME = "promises"
DOING = "detecting promises"
QUOTE = ("promises", "open promises; data")
plan = plan_pass
apply = apply_pass


def for_turn(db, text: str, today=None) -> list[str]:
    """The ledger's lines that bear on the person's message (see ``read.relevant_open``)."""
    return relevant_open(db, text, today)


# The stage for a memory model that reads badly (memory.writer.IN_CODE_STAGES): the same ledger,
# its plan read in code.
IN_CODE = InCode(NAME, "reading promises in code", plan_in_code, apply_pass, for_turn)

__all__ = [
    "IN_CODE",
    "DOING",
    "DONE",
    "DROPPED",
    "MIGRATIONS",
    "NAME",
    "OPEN",
    "OWN",
    "QUOTE",
    "READ_WITH_FACTS",
    "SYSTEM",
    "THIRD",
    "Candidate",
    "Closure",
    "ExtractWithCommitments",
    "NewPromise",
    "Promise",
    "PromisePlan",
    "PromisesReply",
    "add",
    "apply",
    "apply_pass",
    "close",
    "close_by_person",
    "completion_cue",
    "describe",
    "detect",
    "drop_cue",
    "events",
    "for_turn",
    "get",
    "list_promises",
    "on_tool_action",
    "own",
    "plan",
    "plan_in_code",
    "plan_pass",
    "relevant_open",
    "resolve_due",
    "same_thing",
    "status_lines",
    "today_here",
]
