"""The recall judge for a session: built only for a hosted memory model with ``recall_judge`` on.

Off by default. The embedded model (and a scripted one, whose steps belong to
its test) never gets a judge, whatever the setting: see memory/judge.py.
"""

from __future__ import annotations

HOSTED = ("anthropic", "openai")


def attach(session) -> None:
    """Give a session opened for the person (``kept chat``, ``kept ask``) its judge, per the settings.

    Called where sessions are opened rather than in agent.session: the memory
    model is resolved by agent.background, which opens stores through agent.session."""
    from agent import config

    session.judge = for_session(session, config.load().recall_judge)


def for_session(session, enabled: bool):
    """A ``memory.judge.Judge`` for the session's memory model, or None."""
    if not enabled:
        return None
    from agent.background import memory_model
    from agent.memory_llm import ModelMemoryLLM
    from agent.models.base import ModelError
    from memory.judge import Judge

    model = memory_model(session)
    if model is None or model.provider not in HOSTED:
        return None
    # An incognito session keeps no model-call log.
    return Judge(ModelMemoryLLM(model, None if session.incognito else session.db), errors=(ModelError,))
