"""Reading the ledger back for a turn: open promises that bear on it, and "did I ever…" answers."""

from __future__ import annotations

import re
from datetime import date

from memory.promises.ledger import OPEN, Promise, describe, list_promises, today_here
from memory.text.acts import asks_whether_done

# --- reading them back --------------------------------------------------------

_LEDGER_Q = re.compile(
    r"\b(?:promis\w*|owe|open loops?|commitments?|to-?dos?|what do i (?:have|need) to|what am i supposed to|overdue)\b"
    r"|答应|承诺|待办|欠|要做的事",
    re.I,
)


def _matching(db, query: str, promises: list[Promise]) -> list[Promise]:
    """Promises that bear on ``query``, best match first (memory.recall's one matcher)."""
    if not promises:
        return []
    from memory.recall import match

    docs = [f"{p.what} {p.to_whom or ''}" for p in promises]
    return [promises[m.index] for m in match(query, docs, k=len(docs), rules=False)]


def status_lines(db, query: str, today: date | None = None) -> list[str]:
    """The ledger's answer to "Did I ever send Priya the timeline doc?": every matching promise,
    open (since when) or closed (when, with its evidence)."""
    today = today or today_here()
    found = _matching(db, query, list_promises(db, ()))
    return [describe(p, today) for p in found[:8]]


def relevant_open(db, query: str, today: date | None = None) -> list[str]:
    """Open promises that bear on ``query``, one line each, overdue ones marked.

    A question about the ledger itself ("what did I promise?") gets every
    open promise; a question about whether something happened ("did I...",
    "有没有") also gets the matching closed ones with their evidence, so it
    is answered from the ledger, not from a summary.
    """
    today = today or today_here()
    open_now = list_promises(db, (OPEN,))
    if _LEDGER_Q.search(query):
        chosen = open_now[:20]
    else:
        chosen = _matching(db, query, open_now)[:6]
    lines = [describe(p, today) for p in chosen]
    if asks_whether_done(query):
        for line in status_lines(db, query, today):
            if line not in lines:
                lines.append(line)
    return lines
