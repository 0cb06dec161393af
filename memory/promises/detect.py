"""Finding candidate commitments (``memory.text.commitments``) and the day a deadline names."""

from __future__ import annotations

import re
from datetime import date, timedelta

from memory.text.commitments import OWN, THIRD, Candidate, detect, own

__all__ = ["OWN", "THIRD", "Candidate", "detect", "own", "resolve_due"]

# --- due dates ---------------------------------------------------------------


def resolve_due(words: str, said_on: date) -> date | None:
    """The calendar day ``words`` ("by Friday", "end of the month", "下周二") name, said on ``said_on``.

    Uses memory.text.dates (the shared resolver) for relative dates; deadlines it
    does not cover ("end of the month", "the 15th", "月底") are handled here.
    A range ("next week") is due on its last day.
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
    if re.search(r"end of (?:the )?day|\beod\b|tonight|今晚|today|今天", w):
        return said_on
    if re.search(r"end of (?:the )?week|\beow\b", w):
        return said_on + timedelta(days=(4 - said_on.weekday()) % 7)
    if re.search(r"end of (?:the )?month|月底", w):
        nxt = (said_on.replace(day=28) + timedelta(days=4)).replace(day=1)
        return nxt - timedelta(days=1)
    if re.search(r"end of (?:the )?year|年底", w):
        return date(said_on.year, 12, 31)
    if re.search(r"in \w+ (?:minutes?|hours?)", w):
        return said_on
    nth = re.search(r"\bthe (\d{1,2})(?:st|nd|rd|th)\b|(?<!\d)(\d{1,2})[号日]", w)
    if nth and not re.search(r"月", w):
        day = int(nth[1] or nth[2])
        for months_ahead in range(0, 3):
            y, m0 = divmod(said_on.month - 1 + months_ahead, 12)
            try:
                candidate = date(said_on.year + y, m0 + 1, day)
            except ValueError:
                continue
            if candidate >= said_on:
                return candidate
        return None
    try:
        from memory.text import dates
    except ImportError:  # the shared resolver is not there: only what is above
        return None
    span = dates.resolve(words, said_on)
    if span is None:
        return None
    return span.end
