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
    short_tools: bool = False  # tool descriptions cut to their first sentence
    pick_tools: bool = False  # only the tools the turn can need
    memory_in_code: bool = False  # facts, SOUL and MEMORY written by memory/embedded_writer.py
    show_working: bool = False  # a "reading…" line with the seconds while the model reads
    check_parrot: bool = False  # a reply that repeats the message or an earlier reply is a failed generation
    hold_reply: bool = False  # the reply is shown only once it passed its check (no streaming)
    calls_need_request: bool = False  # acting calls only when memory.text.acts reads the message as a request


HOSTED = Choices()
EMBEDDED = Choices(confirm_in_code=True, recent_limit=6, short_tools=True, pick_tools=True, memory_in_code=True,
                   show_working=True, check_parrot=True, hold_reply=True, calls_need_request=True)


def for_model(model) -> Choices:
    choices = getattr(model, "choices", None)
    return choices if isinstance(choices, Choices) else HOSTED
