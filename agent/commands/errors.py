"""How a command fails in front of the person: one line on stderr, no traceback.

Every command module uses these two, so the wording and exit codes are the
same everywhere. The exception classes are imported when a failure happens,
not at start, so `kept --help` stays fast.
"""

from __future__ import annotations

import functools
from typing import NoReturn

import typer


class Fail(Exception):
    """An error for the person: one line, no traceback."""


def fail(message: str, code: int = 1) -> NoReturn:
    typer.echo(f"kept: {message}", err=True)
    raise typer.Exit(code)


def _known_failures() -> tuple[type[BaseException], ...]:
    from agent.config import ConfigError
    from agent.loop import InputError
    from agent.models.base import ModelError
    from memory.db import StoreError
    from memory.messages import ChatKindError
    from memory.transfer import ImportRefused
    from memory.writer import PassAborted

    return (StoreError, ChatKindError, ConfigError, InputError, ModelError, ImportRefused, PassAborted, Fail)


def guard(fn):
    """Turn known failures into one clear line instead of a traceback."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except KeyboardInterrupt:
            fail("interrupted", 130)
        except Exception as exc:
            if isinstance(exc, _known_failures()):
                fail(str(exc))
            raise

    return wrapper


def open_store_and_zone():
    """The person's store and time zone, for a command; a bad config or store is one line and exit 1."""
    from agent import config
    from agent.config import ConfigError
    from agent.session import open_store
    from memory.db import StoreError

    try:
        tz = config.timezone(config.load())
        return open_store(), tz
    except (StoreError, ConfigError) as exc:
        fail(str(exc))
