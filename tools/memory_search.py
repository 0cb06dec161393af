"""The search_memory tool: the person's facts and private messages, dated.

Facts come first, each marked active, superseded (replaced since, not
current) or archived (old but true as far as kept knows); then the raw
messages of private chats, as snippets with their message ids. In a team
chat the tool is refused: the person's memory is not the team's.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from memory import search
from tools.arguments import Arguments
from tools.base import Tool, ToolContext, ToolError

TEAM_REFUSAL = (
    "search_memory is not available in a team chat: the person's private memory stays out of team chats. "
    "Answer from this chat's messages, or ask the person to search in a private chat."
)


class SearchMemoryArgs(Arguments):
    ALIASES = {
        "q": "query",
        "text": "query",
        "terms": "query",
        "keywords": "query",
        "k": "limit",
        "max_results": "limit",
    }

    query: str = Field(
        min_length=1,
        max_length=1000,
        description="What to look for, in the person's words, e.g. 'Billing cutover date' or '预算 Q3'.",
    )
    limit: int = Field(
        default=8, ge=1, le=30, description="How many facts and how many messages at most (default 8 each)."
    )


def search_memory(ctx: ToolContext, args: SearchMemoryArgs) -> dict:
    if not ctx.scope.private_memory:
        raise ToolError(TEAM_REFUSAL)
    facts = search.search_facts(ctx.db, args.query, args.limit)
    found = search.search_messages(ctx.db, args.query, args.limit)
    result: dict[str, Any] = {
        "facts": [h.as_dict() for h in facts],
        "messages": [h.as_dict() for h in found],
    }
    if not facts and not found:
        result["note"] = "nothing stored matches; try other words, a name, a number or a date"
    return result


TOOLS = [
    Tool(
        "search_memory",
        "Search everything the person told kept: dated facts (each marked active, superseded = replaced and no "
        "longer current, or archived) and the raw messages of private chats, as dated snippets with message_ids. "
        "Use it when the recalled facts do not answer, or to check what something was before.",
        SearchMemoryArgs,
        search_memory,
    ),
]
