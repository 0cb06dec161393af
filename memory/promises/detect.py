"""Finding candidate commitments (``memory.text.commitments``) and the day a deadline names."""

from __future__ import annotations

import re
from datetime import date

from memory.text.commitments import OWN, THIRD, Candidate, detect, own

__all__ = ["OWN", "THIRD", "Candidate", "detect", "own", "resolve_due"]

# --- due dates ---------------------------------------------------------------


def resolve_due(words: str, said_on: date) -> date | None:
    """The calendar day ``words`` ("by Friday", "end of the month", "下周二") name, said on ``said_on``.

    memory.text.dates reads the words ("end of the month", "the 15th", "月底"
    included); a range ("next week") is due on its last day.
    """
    if not words:
        return None
    w = words.strip().lower()
    iso = re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", w)
    if iso:
        try:
            return date(int(iso[1]), int(iso[2]), int(iso[3]))
        except ValueError:
            return None
    if re.search(r"\bin \w+ (?:minutes?|hours?)\b|分钟|小时", w):
        return said_on
    from memory.text import dates

    span = dates.resolve(words, said_on)
    if span is None:
        return None
    return span.end
