"""How memory asks a model for something without knowing which model.

``memory`` never imports ``agent``: the agent hands the write pass a callable
with this shape. With a ``schema`` (a ``memory.replies.Reply`` model) the reply
must be a JSON object matching it (providers deliver it as a forced tool call,
never scraped from prose; the adapter returns it validated, a test's fake may
return the plain dict and ``memory.replies.validate`` checks it);
a reply that does not parse raises ``UnusableReply`` and is counted as a
failure of the pass, never taken as an answer.
"""

from __future__ import annotations

from typing import Any, Protocol


class UnusableReply(Exception):
    """The model's reply could not be used; the pass fails and reruns later."""


class MemoryLLM(Protocol):
    def __call__(
        self,
        *,
        purpose: str,
        system: str,
        prompt: str,
        schema: type | None = None,
        schema_name: str = "record",
        max_tokens: int = 2048,
    ) -> Any:
        """Text when ``schema`` is None, else the reply as that model (or the dict the model returned)."""
        ...
