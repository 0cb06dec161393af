"""One turn: store the message, build the context, call the model, run tools
(at most five rounds), store the reply.

The person's message is committed before the model is called, so a crash or
a provider failure can never lose it.

Steps around each tool call, the way llm's ``Conversation.chain(before_call=…,
after_call=…)`` works: ``Session.before_call`` sees the model's calls with the
turn as data (agent/screen.py: the screen, on by default for a model that
asks for it) and may drop, change or hold them; what it did is on
``TurnResult.screened``. ``Session.after_call`` steps run after each
successful call (closing the promises a sent message fulfils).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from agent import confirm, context, reply_check, screen
from agent.models.base import Message, Model, ModelError, ToolCall, ToolSpec
from memory import messages as store
from memory.text.acts import is_request
from tools.base import Tool, ToolContext, ToolError

MAX_TOOL_ROUNDS = 5
MAX_MESSAGE_CHARS = 100_000  # what one message may put into the prompt


class InputError(ValueError):
    """The person's input cannot be used; the text says why in one line."""


class Cancelled(Exception):
    pass


@dataclass
class ExecutedCall:
    name: str
    arguments: dict[str, Any]
    result: Any
    is_error: bool


@dataclass
class TurnResult:
    reply: str
    calls: list[ExecutedCall] = field(default_factory=list)
    user_message_id: int | None = None
    reply_message_id: int | None = None
    error: str | None = None  # set when the turn ended without a model reply
    recalled: list = field(default_factory=list)
    memory_items: list = field(default_factory=list)  # context.Item: what of memory reached the prompt, and why
    screened: list[screen.Note] = field(default_factory=list)  # what the before-call step dropped, changed or held


@dataclass
class Session:
    db: Any
    model: Model
    tools: list[Tool]
    tz: Any  # ZoneInfo
    chat: store.Chat
    author: str = "me"
    approve: Callable[[str], bool] = lambda prompt: True
    clock: Callable[[], datetime] | None = None
    recall_k: int = 12
    recent_limit: int = 14
    # Incognito: memory is read, but no message, tool result or model-call record is stored;
    # the session's own turns live only here, for the next turn's context.
    incognito: bool = False
    unsaved: list[Message] = field(default_factory=list)
    delivery: Any = None  # tools.delivery.Deliverer; None keeps everything local
    delivery_retry: Any = None  # the thread retrying pending deliveries at start, if any
    # Before-call step: (calls, tool specs, the turn as data) -> Screened. None: the screen when the
    # model asks for it (``wants_screen``), else nothing.
    before_call: Callable[[list[ToolCall], list[ToolSpec], screen.Request], screen.Screened] | None = None
    after_call: list[Callable[[Session, ExecutedCall], None]] | None = None  # None: close fulfilled promises
    judge: Any = None  # memory.judge.Judge: a hosted memory model sifts what recall brought (agent/judging.py)

    def now(self) -> datetime:
        return (self.clock() if self.clock else datetime.now(self.tz)).astimezone(self.tz)


def clean_input(text: str) -> str:
    """Drop control characters (keeping newlines and tabs) and refuse empty input."""
    cleaned = "".join(ch for ch in text if ch in "\n\t" or ch >= " " and ch != "\x7f")
    if not cleaned.strip():
        raise InputError("empty message: type something, or /help for commands")
    return cleaned


def run_turn(
    session: Session,
    text: str,
    *,
    on_text: Callable[[str], None] | None = None,
    on_tool: Callable[[ExecutedCall], None] | None = None,
    on_retry: Callable[[ModelError, float], None] | None = None,
    cancel: threading.Event | None = None,
) -> TurnResult:
    text = clean_input(text)
    now = session.now()
    if (session.before_call or getattr(session.model, "wants_screen", False)) and is_request(text):
        from memory.text import people

        people.prepare(text)  # the screen reads a Chinese request's names: its tagger loads meanwhile
    user_id = _keep(session, "user", session.author, text, now)
    ctx = context.build(
        session.db,
        session.chat,
        text[:MAX_MESSAGE_CHARS],
        now,
        str(session.tz),
        recall_k=session.recall_k,
        recent_limit=session.recent_limit,
        exclude_message_id=user_id,
        unsaved=session.unsaved if session.incognito else None,
        judge=session.judge,
    )
    result = TurnResult("", user_message_id=user_id, recalled=ctx.recalled, memory_items=ctx.items)
    calls_db = None if session.incognito else session.db
    specs = [ToolSpec(t.name, t.description, t.parameters, kinds=t.kinds) for t in session.tools]
    by_name = {t.name: t for t in session.tools}
    tool_ctx = ToolContext(
        session.db, now, session.tz, session.chat.name, session.chat.is_team, session.approve, delivery=session.delivery
    )
    convo = list(ctx.messages)
    before = session.before_call or (screen.screen if getattr(session.model, "wants_screen", False) else None)
    after = session.after_call if session.after_call is not None else [_close_fulfilled_promises]

    for round_no in range(MAX_TOOL_ROUNDS + 1):
        _check(cancel)
        # After the last tool round the model must answer in text.
        offer = specs if round_no < MAX_TOOL_ROUNDS else None
        try:
            response, kept_meta = reply_check.checked_call(
                session.model,
                convo,
                request=text,
                done=result.calls,
                known=[item.text for item in ctx.items],
                today=now.date(),
                db=calls_db,
                purpose="chat",
                system=ctx.system,
                # The embedded model's text after a tool result may be replaced (confirm.settle): not streamed.
                tools=offer,
                on_text=None if result.calls and session.model.provider == "local" else on_text,
                on_retry=on_retry,
            )
            calls, held = list(response.tool_calls), []
            if calls and offer is not None and before is not None:
                screened = before(calls, specs, screen.Request(text, now, session.tz, ctx.memory, convo))
                calls, held = screened.calls, screened.held
                result.screened += screened.notes
                if not calls and not held and not response.text.strip():
                    # Every call was unwanted: ask again for an answer in words.
                    response, kept_meta = reply_check.checked_call(
                        _WordsOnly(session.model),
                        convo,
                        request=text,
                        done=result.calls,
                        db=calls_db,
                        purpose="chat",
                        system=ctx.system,
                        tools=specs,
                        on_text=on_text,
                        on_retry=on_retry,
                    )
        except ModelError as exc:
            result.error = _explain(exc)
            return result
        _check(cancel)
        if not (calls or held) or offer is None:
            reply = response.text
            if result.calls and (session.model.provider == "local" or not reply.strip()):
                # The embedded model often answers a tool result with its fields; say what was done instead.
                reply = confirm.settle(reply, result.calls)
            if not reply.strip():
                result.error = "the model stopped without a reply; nothing was done beyond the tool calls shown"
                return result
            result.reply = reply
            # An honest line after failed generations, or a reply kept wrote itself, is shown
            # but never shown to the model again (it copies what it sees).
            result.reply_message_id = _keep(session, "assistant", "kept", reply, session.now(), meta=kept_meta or None)
            if session.incognito and not kept_meta:
                session.unsaved += [Message("user", text), Message("assistant", reply)]
            return result
        convo.append(Message("assistant", response.text, tool_calls=calls + [c for c, _ in held]))
        outcomes = [(c, None) for c in calls] + held
        for call, hold in outcomes:
            if hold is None:
                executed = _execute(call, by_name, tool_ctx)
            else:
                executed = ExecutedCall(call.name, call.arguments, screen.held_result(hold), True)
            result.calls.append(executed)
            _keep(
                session,
                "tool",
                call.name,
                json.dumps(executed.result, ensure_ascii=False, default=str),
                session.now(),
                meta={"arguments": call.arguments, "is_error": executed.is_error},
            )
            if not executed.is_error and not session.incognito:
                for step in after:
                    step(session, executed)
            if on_tool:
                on_tool(executed)
            convo.append(
                Message(
                    "tool",
                    json.dumps(executed.result, ensure_ascii=False, default=str),
                    tool_call_id=call.id,
                    name=call.name,
                    is_error=executed.is_error,
                )
            )
    raise AssertionError("unreachable: the last round offers no tools")


def _keep(session: Session, role: str, author: str, text: str, at: datetime, meta: dict | None = None) -> int | None:
    """Store a message of this turn (nothing in an incognito session)."""
    if session.incognito:
        return None
    return store.add_message(session.db, session.chat, role, author, text, at, meta=meta)


class _WordsOnly:
    """The session's model asked for an answer in words (tools stay in the prompt, unused).

    A model may answer that itself (``answer_in_words``: the embedded model
    keeps its cached prompt and forbids the tool-call token); any other is
    asked without tools."""

    def __init__(self, model: Model):
        self.model = model
        self.provider, self.name = model.provider, model.name

    def complete(self, messages, *, system="", tools=None, on_text=None, max_tokens=1024, require_tool=False):
        answer = getattr(self.model, "answer_in_words", None)
        if answer is not None:
            return answer(messages, system=system, tools=tools, on_text=on_text, max_tokens=max_tokens)
        response = self.model.complete(messages, system=system, tools=None, on_text=on_text, max_tokens=max_tokens)
        return type(response)(response.text, [], response.usage, response.model, response.stop_reason)


def _close_fulfilled_promises(session: Session, executed: ExecutedCall) -> None:
    """A tool action that does what was promised (a message to Priya carrying
    the doc) closes the promise, linked to the outbox row as evidence."""
    from memory import promises

    if isinstance(executed.result, dict):
        promises.on_tool_action(
            session.db, executed.name, executed.arguments, executed.result, today=session.now().date()
        )


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled()


def _execute(call: ToolCall, tools: dict[str, Tool], ctx: ToolContext) -> ExecutedCall:
    tool = tools.get(call.name)
    if tool is None:
        error = f"unknown tool {call.name!r}; available tools: {', '.join(sorted(tools))}"
        return ExecutedCall(call.name, call.arguments, {"error": error}, True)
    try:
        return ExecutedCall(call.name, call.arguments, tool.call(ctx, call.arguments), False)
    except ToolError as exc:
        return ExecutedCall(call.name, call.arguments, {"error": str(exc)}, True)
    except Exception as exc:  # a bug in a tool must not end the turn: the model sees it
        return ExecutedCall(
            call.name, call.arguments, {"error": f"{call.name} failed: {type(exc).__name__}: {exc}"}, True
        )


def _explain(exc: ModelError) -> str:
    from agent.models import base

    reasons = {
        base.RATE_LIMIT: "the model provider is rate-limiting us",
        base.SERVER: "the model provider had a server error",
        base.TIMEOUT: "the model did not answer in time",
        base.CONNECTION: "could not reach the model provider",
        base.MALFORMED: "the model's reply could not be understood",
        base.EMPTY: "the model returned an empty reply",
        base.AUTH: "the model provider refused the API key",
        base.BAD_REQUEST: "the model provider rejected the request",
        base.NOT_CONFIGURED: "no model is configured",
    }
    reason = reasons.get(exc.kind, "the model call failed")
    return f"{reason} ({exc}). Your message is saved; try again."
