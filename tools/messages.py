"""Message tools: send_message, list_messages.

kept does not deliver messages itself: a sent message is recorded in the
outbox (``kept outbox list``), which is what other parts read to know what
was said to whom.

Consent: stored text is data, and a message planted in memory must not be
able to make kept write to a stranger. So the first message to a recipient
kept has never written to needs the person's yes (``ctx.approve``); a
recipient already in the outbox needs none. The question is asked before
the write transaction opens, so a person thinking holds no lock.
"""

from __future__ import annotations

import re
from typing import Optional

from pydantic import Field, field_validator

from tools import store
from tools.arguments import Arguments
from tools.base import Tool, ToolContext, ToolError

PREVIEW_CHARS = 200


class SendMessageArgs(Arguments):
    ALIASES = {"recipient": "to", "recipients": "to", "person": "to", "name": "to", "message": "body",
               "text": "body", "content": "body", "title": "subject", "via": "channel"}

    to: str = Field(min_length=1, max_length=200, description="Who gets it: one name or address, e.g. 'Sam' or 'sam@example.com'.")
    body: str = Field(min_length=1, max_length=20000, description="The message text to send, written out in full.")
    subject: Optional[str] = Field(default=None, max_length=300, description="Optional subject line, e.g. 'Budget for Q3'.")
    channel: Optional[str] = Field(
        default=None, max_length=40,
        description="Optional way to send: 'email', 'chat' or 'sms'. Default: 'email' for an address with @, else 'chat'.",
    )

    @field_validator("to", mode="before")
    @classmethod
    def _one_recipient(cls, value):
        if isinstance(value, list):
            if len(value) != 1:
                raise ValueError("send to one recipient per call; call send_message once for each person")
            value = value[0]
        return value

    @field_validator("channel")
    @classmethod
    def _channel(cls, value):
        if value is None:
            return None
        value = value.strip().lower()
        if not re.fullmatch(r"[a-z][a-z0-9 _-]*", value):
            raise ValueError("a channel is one word such as 'email', 'chat' or 'sms'")
        return value


class ListMessagesArgs(Arguments):
    ALIASES = {"recipient": "to", "person": "to", "n": "limit", "count": "limit"}

    to: Optional[str] = Field(default=None, description="Optional: only messages to this name or address, e.g. 'Sam'.")
    limit: int = Field(default=20, ge=1, le=200, description="How many of the most recent messages, default 20.")


def _message(message: store.OutboxMessage, ctx: ToolContext) -> dict:
    row = message.as_dict(ctx.tz)
    return {k: v for k, v in row.items() if v is not None and k != "chat"}


def send_message(ctx: ToolContext, args: SendMessageArgs) -> dict:
    to = " ".join(args.to.split())
    channel = args.channel or ("email" if "@" in to else "chat")
    first = not store.has_sent_to(ctx.db, to)
    if first:
        preview = args.body if len(args.body) <= PREVIEW_CHARS else args.body[:PREVIEW_CHARS] + "…"
        question = (
            f"Send a first message to {to} (kept has never written to them) by {channel}?\n"
            + (f"Subject: {args.subject}\n" if args.subject else "")
            + f"Message: {preview}"
        )
        if not ctx.approve(question):
            raise ToolError(
                f"not sent: the person did not approve a first message to {to!r} (kept has never written to them). "
                "Tell the person it was not sent; they can confirm in the chat, or rerun `kept ask` with --yes."
            )
    message = store.add_outbox(
        ctx.db, recipient=to, body=args.body, now=ctx.now, channel=channel, subject=args.subject, chat=ctx.chat_name,
    )
    result = _message(message, ctx)
    result["status"] = "sent"
    result["first_to_recipient"] = first
    return result


def list_messages(ctx: ToolContext, args: ListMessagesArgs) -> dict:
    found = store.outbox(ctx.db, recipient=args.to, limit=args.limit, scope=ctx.scope)
    return {"count": len(found), "messages": [_message(m, ctx) for m in found]}


TOOLS = [
    Tool(
        "send_message",
        "Send a message to one person (to, body; subject and channel optional). Use it only when the person "
        "asks you to send, tell, write or reply to someone. A first message to someone kept has never written "
        "to needs the person's approval; if it is refused, nothing is sent. Returns message_id and sent_at.",
        SendMessageArgs,
        send_message,
    ),
    Tool(
        "list_messages",
        "Show messages already sent (the outbox), oldest first, each with message_id, to, subject, body and "
        "sent_at. Optional to filters by recipient, e.g. 'Sam'.",
        ListMessagesArgs,
        list_messages,
    ),
]
