"""What one chat may read: decided once, from the chat's stored kind.

A private chat reads everything the person keeps. A team chat is shared with
other people, so it reads only what was said and done in that same team chat:
no SOUL, MEMORY, facts, promises or series, and of the tool tables (outbox,
calendar, tasks) only the rows that chat made. Every reader (context parts,
tools, chat commands) asks the chat's ``Scope`` instead of checking the kind
itself, so a new reader cannot forget the rule in one place.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scope:
    chat: str  # the chat's name, as stored in the ``chat`` column of tool rows
    team: bool

    @property
    def private_memory(self) -> bool:
        """Whether SOUL, MEMORY, facts, promises, series and private messages may be read."""
        return not self.team

    def sees(self, row_chat: str | None) -> bool:
        """Whether a tool row made in chat ``row_chat`` (None: by a command outside any chat) is visible."""
        return not self.team or row_chat == self.chat

    def where(self, column: str = "chat") -> tuple[str, list]:
        """An SQL condition (starting with AND) and its arguments that keep only the visible rows."""
        if not self.team:
            return "", []
        return f" AND {column} = ?", [self.chat]


EVERYTHING = Scope("", team=False)  # the person's own commands outside any chat


def of(chat) -> Scope:
    """The scope of a ``memory.messages.Chat``."""
    return Scope(chat.name, chat.is_team)
