"""What kept does differently for a model, in one place.

A hosted model writes its own confirmations, reads the full tool
descriptions and extracts memory well; the embedded 0.5B model does none of
these reliably, so for it kept builds confirmations from tool results, shows
a shorter prompt and writes memory in code (memory/embedded_writer.py). A
model opts in with a ``choices`` attribute; every other model gets
``HOSTED``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Choices:
    confirm_in_code: bool = False  # a round of acting calls ends the turn in kept's sentences
    recent_limit: int | None = None  # recent messages in the prompt (None: the session's setting)
    # Tool descriptions cut to their first sentence. Off for the embedded model: on
    # every third item of evals/data/local_accuracy.json (dev) it cost 2 of 12
    # right calls (10/12 -> 8/12 after guard and repair), and the saved prefix
    # (agent/models/prefix_cache.py) already makes the tool list free after the first process.
    short_tools: bool = False
    pick_tools: bool = False  # only the tools the turn can need
    memory_in_code: bool = False  # facts, SOUL and MEMORY written by memory/embedded_writer.py
    show_working: bool = False  # a "reading…" line with the seconds while the model reads
    check_parrot: bool = False  # a reply that repeats the message or an earlier reply is a failed generation
    hold_reply: bool = False  # the reply is shown only once it passed its check (no streaming)
    calls_need_request: bool = False  # acting calls only when memory.text.acts reads the message as a request
    max_reply_tokens: int | None = None  # a chat generation stops here (the 0.5B model rambles to the limit)
    max_memory_tokens: int | None = None  # a memory call's output is cut here: bounded by design
    request_alone: bool = False  # a request to act is shown without the earlier turns (agent/reply_check.py)
    dont_know_in_code: bool = False  # a question nothing kept holds can answer gets "I don't know" from code
    statements_in_code: bool = False  # a statement (no question, no request) is acknowledged by code
    # A request shaped as telling someone something ("Tell Priya that …") is written as a message
    # call under a grammar: the 0.5B model picked list_events or schedule_meeting for them.
    shape_picks_tool: bool = False
    # Questions the store answers in the person's own words are answered in code: what they
    # promised someone (their sentence of the promise), what kept calls them (SOUL's naming wish).
    answers_from_store: bool = False


HOSTED = Choices()
EMBEDDED = Choices(
    confirm_in_code=True,
    recent_limit=6,
    short_tools=False,
    pick_tools=True,
    memory_in_code=True,
    show_working=True,
    check_parrot=True,
    hold_reply=True,
    calls_need_request=True,
    max_reply_tokens=200,
    max_memory_tokens=320,
    request_alone=True,
    dont_know_in_code=True,
    statements_in_code=True,
    shape_picks_tool=True,
    answers_from_store=True,
)


def for_model(model) -> Choices:
    # A wrapper (the turn's words-only retry) has its model's choices.
    choices = getattr(model, "choices", None) or getattr(getattr(model, "model", None), "choices", None)
    return choices if isinstance(choices, Choices) else HOSTED
