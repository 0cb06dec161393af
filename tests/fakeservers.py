"""Fake OpenAI and Anthropic HTTP servers on 127.0.0.1, for adapter and end-to-end tests.

Each server answers in its SDK's own wire shapes, so the real ``openai`` and
``anthropic`` clients (and ``kept`` itself, run with ``OPENAI_BASE_URL`` or
``ANTHROPIC_BASE_URL`` pointing here) talk to it exactly as to the real API.
Replies are queued in order; each model request takes the next one. A request
with ``"stream": true`` gets the reply as a server-sent-event stream, otherwise
as one JSON body. Faults are queued the same way.

    with FakeOpenAI() as server:
        server.fail(status=429, retry_after=0)
        server.reply_tool_call("schedule_meeting", {"title": "1:1 with Sam"})
        server.reply_text("Booked.")
        client = openai.OpenAI(base_url=server.base_url, api_key="test-key-not-real")
        ...
        assert server.requests[1].body["messages"][0]["role"] == "system"
        server.assert_complete()

Queue methods (all return the server, so they chain):
    reply_text(text, usage=...)                 a plain text answer
    reply_tool_call(name, arguments, id=None, text="", usage=...)
    reply_tool_calls([(name, arguments), ...])  several calls in one reply
    reply_malformed_tool_call(name, raw_arguments)  arguments that are not a JSON object
    reply_empty()                               no text, no tool call
    fail(status, retry_after=None, message=..., error_type=None)
    hang(seconds)                               answer nothing for ``seconds`` (client timeout)
    disconnect_mid_stream(text)                 send part of a reply, then drop the connection
    truncate_stream(text)                       a stream that ends cleanly but before its last events
    error_mid_stream(error_type, text)          part of a stream, then the API's error event
                                                (without streaming: the matching HTTP error)

``usage=None`` sends a reply without usage, as some local servers do. A request
beyond the queue gets a 500 whose message says so, and ``assert_complete()``
fails while replies are left over. ``requests`` holds every request received:
method, path, lower-cased headers, and the parsed JSON body.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_USAGE = (12, 7)  # (input tokens, output tokens)


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or the raw text when it was not JSON


@dataclass
class Step:
    kind: str  # "reply", "fail", "hang", "disconnect", "truncate", "stream_error"
    text: str = ""
    tool_calls: list[tuple[str, str, str]] = field(default_factory=list)  # (id, name, raw JSON arguments)
    usage: tuple[int, int] | None = DEFAULT_USAGE
    status: int = 200
    retry_after: float | None = None
    message: str = ""
    error_type: str | None = None
    seconds: float = 0.0


class FakeServer:
    """The scripted queue and the HTTP plumbing; subclasses render the wire shapes."""

    model_path = "/v1/chat/completions"
    server_class: type[ThreadingHTTPServer] = ThreadingHTTPServer

    def __init__(self, model: str = "fake-model"):
        self.model = model
        self.requests: list[Recorded] = []
        self._steps: list[Step] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- the script ---------------------------------------------------------

    def reply_text(self, text: str, *, usage: tuple[int, int] | None = DEFAULT_USAGE) -> FakeServer:
        return self._push(Step("reply", text=text, usage=usage))

    def reply_tool_call(
        self,
        name: str,
        arguments: dict,
        *,
        id: str | None = None,
        text: str = "",
        usage: tuple[int, int] | None = DEFAULT_USAGE,
    ) -> FakeServer:
        return self._push(
            Step("reply", text=text, usage=usage, tool_calls=[(id or self._call_id(), name, json.dumps(arguments))])
        )

    def reply_tool_calls(
        self, calls: list[tuple[str, dict]], *, text: str = "", usage: tuple[int, int] | None = DEFAULT_USAGE
    ) -> FakeServer:
        wired = [(self._call_id(), name, json.dumps(args)) for name, args in calls]
        return self._push(Step("reply", text=text, usage=usage, tool_calls=wired))

    def reply_malformed_tool_call(
        self, name: str, raw_arguments: str = '{"title": "1:1 with Sam", "start": '
    ) -> FakeServer:
        return self._push(Step("reply", tool_calls=[(self._call_id(), name, raw_arguments)]))

    def reply_empty(self, *, usage: tuple[int, int] | None = DEFAULT_USAGE) -> FakeServer:
        return self._push(Step("reply", usage=usage))

    def fail(
        self, status: int = 500, *, retry_after: float | None = None, message: str = "", error_type: str | None = None
    ) -> FakeServer:
        return self._push(
            Step(
                "fail",
                status=status,
                retry_after=retry_after,
                message=message or f"scripted failure {status}",
                error_type=error_type,
            )
        )

    def hang(self, seconds: float) -> FakeServer:
        return self._push(Step("hang", seconds=seconds))

    def keep_alive(self, seconds: float, every: float = 0.2) -> FakeServer:
        """A 200 stream that sends only SSE keep-alive comments for ``seconds``, then drops."""
        return self._push(Step("keep_alive", seconds=seconds, retry_after=every))

    def reply_raw(self, body: str, status: int = 200) -> FakeServer:
        """A reply whose body is ``body`` exactly (any JSON shape, or none), streamed or not."""
        return self._push(Step("raw", status=status, message=body))

    def disconnect_mid_stream(self, text: str = "Booking the meet") -> FakeServer:
        return self._push(Step("disconnect", text=text))

    def truncate_stream(self, text: str = "Booking the meet") -> FakeServer:
        return self._push(Step("truncate", text=text))

    def error_mid_stream(self, error_type: str = "overloaded_error", text: str = "Booking the meet") -> FakeServer:
        return self._push(Step("stream_error", text=text, error_type=error_type, message="scripted stream error"))

    def assert_complete(self) -> None:
        assert not self._steps, f"{len(self._steps)} scripted replies were never requested"

    @property
    def model_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.method == "POST" and r.path.endswith(self.model_path)]

    # -- lifecycle ----------------------------------------------------------

    @property
    def base_url(self) -> str:
        raise NotImplementedError

    @property
    def port(self) -> int:
        assert self._httpd is not None, "start the server first (use it as a context manager)"
        return self._httpd.server_address[1]

    def start(self) -> FakeServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # small SSE writes go out at once, not 40 ms apart

            def do_POST(self):
                server._serve(self)

            def do_GET(self):
                server._serve(self)

            def log_message(self, *args):  # keep test output clean
                pass

        self._httpd = self.server_class(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="fake-llm-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes any hanging handler
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- plumbing -----------------------------------------------------------

    def _push(self, step: Step) -> FakeServer:
        with self._lock:
            self._steps.append(step)
        return self

    def _call_id(self) -> str:
        return f"call_{next(self._ids)}"

    def _serve(self, h: BaseHTTPRequestHandler) -> None:
        try:
            self._handle(h)
        except (BrokenPipeError, ConnectionResetError):
            h.close_connection = True  # the client gave up (a timeout test): nothing to answer

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length).decode("utf-8") if length else ""
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = raw
        with self._lock:
            self.requests.append(Recorded(h.command, h.path, {k.lower(): v for k, v in h.headers.items()}, body))
        if h.command == "GET" and h.path.rstrip("/").endswith("/models"):
            return self._send_json(h, 200, {"object": "list", "data": [{"id": self.model, "object": "model"}]})
        if not h.path.split("?")[0].endswith(self.model_path):
            return self._send_json(h, 404, self.error_body(404, f"no route {h.path}", None))
        with self._lock:
            step = self._steps.pop(0) if self._steps else None
        if step is None:
            return self._send_json(
                h, 500, self.error_body(500, "fake server: request beyond the scripted replies", None)
            )
        stream = isinstance(body, dict) and bool(body.get("stream"))
        if step.kind == "hang":
            if self._stopping.wait(step.seconds):
                h.close_connection = True
                return
            return self._send_json(h, 200, self.message_json(Step("reply", text="too late")))
        if step.kind == "keep_alive":
            return self._send_keep_alive(h, step.seconds, step.retry_after or 0.2)
        if step.kind == "raw":
            data = step.message.encode()
            h.send_response(step.status)
            h.send_header("Content-Type", "text/event-stream" if stream else "application/json")
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
            return
        if step.kind == "stream_error" and not stream:
            status = 529 if step.error_type == "overloaded_error" else 500
            step = Step("fail", status=status, message=step.message, error_type=step.error_type)
        if step.kind == "fail":
            headers = {} if step.retry_after is None else {"Retry-After": _seconds(step.retry_after)}
            return self._send_json(h, step.status, self.error_body(step.status, step.message, step.error_type), headers)
        if step.kind == "reply" and not stream:
            return self._send_json(h, 200, self.message_json(step))
        if step.kind in ("disconnect", "truncate") and not stream:
            # Without streaming a cut-off reply is a body shorter than its Content-Length.
            data = json.dumps(self.message_json(Step("reply", text=step.text))).encode()
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data[: len(data) // 2])
            h.wfile.flush()
            h.close_connection = True
            return
        events = self.stream_events(Step("reply", text=step.text) if step.kind != "reply" else step)
        if step.kind != "reply":
            events = events[: max(2, len(events) // 2)]
        if step.kind == "stream_error":
            events.append(self.error_event(step.message, step.error_type))
        self._send_stream(h, events, drop=step.kind == "disconnect")

    def _send_json(self, h, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            h.send_header(key, value)
        h.end_headers()
        h.wfile.write(data)

    def _send_stream(self, h, events: list[str], *, drop: bool) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Cache-Control", "no-cache")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        for event in events:
            data = event.encode()
            h.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            h.wfile.flush()
        if not drop:
            h.wfile.write(b"0\r\n\r\n")  # the end of the chunked body: the stream ends cleanly
        h.wfile.flush()
        # Dropping without the last chunk is a broken connection. A clean stream keeps its
        # keep-alive connection open, as a real server does: closing it without a
        # "Connection: close" header let the client send its retry on a socket the server had
        # just closed (a connection error instead of the scripted reply, seen under load).
        h.close_connection = drop

    def _send_keep_alive(self, h, seconds: float, every: float) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        until = time.monotonic() + seconds
        while time.monotonic() < until and not self._stopping.wait(every):
            data = b": keep-alive\n\n"
            h.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            h.wfile.flush()
        h.close_connection = True

    # Subclasses: the wire shapes.
    def message_json(self, step: Step) -> dict:
        raise NotImplementedError

    def stream_events(self, step: Step) -> list[str]:
        raise NotImplementedError

    def error_body(self, status: int, message: str, error_type: str | None) -> dict:
        raise NotImplementedError

    def error_event(self, message: str, error_type: str | None) -> str:
        raise NotImplementedError


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _pieces(text: str, size: int = 4) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


class FakeOpenAI(FakeServer):
    """OpenAI chat completions: ``chat.completion`` JSON and ``chat.completion.chunk`` SSE."""

    model_path = "/chat/completions"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _usage(self, step: Step) -> dict | None:
        if step.usage is None:
            return None
        i, o = step.usage
        return {
            "prompt_tokens": i,
            "completion_tokens": o,
            "total_tokens": i + o,
            "prompt_tokens_details": {"cached_tokens": 0},
        }

    def _finish(self, step: Step) -> str:
        return "tool_calls" if step.tool_calls else "stop"

    def message_json(self, step: Step) -> dict:
        message: dict[str, Any] = {"role": "assistant", "content": step.text or None}
        if step.tool_calls:
            message["tool_calls"] = [
                {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}
                for cid, name, args in step.tool_calls
            ]
        body = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": self._finish(step), "logprobs": None}],
        }
        if step.usage is not None:
            body["usage"] = self._usage(step)
        return body

    def stream_events(self, step: Step) -> list[str]:
        def chunk(delta: dict, finish: str | None = None, choices: bool = True, usage: dict | None = None) -> str:
            payload = {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": self.model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}] if choices else [],
            }
            if usage is not None:
                payload["usage"] = usage
            return f"data: {json.dumps(payload)}\n\n"

        events = [chunk({"role": "assistant", "content": ""})]
        events += [chunk({"content": piece}) for piece in _pieces(step.text)]
        for index, (cid, name, args) in enumerate(step.tool_calls):
            events.append(
                chunk(
                    {
                        "tool_calls": [
                            {"index": index, "id": cid, "type": "function", "function": {"name": name, "arguments": ""}}
                        ]
                    }
                )
            )
            events += [
                chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                for piece in _pieces(args, 7)
            ]
        events.append(chunk({}, self._finish(step)))
        if step.usage is not None:
            events.append(chunk({}, choices=False, usage=self._usage(step)))
        events.append("data: [DONE]\n\n")
        return events

    def error_body(self, status: int, message: str, error_type: str | None) -> dict:
        kind = error_type or {429: "rate_limit_exceeded", 401: "invalid_api_key"}.get(
            status, "server_error" if status >= 500 else "invalid_request_error"
        )
        return {"error": {"message": message, "type": kind, "param": None, "code": kind}}

    def error_event(self, message: str, error_type: str | None) -> str:
        return f"data: {json.dumps(self.error_body(500, message, error_type))}\n\n"


class FakeAnthropic(FakeServer):
    """Anthropic Messages: ``message`` JSON and the message_start … message_stop SSE events."""

    model_path = "/v1/messages"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _blocks(self, step: Step) -> list[dict]:
        blocks: list[dict] = [{"type": "text", "text": step.text}] if step.text else []
        for cid, name, args in step.tool_calls:
            try:
                parsed = json.loads(args)
            except json.JSONDecodeError:
                parsed = args  # a malformed call: the input arrives as a string, not an object
            blocks.append({"type": "tool_use", "id": cid, "name": name, "input": parsed})
        return blocks

    def _stop(self, step: Step) -> str:
        return "tool_use" if step.tool_calls else "end_turn"

    def _call_id(self) -> str:
        return f"toolu_{next(self._ids):04d}"

    def message_json(self, step: Step) -> dict:
        body: dict[str, Any] = {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": self._blocks(step),
            "stop_reason": self._stop(step),
            "stop_sequence": None,
        }
        i, o = step.usage or (None, None)
        if step.usage is not None:
            body["usage"] = {
                "input_tokens": i,
                "output_tokens": o,
                "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 0,
            }
        return body

    def stream_events(self, step: Step) -> list[str]:
        def event(name: str, payload: dict) -> str:
            return f"event: {name}\ndata: {json.dumps({'type': name, **payload})}\n\n"

        i, o = step.usage or (None, None)
        start: dict[str, Any] = {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
        }
        if step.usage is not None:
            start["usage"] = {
                "input_tokens": i,
                "output_tokens": 1,
                "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 0,
            }
        events = [event("message_start", {"message": start}), event("ping", {})]
        index = 0
        if step.text:
            events.append(event("content_block_start", {"index": index, "content_block": {"type": "text", "text": ""}}))
            events += [
                event("content_block_delta", {"index": index, "delta": {"type": "text_delta", "text": piece}})
                for piece in _pieces(step.text)
            ]
            events.append(event("content_block_stop", {"index": index}))
            index += 1
        for cid, name, args in step.tool_calls:
            events.append(
                event(
                    "content_block_start",
                    {"index": index, "content_block": {"type": "tool_use", "id": cid, "name": name, "input": {}}},
                )
            )
            events += [
                event(
                    "content_block_delta",
                    {"index": index, "delta": {"type": "input_json_delta", "partial_json": piece}},
                )
                for piece in _pieces(args, 7)
            ]
            events.append(event("content_block_stop", {"index": index}))
            index += 1
        delta: dict[str, Any] = {"delta": {"stop_reason": self._stop(step), "stop_sequence": None}}
        if step.usage is not None:
            delta["usage"] = {"output_tokens": o}
        events.append(event("message_delta", delta))
        events.append(event("message_stop", {}))
        return events

    def error_body(self, status: int, message: str, error_type: str | None) -> dict:
        kind = error_type or {
            429: "rate_limit_error",
            401: "authentication_error",
            403: "permission_error",
            400: "invalid_request_error",
            404: "not_found_error",
            529: "overloaded_error",
        }.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}

    def error_event(self, message: str, error_type: str | None) -> str:
        return f"event: error\ndata: {json.dumps(self.error_body(500, message, error_type))}\n\n"
