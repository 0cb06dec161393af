"""Open everything a conversation needs: the store, the model, the tools."""

from __future__ import annotations

from agent import config
from agent.loop import Session
from memory import messages as store
from memory.db import MEMORY_OWNERS, open_db

OWNERS = MEMORY_OWNERS + ("tools.store",)


def open_store(path=None):
    """The person's database with every owner's migrations applied."""
    return open_db(path or config.db_path(), OWNERS)


def open_session(model_spec: str | None = None, chat_name: str = store.DEFAULT_CHAT, team: bool = False,
                 approve=lambda prompt: True, db=None, model=None) -> Session:
    from agent.models import registry
    from tools import all_tools

    from agent.models import calls

    settings = config.load()
    tz = config.timezone(settings)
    calls.set_deadline(settings.model_deadline_seconds)
    db = db if db is not None else open_store()
    chat = store.get_chat(db, chat_name, store.TEAM if team else None)
    model = model if model is not None else registry.create(model_spec or settings.model)
    return Session(
        db=db, model=model, tools=all_tools(), tz=tz, chat=chat, approve=approve,
        recall_k=settings.recall_k, recent_limit=settings.recent_messages,
    )
