"""What a tool is, and what it gets when it runs.

A tool is a plain function over a pydantic model of its arguments. The JSON
Schema the model sees comes from that pydantic model, and the same model
validates what the model sends back, so the two never drift apart. A
``ToolError`` message goes back to the model as the tool result: it should
say what was wrong and what would be accepted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import sqlite_utils

from memory.scope import Scope

if TYPE_CHECKING:
    from pydantic import BaseModel


class ToolError(Exception):
    """A failure the model can act on; its text is the tool result."""


@dataclass
class ToolContext:
    db: sqlite_utils.Database
    now: datetime  # aware, in the person's time zone
    tz: ZoneInfo
    chat_name: str = "me"
    chat_is_team: bool = False
    # Asked before an action needs the person's consent (e.g. a first message
    # to a new recipient). Returns True to go ahead.
    approve: Callable[[str], bool] = field(default=lambda prompt: True)
    # Where events, tasks and email go beyond the store (tools.delivery.Deliverer);
    # None: nothing is configured, everything stays local.
    delivery: Any = None

    def deliverer(self):
        from tools.delivery import Deliverer

        if self.delivery is None:
            self.delivery = Deliverer()
        return self.delivery

    @property
    def scope(self) -> Scope:
        """What this chat may read: every list and lookup of a tool goes through it."""
        return Scope(self.chat_name, self.chat_is_team)


@dataclass
class Tool:
    name: str
    description: str
    args: type[BaseModel]
    run: Callable[[ToolContext, Any], Any]

    @property
    def parameters(self) -> dict[str, Any]:
        schema = self.args.model_json_schema()
        schema.pop("title", None)
        return schema

    @property
    def kinds(self) -> dict[str, str]:
        """What kind of value each argument holds (tools.arguments.Arguments.KINDS)."""
        kinds = getattr(self.args, "kinds", None)
        return kinds() if callable(kinds) else {}

    def call(self, ctx: ToolContext, arguments: dict[str, Any]) -> Any:
        """Validate ``arguments`` and run; invalid input raises ``ToolError``."""
        from pydantic import ValidationError

        try:
            parsed = self.args.model_validate(arguments)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}" for err in exc.errors()
            )
            raise ToolError(f"invalid arguments for {self.name}: {problems}") from None
        return self.run(ctx, parsed)


def close_item(ctx: ToolContext, kind: str, item_id: int, close: Callable, get: Callable, already: Callable) -> Any:
    """``close`` (lists.cancel_event, lists.complete_task) the ``kind`` item ``item_id`` in the
    turn's scope. An unknown id, or one another chat's scope hides, and an item closed before,
    are ToolErrors naming the argument; ``already(item)`` says how the item stands."""
    try:
        return close(ctx.db, item_id, ctx.now, scope=ctx.scope)
    except LookupError:
        raise ToolError(f"{kind}_id: no {kind} has {kind}_id {item_id}; call list_{kind}s to see the ids") from None
    except ValueError:
        old = get(ctx.db, item_id, ctx.scope)
        assert old is not None  # close raised ValueError, so it found the item in this scope
        raise ToolError(f"{kind}_id: {kind} {item_id} {already(old)}") from None
