"""Open everything a conversation needs: the store, the model, the tools.

``open_session`` returns a ``Session``: one conversation's state (store, model,
tools, chat, zone). The class is defined beside ``run_turn`` in agent/loop.py,
the function that reads it, and imported here, so ``from agent.session import
Session, open_session`` finds both.
"""

from __future__ import annotations

from datetime import UTC

from agent import config
from agent.loop import Session
from memory import messages as store
from memory.db import MEMORY_OWNERS, open_db

__all__ = ["OWNERS", "Session", "open_session", "open_store", "retry_pending"]

OWNERS = MEMORY_OWNERS + ("tools.lists",)


def open_store(path=None):
    """The person's database with every owner's migrations applied."""
    return open_db(path or config.db_path(), OWNERS)


def open_session(
    model_spec: str | None = None,
    chat_name: str = store.DEFAULT_CHAT,
    team: bool = False,
    approve=lambda prompt: True,
    db=None,
    model=None,
    delivery=None,
    incognito: bool = False,
) -> Session:
    from agent.models import calls, registry
    from tools import all_tools
    from tools.delivery import Deliverer

    settings = config.load()
    tz = config.timezone(settings)
    calls.set_deadline(settings.model_deadline_seconds)
    db = db if db is not None else open_store()
    kind = store.TEAM if team else None
    if incognito and not any(c.name == chat_name for c in store.list_chats(db)):
        # Nothing is written, not even a new chat: an unknown chat stays a name with no history.
        chat = store.Chat(0, chat_name, kind or store.PRIVATE)
    else:  # an existing chat is only read (its kind is still checked)
        chat = store.get_chat(db, chat_name, kind)
    model = model if model is not None else registry.create(model_spec or settings.model)
    session = Session(
        db=db,
        model=model,
        tools=all_tools(),
        tz=tz,
        chat=chat,
        approve=approve,
        recall_k=settings.recall_k,
        recent_limit=settings.recent_messages,
        incognito=incognito,
        delivery=delivery if delivery is not None else Deliverer.from_home(config.home()),
    )
    # An incognito session changes nothing in the store, pending deliveries included (and recall
    # keeps the facts' meaning vectors in memory instead of the store).
    if incognito:
        from memory import meaning

        meaning.read_only(db)
    session.delivery_retry = None if incognito else retry_pending(session)
    return session


def retry_pending(session, path=None):
    """Items left pending (a server was down, or kept was stopped mid-delivery) are tried again at
    start, in a thread with its own connection, so the first turn does not wait on a server.
    Returns the thread, or None when nothing is due."""
    import threading
    from datetime import datetime

    from tools import lists
    from tools.delivery import Deliverer

    delivery = session.delivery
    if delivery is None or not delivery.accounts:
        return None
    if not lists.due_deliveries(session.db, datetime.now(UTC)):
        return None
    row = session.db.conn.execute("PRAGMA database_list").fetchone()
    path = path or (row[2] if row and row[2] else None)
    if not path:
        return None

    def work():
        try:
            db = open_store(path)
        except Exception:
            return
        try:
            Deliverer(delivery.accounts, timeout=delivery.timeout).run_due(db)
        except Exception:  # the items stay pending; the next start tries again
            import logging

            logging.getLogger("kept.delivery").warning("retrying pending deliveries failed", exc_info=True)
        finally:
            db.conn.close()

    thread = threading.Thread(target=work, name="kept-delivery-retry", daemon=True)
    thread.start()
    return thread
