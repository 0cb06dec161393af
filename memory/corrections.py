"""Facts the person adds or corrects by hand (`kept memory add|edit`, `/remember`).

Each is an ordinary fact-log change with its event: an ADD dated the day it
was said, from the person; an UPDATE that supersedes the old version.
"""

from __future__ import annotations

import sqlite_utils

from memory import facts as fact_log
from memory.db import transaction

BY_HAND = "added by the person"
CORRECTED = "corrected by the person"


class Refused(ValueError):
    """The change cannot be made; the message says why in one line."""


def _clean(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        raise Refused('the fact is empty: give its text, e.g. "Priya leads the Atlas launch"')
    return text


def remember(db: sqlite_utils.Database, text: str, said_on: str) -> fact_log.Fact:
    """Store ``text`` as an active fact dated ``said_on`` (an ADD event)."""
    text = _clean(text)
    with transaction(db) as conn:
        fact_id = fact_log.add_fact(conn, text, said_on, [], reason=BY_HAND)
    return fact_log.get(db, fact_id)  # type: ignore[return-value]


def correct(db: sqlite_utils.Database, fact_id: int, text: str, said_on: str) -> fact_log.Fact:
    """Replace active fact ``fact_id`` with ``text`` (an UPDATE event); the new version."""
    text = _clean(text)
    old = fact_log.get(db, fact_id)
    if old is None:
        raise Refused(f"no fact #{fact_id}; `kept memory facts` lists them")
    if old.status != fact_log.ACTIVE:
        newer = fact_log.replaced_by(db, fact_id)
        hint = (
            f"; edit #{newer.id}, its current version"
            if newer is not None and old.status == fact_log.SUPERSEDED
            else ""
        )
        raise Refused(f"fact #{fact_id} is {old.status}, not active{hint}")
    with transaction(db) as conn:
        new_id = fact_log.update_fact(
            conn, fact_id, text, said_on, old.source_ids, reason=f"{CORRECTED} (replaces #{fact_id})"
        )
    return fact_log.get(db, new_id)  # type: ignore[return-value]
