"""Work that runs after the reply is shown: the memory write pass.

It never delays the reply: ``after_turn`` is called once the reply is on
screen, and in the REPL it runs the pass in a background thread with its own
database connection (a shared connection would let the chat's writes join
the pass's transaction). A failed pass is logged and left for the next one:
the cursor did not move, so nothing is lost.
"""

from __future__ import annotations

import logging
import threading

from memory.secrets import redact

log = logging.getLogger("kept.memory")

_running = threading.Lock()  # one pass per process; the lease covers other processes


def memory_model(session):
    """The model that writes memory, or None when there is none to use.

    The configured memory model; else the chat provider's cheaper model; a
    self-hosted OpenAI-compatible server or the embedded model is reused as
    is (it may serve only that one model). A scripted chat model is never
    reused: its steps belong to the test that wrote them.
    """
    import os

    from agent import config
    from agent.models import registry

    explicit = getattr(session, "memory_model", None)
    if explicit is not None:
        return explicit
    settings = config.load()
    if settings.memory_model:
        return registry.create(settings.memory_model, memory=True)
    provider = session.model.provider
    if provider == "anthropic" or provider == "openai" and not os.environ.get("OPENAI_BASE_URL"):
        return registry.create(provider, memory=True)
    if provider == "scripted":
        return None
    return session.model


def db_file(db) -> str:
    row = db.conn.execute("PRAGMA database_list").fetchone()
    return row[2] or ":memory:"


def run_due_pass(db, model, *, force: bool = False, progress=None):
    """One write pass on ``db`` if due (or forced), with the settings' cap, bound and schedule."""
    from agent import config
    from agent.memory_llm import ModelMemoryLLM
    from agent.models import calls
    from memory import writer

    settings = config.load()
    calls.set_deadline(settings.model_deadline_seconds)
    schedule = writer.Schedule(settings.write_every_turns, settings.write_min_user_turns, settings.write_min_hours)
    from agent.models.choices import for_model

    return writer.run_pass(
        db,
        ModelMemoryLLM(model, db),
        cap=settings.summary_cap,
        max_active=settings.max_active_facts,
        schedule=schedule,
        force=force,
        progress=progress,
        in_code=for_model(model).memory_in_code,
    )


def _pass_in_own_connection(path: str, model) -> None:
    from agent.session import open_store

    db = open_store(path)
    from agent.models.base import CANCELLED

    try:
        return run_due_pass(db, model)
    except Exception as exc:  # the next pass rereads the same messages; the chat goes on
        # A pass that yielded to the chat (the embedded model) is expected, not a failure to show.
        level = logging.INFO if getattr(exc, "kind", None) == CANCELLED else logging.WARNING
        log.log(level, "memory write pass failed, will retry later: %s: %s", type(exc).__name__, redact(str(exc)))
        return None
    finally:
        db.conn.close()


def after_turn(session, background: bool = False, on_done=None) -> threading.Thread | None:
    """Run a write pass if one is due. Call it after the reply is shown.

    With ``background`` the pass runs in a daemon thread (returned, so a
    REPL can join it on exit); otherwise it runs here. Team chats never
    trigger a pass: their messages are not written into private memory,
    and neither do incognito sessions. ``on_done`` gets the PassResult of a
    pass that ran (what it changed is in ``result.extra["journal_id"]``).
    """
    from memory import writer

    if session.chat.is_team or getattr(session, "incognito", False):
        return None
    try:
        from agent import config

        settings = config.load()
        schedule = writer.Schedule(settings.write_every_turns, settings.write_min_user_turns, settings.write_min_hours)
        if not writer.due(session.db, schedule)[0]:
            return None
        model = memory_model(session)
        if model is None:
            return None
    except Exception as exc:
        log.warning("memory write pass skipped: %s: %s", type(exc).__name__, redact(str(exc)))
        return None
    path = db_file(session.db)
    if path == ":memory:" or not path:
        target = lambda: _run_locked(lambda: run_due_pass(session.db, model), on_done)
    else:
        target = lambda: _run_locked(lambda: _pass_in_own_connection(path, model), on_done)
    if background:
        thread = threading.Thread(target=target, name="kept-write-pass", daemon=True)
        thread.start()
        return thread
    target()
    return None


def _run_locked(fn, on_done=None) -> None:
    if not _running.acquire(blocking=False):
        return
    try:
        result = fn()
        if on_done is not None and result is not None and result.ran:
            on_done(result)
    except Exception as exc:
        log.warning("memory write pass failed, will retry later: %s: %s", type(exc).__name__, redact(str(exc)))
    finally:
        _running.release()
