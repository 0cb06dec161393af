"""Tool specs and requests the model tests share (the SDK providers and the embedded model)."""

from __future__ import annotations

from agent.models.base import Message, ToolSpec
from evals.bench.harness import FAKE_KEY

__all__ = ["FAKE_KEY", "MEETING", "SCHEDULE", "ask"]

MEETING = {"title": "1:1 with Sam", "start": "Tuesday 10:00", "attendees": ["Sam"]}
SCHEDULE = ToolSpec(
    "schedule_meeting",
    "Book a meeting.",
    {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "start": {"type": "string"},
            "attendees": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["title", "start"],
    },
)


def ask(text="Book my one on one with Sam on Tuesday at 10:00") -> list[Message]:
    return [Message("user", text)]
