"""Message tools: send_message, list_messages.

Every message is recorded in the outbox (``kept outbox list``), which is
what other parts read to know what was said to whom. An email to an
address is also delivered when an SMTP account is connected
(tools/delivery/): the row is queued in the same transaction, sent once
with the Message-ID it was given, and the result says whether the server
took it, it waits for a retry, or it stays in kept only and why.

Consent: stored text is data, and a message planted in memory must not be
able to make kept write to a stranger, nor reach a known person on a new
channel. So the first message to a recipient on a channel kept has never
used for them needs the person's yes (``ctx.approve``), and the question
names the address and the channel and shows the whole message, so nothing
hides past a preview. The question is asked before the write transaction
opens, so a person thinking holds no lock.
"""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from tools import lists
from tools.arguments import Arguments
from tools.base import Tool, ToolContext, ToolError


class SendMessageArgs(Arguments):
    KINDS = {"to": "person", "body": "material"}
    ALIASES = {
        "recipient": "to",
        "recipients": "to",
        "person": "to",
        "name": "to",
        "message": "body",
        "text": "body",
        "content": "body",
        "title": "subject",
        "via": "channel",
    }

    to: str = Field(
        min_length=1, max_length=200, description="Who gets it: one name or address, e.g. 'Sam' or 'sam@example.com'."
    )
    body: str = Field(min_length=1, max_length=20000, description="The message text to send, written out in full.")
    subject: str | None = Field(
        default=None, max_length=300, description="Optional subject line, e.g. 'Budget for Q3'."
    )
    channel: str | None = Field(
        default=None,
        max_length=40,
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

    to: str | None = Field(default=None, description="Optional: only messages to this name or address, e.g. 'Sam'.")
    limit: int = Field(default=20, ge=1, le=200, description="How many of the most recent messages, default 20.")


def _message(message: lists.OutboxMessage, ctx: ToolContext) -> dict:
    row = message.as_dict(ctx.tz)
    return {k: v for k, v in row.items() if v is not None and k != "chat"}


# Characters a terminal would act on instead of showing (escape sequences that conceal or
# overwrite text, bidirectional overrides that reorder it): shown as their code instead.
_HIDING = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def _visible(text: str) -> str:
    return _HIDING.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)


def consent_question(to: str, channel: str, subject: str | None, body: str, how: str) -> str:
    """The whole message, with who gets it and how: what the person says yes to is what goes.
    Nothing in it can hide from the screen: characters a terminal acts on are shown as codes."""
    lines = body.split("\n")
    return (
        f"Send a first {channel} message to {_visible(to)}? kept has never written to {_visible(to)} by {channel}.\n"
        f"{how}\n"
        + (f"Subject: {_visible(subject)}\n" if subject else "")
        + f"Message ({len(body)} characters, {len(lines)} line{'s' if len(lines) != 1 else ''}, shown in full):\n"
        + "\n".join(f"  | {_visible(line)}" for line in lines)
        + "\nSend it?"
    )


def send_message(ctx: ToolContext, args: SendMessageArgs) -> dict:
    from tools.delivery import deliver_now

    to = " ".join(args.to.split())
    channel = args.channel or ("email" if "@" in to else "chat")
    delivery = ctx.deliverer()
    state, why_local = delivery.message_state(channel, to)
    first = not lists.has_sent_to(ctx.db, to, channel)
    if first:
        how = (
            f"It will be sent from {delivery.mail.sender} through {delivery.mail.host}."
            if state == lists.PENDING
            else f"It will be recorded in kept only ({why_local})."
        )
        if not ctx.approve(consent_question(to, channel, args.subject, args.body, how)):
            raise ToolError(
                f"not sent: the person did not approve a first {channel} message to {to!r} (kept has never written "
                f"to them by {channel}). Tell the person it was not sent; they can confirm in the chat, or rerun "
                "`kept ask` with --yes."
            )
    domain = delivery.mail.sender.rpartition("@")[2] if delivery.mail and delivery.mail.sender else "kept.local"
    message = lists.add_outbox(
        ctx.db,
        recipient=to,
        body=args.body,
        now=ctx.now,
        channel=channel,
        subject=args.subject,
        chat=ctx.chat_name,
        delivery=state,
        domain=domain,
    )
    result = _message(message, ctx)
    result["status"], result["delivery"] = deliver_now(ctx, lists.MESSAGE, message.id, state, why_local)
    result["first_to_recipient"] = first
    return result


def list_messages(ctx: ToolContext, args: ListMessagesArgs) -> dict:
    found = lists.outbox(ctx.db, recipient=args.to, limit=args.limit, scope=ctx.scope)
    states = lists.deliveries(ctx.db, lists.MESSAGE)
    rows = []
    for m in found:
        row = _message(m, ctx)
        row["delivery"] = states[m.id].state if m.id in states else lists.LOCAL
        rows.append(row)
    return {"count": len(found), "messages": rows}


TOOLS = [
    Tool(
        "send_message",
        "Send a message to one person (to, body; subject and channel optional). Use it only when the person "
        "asks you to send, tell, write or reply to someone. A first message to someone on a channel kept has "
        "never used for them needs the person's approval; if it is refused, nothing is sent. Returns message_id, "
        "status ('sent' = the mail server took it, 'queued' = kept retries later, 'recorded' = kept only, not "
        "delivered, 'failed') and delivery (one line saying what happened): tell the person exactly that.",
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
