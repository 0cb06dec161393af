"""Turn a persona into a kept store, through memory's public functions only.

Messages go in as they were said (dated, in one private chat). Memory then
comes one of two ways:

- ``gold``: the planted facts as if extracted perfectly. Each becomes a fact
  (a change supersedes the fact it replaces), the nickname and format wishes
  go to SOUL, promises open and close on their evidence. This isolates
  recall from extraction.
- a memory model: kept's real write path reads the messages and decides.
- ``none``: messages only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from evals.persona import Persona

if TYPE_CHECKING:
    import sqlite_utils

    from memory.messages import Chat

GOLD, NONE = "gold", "none"
PASS_RETRIES = 1  # a failed write pass is rerun once before the write path stops
SOUL_KINDS = ("nickname", "treatment")


@dataclass
class Loaded:
    persona: Persona
    db: sqlite_utils.Database
    chat: Chat
    tz: ZoneInfo
    ids: dict[str, int] = field(default_factory=dict)  # persona message id -> store message id
    facts: str = GOLD
    write_stats: dict = field(default_factory=dict)

    @property
    def now(self) -> datetime:
        return self.persona.now_dt.astimezone(self.tz)


def open_store(path: Path):
    # The same owners the app migrates, so tools and memory tables all exist.
    from agent.session import open_store as open_app_store

    return open_app_store(path)


def load(persona: Persona, path: Path, facts: str = GOLD, memory_llm=None, settings=None) -> Loaded:
    from memory import messages as store
    from memory.db import transaction

    db = open_store(path)
    tz = ZoneInfo(persona.tz)
    chat = store.get_chat(
        db, store.DEFAULT_CHAT, store.PRIVATE, now=persona.messages[0].when if persona.messages else None
    )
    loaded = Loaded(persona, db, chat, tz, facts=facts if memory_llm is None else "write-path")
    with transaction(db):
        for m in persona.messages:
            author = "me" if m.role == "user" else "kept"
            loaded.ids[m.id] = store.add_message(db, chat, m.role, author, m.text, m.when)
    if memory_llm is not None:
        loaded.write_stats = write_path(db, memory_llm, settings)
    elif facts == GOLD:
        insert_gold(loaded)
    return loaded


def insert_gold(loaded: Loaded) -> None:
    """The planted memory, as a perfect extractor would have stored it."""
    from memory import facts as fact_log
    from memory import promises, soul
    from memory.db import transaction

    db, persona = loaded.db, loaded.persona
    fact_ids: dict[str, int] = {}
    promise_ids: dict[str, int] = {}
    soul_lines = []
    with transaction(db) as conn:
        for p in persona.planted:
            source = [loaded.ids[p.message]]
            said_on = p.fact[:10]
            body = p.fact[12:]
            if p.kind in SOUL_KINDS:
                soul_lines.append(body)
                continue
            if p.replaces and p.replaces in fact_ids:
                fact_ids[p.id] = fact_log.update_fact(conn, fact_ids[p.replaces], body, said_on, source, "gold")
            else:
                fact_ids[p.id] = fact_log.add_fact(conn, body, said_on, source, "gold")
            detail = p.detail or {}
            if p.kind == "promise":
                promise_ids[p.id] = promises.add(
                    conn, "me", detail.get("what", body), said_on, to_whom=detail.get("to"), opened_message_id=source[0]
                )
            elif p.kind == "evidence" and p.replaces in promise_ids:
                promises.close(
                    conn, promise_ids[p.replaces], promises.DONE, said_on, body, by="message", message_id=source[0]
                )
    if soul_lines:
        soul.set_text(db, "\n".join(f"- {line}" for line in soul_lines), "gold")


def write_path(db, memory_llm, settings=None) -> dict:
    """kept's own write passes over the whole history."""
    from memory import writer

    if getattr(memory_llm, "db", False) is None:
        memory_llm.db = db  # log each call in the eval store: memory writing is paid apart from answering
    cap = getattr(settings, "summary_cap", 6000)
    max_active = getattr(settings, "max_active_facts", 500)
    results: list[writer.PassResult] = []
    stopped, failures = None, 0
    # Forced passes until every message is read, as `kept memory rewrite` runs them. A pass
    # whose model call fails (after call_model's own retries) or whose reply is unusable is
    # rerun once, as kept reruns a failed pass later; a second failure stops the write path,
    # and what earlier passes committed is scored as it stands.
    from agent.models.base import ModelError
    from memory.llm import UnusableReply

    started = time.monotonic()
    while len(results) < 10_000:
        try:
            result = writer.run_pass(
                db, memory_llm, cap=cap, max_active=max_active, force=True, in_code=_in_code(memory_llm)
            )
        except (ModelError, UnusableReply) as exc:
            failures += 1
            if failures > PASS_RETRIES:
                kind = getattr(exc, "kind", type(exc).__name__)
                stopped = f"{kind}: {str(exc)[:300]}"
                break
            continue
        failures = 0
        results.append(result)
        if not result.ran or result.remaining == 0:
            break
    stats: dict[str, Any] = {
        "passes": len(results),
        "stopped": stopped,
        "unread_messages": len(writer.pending(db)),
        "seconds": round(time.monotonic() - started, 1),  # the whole write path, every pass
    }
    for key in ("added", "updated", "deleted"):
        stats[key] = sum(getattr(r, key, 0) or 0 for r in results)
    # Memory writing is paid separately from answering: its calls, from the call log.
    from memory.call_log import list_calls

    # Every call so far is the write path's (memory.*, promises, series): answers come later, on copies.
    logged = [c for c in list_calls(db, limit=1_000_000) if c.get("purpose") != "eval"]
    calls = [c for c in logged if not c.get("error_class")]
    stats["model_calls"] = len(calls)
    stats["failed_attempts"] = len(logged) - len(calls)  # attempts that ended in an error carry no usage
    for key in ("input_tokens", "output_tokens", "cost_usd"):
        values = [c.get(key) for c in calls]
        known = [v for v in values if v is not None]
        stats[key] = sum(known) if values and len(known) == len(values) else None
    return stats


def extraction(loaded: Loaded, items) -> dict:
    """How well the write path kept what the items rest on, read from the fact log alone.

    ``covered``: items whose every need is met by an active fact's line;
    ``stale_active``: items whose stale value is still in an active fact
    (a change that was not superseded)."""
    import re

    from memory import facts as fact_log

    active = "\n".join(f.text for f in fact_log.by_status(loaded.db, fact_log.ACTIVE))
    scored = [i for i in items if i.needs]

    def meets(group):
        return any(re.search(p, active, re.I | re.M) for p in group)

    covered = [i.id for i in scored if all(meets(g) for g in i.needs)]
    stale = [
        i.id for i in scored if i.stale_patterns and any(re.search(p, active, re.I | re.M) for p in i.stale_patterns)
    ]
    return {
        "items": len(scored),
        "covered": len(covered),
        "stale_active": stale,
        "missing": [i.id for i in scored if i.id not in set(covered)],
        "active_facts": len(fact_log.by_status(loaded.db, fact_log.ACTIVE)),
    }


def _in_code(memory_llm) -> bool:
    """Whether the memory model's choices write memory in code (the embedded model), as kept does."""
    from agent.models.choices import for_model

    return for_model(getattr(memory_llm, "model", None)).memory_in_code
