"""The embedded model: a GGUF run in-process by llama-cpp-python.

The prompt is rendered with the GGUF's own chat template (Jinja), with the
tools passed to it, and the model answers in text; tool calls are read from
``<tool_call>{...}</tool_call>`` blocks or a bare JSON object in that text.
(llama-cpp-python's ``chatml-function-calling`` format is not used: in 0.3.36
it forces empty or "functions.X:" replies when the model may choose.)

Speed: the Llama instance is loaded once per process and per file. kept's
system prompt starts with its fixed persona; the rest (date, memory) changes
each turn. The persona goes first and the changing part in a second system
message after the tool list, so the persona and tool definitions are a token
prefix shared by every turn, and llama.cpp's prefix match reuses their KV cache
instead of evaluating them again (``Usage.cached_input_tokens`` says how many).
``KEPT_LOCAL_TIMING=1`` prints prompt and generation speed per call.

A small model calls tools on plain questions and writes arguments it cannot
be trusted with, so it asks the turn to screen its calls (``wants_screen``;
agent/screen.py). When the screen leaves nothing, the turn asks it again for
an answer in words (``answer_in_words``), with the tools still in the prompt
so the cached prefix keeps serving.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import sys
import threading
import time
import uuid
from typing import Any

from agent.context import plain_memory
from agent.models.base import (
    BAD_REQUEST,
    CANCELLED,
    MALFORMED,
    NOT_CONFIGURED,
    SERVER,
    Message,
    ModelError,
    Response,
    StreamCallback,
    ToolCall,
    ToolSpec,
    Usage,
)
from agent.models.choices import EMBEDDED
from memory.text import dates

N_CTX = 8192
MESSAGE_TOOL = "send_message"  # the tool a request to tell someone something calls (``asks_to_tell``)
TIMING_ENV = "KEPT_LOCAL_TIMING"
GUARD_ENV = "KEPT_LOCAL_GUARD"  # "0" turns the guard off (the eval measures both)

_lock = threading.RLock()  # one llama context: calls take turns
# Set while a chat call waits for the context: a memory-writing call then stops
# at its next token and fails as cancelled (its pass reruns later), so the
# person never waits behind memory writing.
_chat_waiting = threading.Event()
_loaded: dict[str, Any] = {}  # path -> Llama, kept for the life of the process


# ---------------------------------------------------------------- loading


_threads = None  # cores.Threads, made on first load


def threads() -> int:
    """Threads for the next generation (agent/models/cores.py)."""
    global _threads
    from agent.models import cores

    try:
        if _threads is None:
            _threads = cores.Threads()
        return _threads.next()
    except ValueError as exc:
        raise ModelError(NOT_CONFIGURED, str(exc)) from None


def _import_llama():
    try:
        import llama_cpp
    except ImportError:
        from agent.models.model_file import HOW_TO_INSTALL

        raise ModelError(
            NOT_CONFIGURED, f"the embedded model needs llama-cpp-python, which is not installed: {HOW_TO_INSTALL}"
        ) from None
    return llama_cpp


def _progress_bar():
    """A rich progress bar on stderr while the model file is assembled (about 10 seconds)."""
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    from agent.models.model_file import SIZE

    progress = Progress(
        TextColumn("assembling the embedded model"),
        BarColumn(),
        DownloadColumn(),
        TimeRemainingColumn(),
        transient=True,
        console=_stderr_console(),
    )
    task = progress.add_task("model", total=SIZE)
    return progress, (lambda n: progress.advance(task, n))


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True)


def model_path() -> tuple[str, bool]:
    """The GGUF to load (assembled and verified first if needed) and whether it was hash-checked."""
    from agent.models import model_file

    try:
        found = model_file.locate()
        if found is None:
            model_file.part_files()  # say what is missing before drawing a progress bar
            progress, advance = _progress_bar()
            with progress:
                found = model_file.ensure(progress=advance)
    except model_file.ModelFileError as exc:
        raise ModelError(NOT_CONFIGURED, str(exc)) from None
    return str(found.path), found.verified


def load(path: str | None = None):
    """The process's Llama for ``path`` (default: the embedded model), loaded on first use."""
    with _lock:
        path = path or model_path()[0]
        if path in _loaded:
            return _loaded[path]
        llama_cpp = _import_llama()
        started = time.perf_counter()
        try:
            n = threads()
            llm = llama_cpp.Llama(
                model_path=path,
                n_ctx=N_CTX,
                n_threads=n,
                n_threads_batch=n,
                n_batch=512,
                verbose=False,
            )
        except (ValueError, RuntimeError) as exc:
            raise ModelError(NOT_CONFIGURED, f"could not load the model file {path}: {exc}") from None
        _timing(f"loaded {os.path.basename(path)} in {time.perf_counter() - started:.1f}s")
        _loaded[path] = llm
        return llm


@contextlib.contextmanager
def _silent_stderr():
    """File descriptor 2 sent to /dev/null for the block: what llama.cpp's C code writes there."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


_embedders: dict[str, Any] = {}  # path -> Llama in embedding mode, kept for the life of the process


def sentence_vector(text: str, path: str | None = None):
    """The embedded model's mean-pooled, unit-length vector of ``text`` (``memory.request_kind``
    reads the kind of act a request asks for from it). A second Llama on the same file in embedding
    mode (the weights are mapped once by the OS; a small context of its own), loaded on first use."""
    import numpy as np

    with _lock:
        path = path or model_path()[0]
        llm = _embedders.get(path)
        if llm is None:
            llama_cpp = _import_llama()
            try:
                with _silent_stderr():  # llama.cpp says the file names no pooling of its own
                    llm = llama_cpp.Llama(
                        model_path=path,
                        embedding=True,
                        pooling_type=llama_cpp.LLAMA_POOLING_TYPE_MEAN,
                        n_ctx=512,
                        n_batch=512,
                        n_ubatch=512,
                        n_threads=threads(),
                        verbose=False,
                    )
            except (ValueError, RuntimeError) as exc:
                raise ModelError(NOT_CONFIGURED, f"could not load the model file {path}: {exc}") from None
            _embedders[path] = llm
        # The reader's lines are sentences; a pasted page is cut to the context it has.
        tokens = llm.tokenize(text.encode("utf-8"), add_bos=False)[:500]
        return np.asarray(llm.embed(llm.detokenize(tokens).decode("utf-8", "ignore"), normalize=True), dtype=np.float32)


def _both_vectors(line: str, path: str):
    """The meaning model's vector of ``line``'s reading beside the embedded model's vector of the line."""
    import numpy as np

    from memory import meaning, request_kind

    return np.concatenate([meaning.embed_one(request_kind.reading(line)), sentence_vector(line, path)])


def kind_vectors():
    """The vectors ``memory.request_kind`` reads kinds by: the meaning model's (MiniLM, English, a
    Chinese line read in its dictionary English) beside the embedded model's own (which reads the
    line as written, in any language), when the model file is the shipped one (the kind weights
    were fitted on that file's vectors); None for another GGUF, a missing file, ``KEPT_KIND_VECTORS=meaning``
    (the meaning model's alone, as before), or the meaning model off or missing (then no kind is read,
    as before). Asked at each call: the meaning model may be switched off for a while
    (``meaning.words_only``)."""
    from memory import meaning

    if os.environ.get("KEPT_KIND_VECTORS", "").strip().lower() == "meaning" or not meaning.available():
        return None
    return _shipped_vectors()


@functools.cache
def _shipped_vectors():
    """``request_kind.Vectors`` on the shipped model file, or None when another file or none is found."""
    from agent.models import model_file
    from memory import request_kind

    try:
        found = model_file.locate()
    except model_file.ModelFileError:
        return None
    if found is None or not found.verified:
        return None
    return request_kind.Vectors(model_file.SHA256, functools.partial(_both_vectors, path=str(found.path)))


def _formatter(llm):
    """The GGUF's own chat template, kept on the Llama instance."""
    cached = getattr(llm, "_kept_formatter", None)
    if cached is not None:
        return cached
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    template = llm.metadata.get("tokenizer.chat_template")
    if not template:
        raise ModelError(
            NOT_CONFIGURED, "the model file has no chat template (tokenizer.chat_template); use an instruct GGUF"
        )
    eos_id, bos_id = llm.token_eos(), llm.token_bos()
    formatter = Jinja2ChatFormatter(
        template=template,
        eos_token=llm._model.token_get_text(eos_id) if eos_id != -1 else "",
        bos_token=llm._model.token_get_text(bos_id) if bos_id != -1 else "",
        stop_token_ids=[eos_id],
    )
    llm._kept_formatter = formatter
    return formatter


def _timing(line: str) -> None:
    if os.environ.get(TIMING_ENV):
        print(f"[local] {line}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- prompt


def split_system(system: str) -> tuple[str, str]:
    """(fixed head, per-turn rest): the first paragraph is kept's persona, which never changes."""
    head, sep, rest = system.partition("\n\n")
    return head, rest


def wire_tools(tools: list[ToolSpec] | None) -> list[dict] | None:
    if not tools:
        return None
    return [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in tools
    ]


def wire_messages(messages: list[Message], system: str, *, split: bool = True) -> list[dict]:
    out: list[dict] = []
    system = plain_memory(system)
    if system:
        head, rest = split_system(system) if split else (system, "")
        out.append({"role": "system", "content": head})
        if rest:
            out.append({"role": "system", "content": rest})
    for m in messages:
        if m.role == "tool":
            out.append({"role": "tool", "content": m.content, "tool_call_id": m.tool_call_id, "name": m.name})
        elif m.role == "assistant" and m.tool_calls:
            out.append(
                {
                    "role": "assistant",
                    "content": m.content or "",
                    "tool_calls": [
                        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                        for c in m.tool_calls
                    ],
                }
            )
        else:
            out.append({"role": m.role, "content": m.content})
    return out


def render(llm, messages: list[dict], tools: list[dict] | None):
    """Prompt text and stop strings from the GGUF's template."""
    formatter = _formatter(llm)
    try:
        return formatter(messages=messages, tools=tools)
    except Exception as first:  # a template that takes one system message only
        if sum(1 for m in messages if m["role"] == "system") < 2:
            raise ModelError(BAD_REQUEST, f"the model's chat template failed: {first}") from None
        merged = [{"role": "system", "content": "\n\n".join(m["content"] for m in messages if m["role"] == "system")}]
        merged += [m for m in messages if m["role"] != "system"]
        try:
            return formatter(messages=merged, tools=tools)
        except Exception as exc:
            raise ModelError(BAD_REQUEST, f"the model's chat template failed: {exc}") from None


# ---------------------------------------------------------------- parsing

OPEN, CLOSE = "<tool_call>", "</tool_call>"
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)


class Malformed(ValueError):
    pass


def _as_call(obj: Any, names: set[str] | None) -> ToolCall | None:
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict):  # {"type": "function", "function": {...}}
        obj = obj["function"]
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        return None
    args = obj.get("arguments", obj.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError:
            raise Malformed(f"the arguments of {name} are not JSON: {args[:80]!r}") from None
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise Malformed(f"the arguments of {name} are not a JSON object")
    if names is not None and name not in names and "arguments" not in obj and "parameters" not in obj:
        return None  # a JSON answer that merely has a "name" key
    return ToolCall(f"call_{uuid.uuid4().hex[:12]}", name, args)


def _loads_closing(text: str, decoder: json.JSONDecoder) -> Any:
    """The first JSON value in ``text``; when only its closing brackets are
    missing (the 0.5B model drops the last "}" now and then), with them
    added. None when it is not JSON."""
    try:
        return decoder.raw_decode(text)[0]
    except json.JSONDecodeError:
        pass
    open_: list[str] = []
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            open_.append("}" if ch == "{" else "]")
        elif ch in "}]" and (not open_ or open_.pop() != ch):
            return None
    if in_string or not open_:
        return None
    try:
        return decoder.raw_decode(text.rstrip() + "".join(reversed(open_)))[0]
    except json.JSONDecodeError:
        return None


def parse_reply(text: str, tool_names: set[str] | None = None, *, bare: bool = True) -> tuple[str, list[ToolCall]]:
    """Split a reply into (text without tool calls, tool calls).

    Reads ``<tool_call>{json}</tool_call>`` blocks (the closing tag may be cut
    off by the stop), or (``bare``) a reply that is nothing but a JSON object
    (or list of them, optionally in a ```json fence) naming a tool. Raises ``Malformed``
    when a tool-call block holds no readable call.
    """
    calls: list[ToolCall] = []
    decoder = json.JSONDecoder()
    if OPEN in text:
        kept_text: list[str] = []
        pos = 0
        while (start := text.find(OPEN, pos)) != -1:
            kept_text.append(text[pos:start])
            body_start = start + len(OPEN)
            end = text.find(CLOSE, body_start)
            body = text[body_start : end if end != -1 else len(text)].strip()
            obj = _loads_closing(body, decoder)
            if obj is None:
                raise Malformed(f"a tool call that is not JSON: {body[:80]!r}")
            call = _as_call(obj, None)
            if call is None:
                raise Malformed(f"a tool call without a name: {body[:80]!r}")
            calls.append(call)
            pos = end + len(CLOSE) if end != -1 else len(text)
        kept_text.append(text[pos:])
        return "".join(kept_text).strip(), calls
    if not bare:
        return text, []
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    candidate = fenced.group(1) if fenced else stripped
    if candidate[:1] in "{[":
        obj = _loads_closing(candidate, decoder)
        if obj is None:
            return text, []
        items = obj if isinstance(obj, list) else [obj]
        found = [_as_call(item, tool_names) for item in items]
        if found and all(found):
            return "", found  # type: ignore[return-value]
    return text, []


class _Stream:
    """Passes text deltas on, holding back anything that may be a tool call."""

    def __init__(self, on_text: StreamCallback | None):
        self.on_text = on_text
        self.buf = ""
        self.sent = 0
        self.stopped = False

    def feed(self, delta: str) -> None:
        self.buf += delta
        if self.on_text is None or self.stopped:
            return
        head = self.buf.lstrip()
        if head[:1] in ("{", "[", "`") or (not head and self.buf):
            return  # may be a bare JSON call: wait for the end
        cut = self.buf.find(OPEN)
        if cut != -1:
            self.stopped = True
        else:
            cut = len(self.buf)
            for k in range(min(len(OPEN) - 1, len(self.buf)), 0, -1):
                if OPEN.startswith(self.buf[-k:]):
                    cut -= k
                    break
        if cut > self.sent:
            self.on_text(self.buf[self.sent : cut])
            self.sent = cut

    def finish(self, final_text: str) -> None:
        """Send what the parsed reply shows beyond what was already sent."""
        if self.on_text is None:
            return
        done = self.buf[: self.sent]
        if final_text.startswith(done) and len(final_text) > len(done):
            self.on_text(final_text[len(done) :])


# ---------------------------------------------------------------- the screen

# The screen of this model's calls (guard and argument repair) is a before-call
# step of the turn: agent/screen.py. The model only says it wants it.


def guard_enabled() -> bool:
    return os.environ.get(GUARD_ENV, "1").strip().lower() not in ("0", "false", "off", "no")


# ---------------------------------------------------------------- the model


class LocalModel:
    provider = "local"
    choices = EMBEDDED  # agent/models/choices.py: what kept does in code for this model

    def __init__(
        self,
        name: str = "qwen2.5-coder-0.5b-instruct",
        *,
        path: str | None = None,
        guard: bool | None = None,
        temperature: float = 0.0,
        choices=None,
    ):
        self.name = name
        if choices is not None:
            self.choices = choices
        self._path = path
        self.guard = guard_enabled() if guard is None else guard
        self.temperature = temperature
        self._failed_prompt: list[int] | None = None  # the prompt whose reply was unusable
        self._last_prompt: list[int] | None = None
        self.last_timing: dict[str, Any] = {}  # the latest generation: tokens and seconds, for benchmarks
        self._resample = False  # the next chat generation samples with changed settings (reply_check)
        self.prefix_source = ""  # where the latest prompt's fixed prefix came from: kept / disk / evaluated

    def resample(self) -> None:
        """The last reply failed a check (it parroted, or claimed an action):
        the next chat generation samples hotter and penalises repeats harder,
        so it does not write the same reply again."""
        self._resample = True

    def complete(
        self,
        messages: list[Message],
        *,
        system: str = "",
        tools: list[ToolSpec] | None = None,
        on_text: StreamCallback | None = None,
        max_tokens: int = 1024,
        require_tool: bool = False,
    ) -> Response:
        structured = require_tool and tools and len(tools) == 1
        if not structured:
            _chat_waiting.set()
        with _lock:
            if not structured:
                _chat_waiting.clear()
            llm = load(self._path)
            if structured:
                assert tools is not None  # structured only with exactly one tool
                return self._structured(
                    llm, messages, system, tools[0], min(max_tokens, self.choices.max_memory_tokens or max_tokens)
                )
            max_tokens = min(max_tokens, self.choices.max_reply_tokens or max_tokens)
            messages, tools = self._cut(messages, tools)
            if self._resample:
                tools = None  # the retry of a failed text reply answers in words
            from agent.terminal import working

            forced = self._forced_tool(messages, tools)
            with working(self.choices.show_working):
                if forced is not None:
                    return self._forced_call(llm, messages, system, tools, forced, max_tokens)
                text, calls, usage, stop = self._generate(llm, messages, system, tools, on_text, max_tokens)
            if not calls and not text.strip():
                self._failed_prompt = self._last_prompt  # call_model will retry: sample then
            return Response(text, calls, usage, self.name, "tool_use" if calls else stop)

    def _forced_tool(self, messages: list[Message], tools: list[ToolSpec] | None) -> ToolSpec | None:
        """The tool a request's shape calls for, when the choices say so and it is offered: a
        request to tell someone something ("Tell Priya that the offsite moved") is a message.
        The 0.5B model picked list_events or schedule_meeting for those (agent/reply_check.py
        ``asks_to_tell``); a request whose every time is a deadline is a task. The call's
        arguments stay the model's."""
        if not (self.choices.shape_picks_tool and tools) or not messages or messages[-1].role != "user":
            return None
        from memory import request_kind

        kind = forced_kind(messages[-1].content)
        if kind == request_kind.MESSAGE:
            return next((t for t in tools if t.name == MESSAGE_TOOL), None)
        if kind == request_kind.TASK:
            return _one_taking(tools, "deadline")  # the tool that takes a deadline does that (assign_task)
        if kind == request_kind.MEETING:
            return _one_taking(tools, "moment")  # the tool that takes a start (schedule_meeting)
        return None

    def _forced_call(self, llm, messages, system, tools, tool: ToolSpec, max_tokens: int) -> Response:
        """A call of ``tool`` written under a grammar, with every offered tool still in the prompt
        (its saved prefix serves) and the model's own arguments."""
        schema = {
            "type": "object",
            "properties": {"name": {"const": tool.name}, "arguments": tool.parameters},
            "required": ["name", "arguments"],
        }
        text, _, usage, stop = self._generate(
            llm, messages, system, tools, None, max_tokens, grammar=_grammar(schema), forced=True
        )
        try:
            arguments = json.loads(text)["arguments"]
        except (ValueError, KeyError, TypeError):
            self._failed_prompt = self._last_prompt
            raise ModelError(MALFORMED, f"{tool.name}: the call was cut off ({stop})") from None
        call = ToolCall(f"call_{uuid.uuid4().hex[:12]}", tool.name, arguments if isinstance(arguments, dict) else {})
        return Response("", [call], usage, self.name, "tool_use")

    def _cut(
        self, messages: list[Message], tools: list[ToolSpec] | None
    ) -> tuple[list[Message], list[ToolSpec] | None]:
        """The prompt made for this model (its choices): fewer recent messages,
        only the tools the turn can need (short tool descriptions when chosen)."""
        return cut_prompt(messages, tools, self.choices)

    @property
    def wants_screen(self) -> bool:
        """The turn screens this model's calls (agent/screen.py) unless the guard is off."""
        return self.guard

    def answer_in_words(
        self,
        messages: list[Message],
        *,
        system: str = "",
        tools: list[ToolSpec] | None = None,
        on_text: StreamCallback | None = None,
        max_tokens: int = 1024,
    ) -> Response:
        """An answer in words after the screen dropped every call. The tools stay in
        the prompt (so its cached prefix still serves the next turn) but the token
        that opens a tool call is forbidden."""
        _chat_waiting.set()
        with _lock:
            _chat_waiting.clear()
            llm = load(self._path)
            text, _, usage, stop = self._generate(llm, messages, system, tools, None, max_tokens, words_only=True)
            if tools and _looks_like_a_call(text, tools):  # it wrote a call without the forbidden token
                text, _, more, stop = self._generate(llm, messages, system, None, on_text, max_tokens)
                usage = _added(usage, more)
            elif on_text and text:
                on_text(text)  # held until it was known not to be a call
            return Response(text, [], usage, self.name, stop)

    def _structured(self, llm, messages, system, tool: ToolSpec, max_tokens: int) -> Response:
        """A call of ``tool`` whose arguments are held to its schema by a grammar.

        Left free, the 0.5B model wrote unreadable JSON for the memory passes
        on every attempt (evals, `--memory-model local`); constrained, the
        arguments always parse, and what they say is the model's."""
        grammar = _grammar(tool.parameters)
        text, _, usage, stop = self._generate(llm, messages, system, [tool], None, max_tokens, grammar=grammar)
        try:
            arguments = json.loads(text)
        except ValueError:
            self._failed_prompt = self._last_prompt
            reason = "the token limit" if stop == "max_tokens" else "an unreadable reply"
            raise ModelError(MALFORMED, f"{tool.name}: the arguments were cut off by {reason}") from None
        if not isinstance(arguments, dict):
            raise ModelError(MALFORMED, f"{tool.name}: the arguments are not an object")
        return Response(
            "", [ToolCall(f"call_{uuid.uuid4().hex[:12]}", tool.name, arguments)], usage, self.name, "tool_use"
        )

    def _generate(
        self,
        llm,
        messages,
        system,
        tools,
        on_text,
        max_tokens,
        *,
        words_only: bool = False,
        grammar=None,
        forced: bool = False,
    ):
        """One generation. ``grammar`` holds the output to a schema: a memory call's arguments,
        or (``forced``) a chat turn's call of a chosen tool, whose prompt keeps its saved prefix."""
        names = {t.name for t in tools} if tools else set()
        wire = wire_messages(messages, system)
        wired_tools = wire_tools(tools)
        while True:
            formatted = render(llm, wire, wired_tools)
            tokens = llm.tokenize(formatted.prompt.encode("utf-8"), add_bos=not formatted.added_special, special=True)
            if len(tokens) + max_tokens <= N_CTX:
                break
            # Too long for the context: drop the oldest turn, keep the system prompt and the request.
            first = next((i for i, m in enumerate(wire) if m["role"] != "system"), None)
            if first is None or first >= len(wire) - 1:
                raise ModelError(
                    BAD_REQUEST,
                    f"the prompt ({len(tokens)} tokens) does not fit the embedded model's {N_CTX}-token context",
                )
            del wire[first]
            while first < len(wire) - 1 and wire[first]["role"] != "user":
                del wire[first]
        # A retry of a prompt whose reply was unusable would repeat a greedy reply: sample instead.
        retry = tokens == self._failed_prompt and not words_only
        temperature = max(self.temperature, 0.7) if retry else self.temperature
        sampling = CHAT_SAMPLING if grammar is None else STRUCTURED_SAMPLING
        if self._resample and grammar is None:
            sampling, temperature = RESAMPLING, max(temperature, RESAMPLING["temperature"])
            self._resample = False
        self._last_prompt = tokens
        self._failed_prompt = None
        n_threads = threads()
        llm._ctx.set_n_threads(n_threads, n_threads)
        prefix_started = time.perf_counter()
        self.prefix_source = ""
        if (grammar is None or forced) and wire and wire[0]["role"] == "system":
            self.prefix_source = self._ensure_prefix(llm, wire[0], wired_tools, tokens)
        prefix_seconds = time.perf_counter() - prefix_started
        reused = _common_prefix(llm, tokens)
        # After a tool result the 0.5B model may echo results and calls as bare
        # JSON, line after line, to the token limit: that is neither a call nor
        # a reply, so generation stops at the first complete object and the
        # person gets the results in words instead (results_in_words).
        after_tool = bool(messages) and messages[-1].role == "tool"
        stream = _Stream(on_text)
        started = time.perf_counter()
        first_at = None
        finish = None
        try:
            for chunk in llm.create_completion(
                prompt=tokens,
                max_tokens=max_tokens,
                temperature=temperature,
                top_k=40,
                top_p=0.95,
                repeat_penalty=sampling["repeat_penalty"],
                stop=_stops(formatted.stop) if grammar is None else formatted.stop,
                stopping_criteria=formatted.stopping_criteria,
                stream=True,
                seed=None if temperature else 0,
                logit_bias=_no_tool_call_bias(llm) if words_only else None,
                grammar=grammar,
            ):
                if first_at is None:
                    first_at = time.perf_counter()
                choice = chunk["choices"][0]
                stream.feed(choice.get("text") or "")
                finish = choice.get("finish_reason") or finish
                if after_tool and _first_json_done(stream.buf):
                    break
                if grammar is not None and not forced and _chat_waiting.is_set():
                    raise ModelError(
                        CANCELLED, "memory writing stopped so the chat could answer; the pass reruns later"
                    )
        except ValueError as exc:  # llama-cpp-python reports a context overflow this way
            raise ModelError(BAD_REQUEST, f"the embedded model refused the prompt: {exc}") from None
        except RuntimeError as exc:  # a failed decode inside llama.cpp
            raise ModelError(SERVER, f"llama.cpp failed: {exc}") from None
        ended = time.perf_counter()
        raw = stream.buf
        out_tokens = len(llm.tokenize(raw.encode("utf-8"), add_bos=False, special=True)) if raw else 0
        usage = Usage(len(tokens), out_tokens, reused)
        first_at = first_at or ended
        self.last_timing = {
            "prompt_tokens": len(tokens),
            "reused_tokens": reused,
            "prompt_seconds": first_at - started,
            "output_tokens": out_tokens,
            "output_seconds": ended - first_at,
            "prefix_seconds": prefix_seconds,
            "prefix_source": self.prefix_source,
        }
        _timing(
            f"{n_threads} thread{'s' if n_threads > 1 else ''}: prompt {len(tokens)} tokens ({reused} reused) in {first_at - started:.2f}s "
            f"= {(len(tokens) - reused) / max(first_at - started, 1e-6):.0f} tok/s; "
            f"generated {out_tokens} tokens in {ended - first_at:.2f}s = {out_tokens / max(ended - first_at, 1e-6):.1f} tok/s"
        )
        try:
            text, calls = (
                parse_reply(raw, names, bare=not after_tool) if tools and not (words_only or grammar) else (raw, [])
            )
        except Malformed as exc:
            self._failed_prompt = tokens
            raise ModelError(MALFORMED, str(exc)) from None
        if after_tool and not calls and text.lstrip()[:1] in ("{", "[", "`"):
            text = results_in_words(messages)
        stream.finish(text)
        stop = {"stop": "end_turn", "length": "max_tokens"}.get(finish or "", finish)
        return text, calls, usage, stop

    def warm(self, system: str, tools: list[ToolSpec]) -> list[str]:
        """Have the prompt's fixed prefixes (the persona with each tool list the
        cut offers) saved before the turns that need them, so a newcomer's
        first request does not wait while the model reads ~2,000 tokens of
        tool definitions. Each is kept, restored from disk, or evaluated and
        saved (agent/models/prefix_cache.py); returns which, per tool list.
        A chat turn that arrives meanwhile waits for the one being evaluated."""
        from agent.models import prefix_cache

        head = {"role": "system", "content": split_system(plain_memory(system))[0]}
        sources = []
        for listed in tool_lists(tools, self.choices):
            with _lock:
                llm = load(self._path)
                wired = wire_tools(listed)
                alone = self._tokens(llm, [head], wired)
                # Where a real prompt parts from the prefix: its per-turn system message follows.
                probe = self._tokens(llm, [head, {"role": "system", "content": "Now:"}], wired)
                n = next((i for i, (a, b) in enumerate(zip(alone, probe, strict=False)) if a != b), len(alone))
                sources.append(prefix_cache.ensure(llm, alone[:n], self._model_key(llm)) if n >= 32 else "")
        return sources

    @staticmethod
    def _tokens(llm, wire: list[dict], wired_tools) -> list[int]:
        formatted = render(llm, wire, wired_tools)
        return llm.tokenize(formatted.prompt.encode("utf-8"), add_bos=not formatted.added_special, special=True)

    def _model_key(self, llm) -> str:
        from agent.models import prefix_cache

        key = getattr(llm, "_kept_model_key", None)
        if key is None:
            path, verified = (self._path, False) if self._path else model_path()
            key = llm._kept_model_key = prefix_cache.model_key(path, verified)
        return key

    def _ensure_prefix(self, llm, head: dict, wired_tools, tokens: list[int]) -> str:
        """Have the context start with the prompt's fixed prefix (persona and
        tools): kept from the last call, restored from disk, or evaluated and
        saved for the next process (agent/models/prefix_cache.py)."""
        from agent.models import prefix_cache

        alone = self._tokens(llm, [head], wired_tools)
        n = 0
        for a, b in zip(alone, tokens, strict=False):
            if a != b:
                break
            n += 1
        if n < 32 or n >= len(tokens):
            return ""
        started = time.perf_counter()
        source = prefix_cache.ensure(llm, tokens[:n], self._model_key(llm))
        if source != "kept":
            _timing(
                f"prefix of {n} tokens {'restored from disk' if source == 'disk' else 'evaluated'} "
                f"in {time.perf_counter() - started:.2f}s"
            )
        return source


# Chat: a mild repetition penalty (the 0.5B model loops on its own phrases)
# and stops where it starts writing the next turn itself. Structured calls
# keep 1.0: the schema grammar repeats keys by design.
CHAT_SAMPLING = {"repeat_penalty": 1.1}
STRUCTURED_SAMPLING = {"repeat_penalty": 1.0}
RESAMPLING = {"repeat_penalty": 1.3, "temperature": 0.8}
_CHAT_STOPS = ["<|im_start|>", "\nuser:", "\nUser:", "\nyou>", "\nperson:"]


def _stops(template_stops) -> list[str]:
    base = [template_stops] if isinstance(template_stops, str) else list(template_stops or [])
    return base + [s for s in _CHAT_STOPS if s not in base]


def cut_prompt(
    messages: list[Message], tools: list[ToolSpec] | None, choices
) -> tuple[list[Message], list[ToolSpec] | None]:
    """Fewer recent messages (from a person's message on), short tool descriptions
    (when chosen), on a question that asks nothing to be done only the tools that
    look things up, and on a statement none."""
    if choices.recent_limit and len(messages) > choices.recent_limit:
        last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=0)
        start = max(0, min(last_user, len(messages) - choices.recent_limit))
        while start < last_user and messages[start].role != "user":
            start += 1
        messages = messages[start:]
    if not tools:
        return messages, tools
    if choices.pick_tools and not any(m.role == "tool" for m in messages[-1:]):
        request = next((m.content for m in reversed(messages) if m.role == "user"), "")
        from agent.reply_check import asks_to_act
        from memory.text.acts import is_question
        from memory.text.dates import mentions_time

        if not asks_to_act(request):
            # A question may need a look-up; a statement, or a request only to be reminded of
            # the person's own doing ("remind me to call the bank"), needs no tool at all.
            tools = _reading(tools) if is_question(request) else None
        elif not offers_making(request):
            # Read by meaning as closing something already there, or as news: no tool that makes a
            # meeting, a message or a task; cancelling, completing and looking up stay offered.
            tools = _making_none(tools)
        elif not mentions_time(request):
            # The screen drops a call whose required time the request does not name: do not offer it.
            tools = _untimed(tools)
        elif deadline_only(request):
            # Every time the request names is a deadline ("due the day after tomorrow by 4pm",
            # 后天下午五点前搞定): nothing starts then, so a tool that needs a start is not offered.
            tools = _unstarted(tools)
    return messages, _shortened(tools, choices)


# What marks a time as a deadline, not a start: a preposition before it ("by", "before", "due",
# "until", "no later than"; a bare hour may stand between: "done by one tmrw afternoon") or
# 前/之前/以前/为止 after it (with a time of day between: 后天下午五点前). Closed classes of both
# languages' grammar of time. The marker governs the whole time phrase (``dates.time_phrases``):
# "by ten a.m. the day after tomorrow" is due then, its day as much as its hour.
_DEADLINE_BEFORE = re.compile(
    r"\b(?:by|before|due|until|till|no\s+later\s+than|deadline(?:\s+is)?)\s+(?:the\s+|this\s+|next\s+)?"
    rf"(?:{dates.HOUR}\s+)?$",
    re.I,
)
_DEADLINE_AFTER = re.compile(r"^[^，,。；;！!？?\n]{0,10}?(?:之前|以前|前(?![往面台天年])|为止)")


def deadline_only(request: str) -> bool:
    """Whether every day or time ``request`` names is a deadline (and it names a day)."""
    from datetime import date

    today = date.today()
    if not dates.find(request, today):
        return False  # a time of day alone ("by 5") says no day to be due on
    return all(_deadline(request, start, end) for start, end in dates.time_phrases(request, today))


def _deadline(request: str, start: int, end: int) -> bool:
    """Whether the time phrase at ``start:end`` of ``request`` is a deadline ("by", "before", 之前)."""
    return bool(_DEADLINE_BEFORE.search(request[max(0, start - 30) : start]) or _DEADLINE_AFTER.match(request[end:]))


def _shaped_kind(request: str, acting: bool) -> str | None:
    """The act a request's grammar names: a message when it tells someone something, a task when it
    hands work to someone or asks to act and every time it names is a deadline; else None."""
    from memory import request_kind
    from memory.text.acts import asks_to_assign, asks_to_tell

    if asks_to_tell(request):
        return request_kind.MESSAGE
    if asks_to_assign(request) or acting and deadline_only(request):
        return request_kind.TASK
    if acting and meets_with(request):
        return request_kind.MEETING
    return None


# "with" (跟 / 和 / 同 / 与 in Chinese) right before a person: the one the person is to be with.
_WITH_SOMEONE = re.compile(r"(?:\bwith\s+|[跟和同与])$", re.I)


def meets_with(request: str) -> bool:
    """Whether a request puts the person together with someone at a time: a person it names
    (``memory.text.people.named``) right after "with" (跟, 和, 同, 与), and a day or a time that is
    not a deadline ("Set me up with Stavros to go through the results, tomorrow at 9:30"). A task
    is done for or by someone by a time, a message goes to someone; a meeting is with them, at it.
    """
    from datetime import date

    from memory.text import people
    from memory.text.script import simplified

    text = simplified(request)
    # A reader may take a deadline's word into the phrase ("by Thursday at 10:15"): its first word counts.
    if all(
        _deadline(text, a, b) or _DEADLINE_BEFORE.match(text[a:b].split(" ", 1)[0] + " ")
        for a, b in dates.time_phrases(text, date.today())
    ):
        return False
    for name in people.named(text):
        at = text.find(name)
        if at > 0 and _WITH_SOMEONE.search(text[:at]):
            return True
    return False


def forced_kind(request: str, fitted: bool = True, kind: str | None = None) -> str | None:
    """The kind of act (``memory.request_kind``: message, task, meeting) the embedded model is made
    to write a call of for ``request``, or None when it chooses for itself. A request to tell
    someone something is a message; one that hands work to someone ("Give Marco the job of…",
    把…交给小何, 给陈晨派个任务), or asks to act and whose every time is a deadline (后天下午五点前搞定,
    "due tomorrow by 4pm"), is a task ("Remind me to send the report by Friday" has a deadline too,
    but asks for no act). The model called list_events or schedule_meeting for those shapes, or
    answered in words. A request to act in neither shape ("get the Lisbon office and me in a room
    Monday") gets, with ``fitted``, the kind the meaning model reads (``kind``, when given: that
    reading), where the model booked a meeting for most. A request the meaning model reads as
    closing something already there ("Cancel the 3pm with Marguerite", "mark the stocktake task
    done") is made to write nothing new, whatever its shape: the shapes made a message or a task of
    12 of 40 such requests on dev."""
    from agent.reply_check import asks_to_act
    from memory import request_kind

    acting = asks_to_act(request)
    found = None
    if acting and fitted:
        found = kind if kind is not None else request_kind.kind(request, kind_vectors())
        if found == request_kind.CLOSE:
            return None
    shaped = _shaped_kind(request, acting)
    if shaped is not None:
        return shaped
    return None if found == request_kind.NONE else found


def offers_making(request: str, fitted: bool = True, none: bool | None = None, kind: str | None = None) -> bool:
    """Whether the embedded model is offered the tools that make a meeting, a message or a task for
    ``request``: the grammar reads it as a request to act (``agent.reply_check.asks_to_act``) and,
    with ``fitted``, the meaning model reads it neither as closing something already there
    (``memory.request_kind.CLOSE``; ``kind``, when given: that reading) nor, where no shape names the
    act, every sentence that asks to act as asking for none (``memory.request_kind.asks_for_none``;
    ``none``, when given: that reading). The grammar reads "Book club's at Maya's place this month"
    or "Estates just rang. We're decanting to Ward 9A now" as requests; offered the acting tools on
    such news, the model booked a meeting."""
    from agent.reply_check import asks_to_act
    from memory import request_kind

    if not asks_to_act(request):
        return False
    if not fitted:
        return True
    if (kind if kind is not None else request_kind.kind(request, kind_vectors())) == request_kind.CLOSE:
        return False
    if _shaped_kind(request, True) is not None:
        return True
    return not (none if none is not None else request_kind.asks_for_none(request, kind_vectors()))


def _one_taking(tools: list[ToolSpec], kind: str) -> ToolSpec | None:
    """The one offered tool with an argument of ``kind`` ("deadline": assign_task; "moment", a
    start: schedule_meeting), or None when none or several are."""
    found = [t for t in tools if kind in t.kinds.values()]
    return found[0] if len(found) == 1 else None


def _making_none(tools: list[ToolSpec]) -> list[ToolSpec] | None:
    """The tools that make no meeting, message or task (the kinds of ``memory.request_kind``): not
    the message tool, nor one taking a start or a deadline; None when no tool is left."""
    kept = [t for t in tools if t.name != MESSAGE_TOOL and not {"moment", "deadline"} & set(t.kinds.values())]
    return kept or None


def _unstarted(tools: list[ToolSpec]) -> list[ToolSpec]:
    """The tools without a required argument of the kind "moment" (a start: schedule_meeting's)."""
    kept = [t for t in tools if not any(t.kinds.get(name) == "moment" for name in t.parameters.get("required", []))]
    return kept or tools


def _reading(tools: list[ToolSpec]) -> list[ToolSpec]:
    from agent.reply_check import READING

    return [t for t in tools if t.name.startswith(READING)]


def _untimed(tools: list[ToolSpec]) -> list[ToolSpec]:
    from agent.screen import TIME_ARGS

    return [t for t in tools if not set(t.parameters.get("required", [])) & TIME_ARGS] or tools


def _shortened(tools: list[ToolSpec] | None, choices) -> list[ToolSpec] | None:
    if choices.short_tools and tools:
        return [ToolSpec(t.name, first_sentence(t.description), _short_parameters(t.parameters)) for t in tools]
    return tools


def tool_lists(tools: list[ToolSpec], choices) -> list[list[ToolSpec]]:
    """Every tool list ``cut_prompt`` can offer for ``tools``, most used first: each is a prompt prefix of its own."""
    found = [_shortened(tools, choices) or []]
    if choices.pick_tools:
        found += [
            _shortened(_untimed(tools), choices) or [],
            _shortened(_reading(tools), choices) or [],
            _shortened(_unstarted(tools), choices) or [],
        ]
    unique: list[list[ToolSpec]] = []
    for listed in found:
        if listed and listed not in unique:
            unique.append(listed)
    return unique


def first_sentence(text: str, limit: int = 100) -> str:
    """The first sentence ("e.g." does not end one), cut at a word within ``limit``."""
    m = re.match(r"(.+?(?<!e\.g)(?<!i\.e)[.!?])(\s+[A-Z(]|$)", text.strip(), re.S)
    head = (m.group(1) if m else text.strip()).rstrip(":;, ")
    if len(head) > limit:
        head = head[:limit].rsplit(" ", 1)[0].rstrip(",;:(") + "…"
    return head


_SCHEMA_NOISE = ("title", "default", "minimum", "maximum", "additionalProperties")


def _short_parameters(schema: dict[str, Any]) -> dict[str, Any]:
    """Required parameters keep a short description; optional ones only their name and type."""
    required = set(schema.get("required", []))
    props = {}
    for name, prop in schema.get("properties", {}).items():
        prop = {k: v for k, v in prop.items() if k not in _SCHEMA_NOISE}
        if "description" in prop:
            if name in required:
                prop["description"] = first_sentence(prop["description"], 80)
            else:
                del prop["description"]
        if isinstance(prop.get("anyOf"), list):  # Optional[X]: X
            kinds = [k for k in prop["anyOf"] if k.get("type") != "null"]
            if len(kinds) == 1:
                prop = {**{k: v for k, v in prop.items() if k != "anyOf"}, **kinds[0]}
        props[name] = prop
    out = {k: v for k, v in schema.items() if k not in ("properties",) + _SCHEMA_NOISE}
    out["properties"] = props
    return out


_grammars: dict[str, Any] = {}


def _grammar(schema: dict[str, Any]):
    """llama.cpp's grammar for ``schema``, made once per schema."""
    from llama_cpp import LlamaGrammar

    key = json.dumps(schema, sort_keys=True)
    if key not in _grammars:
        _grammars[key] = LlamaGrammar.from_json_schema(key, verbose=False)
    return _grammars[key]


def _first_json_done(buf: str) -> bool:
    """Whether ``buf`` opens with a complete JSON object or list (fence allowed)."""
    head = buf.lstrip()
    if head.startswith("```"):
        head = head.split("\n", 1)[1] if "\n" in head else ""
    if head[:1] not in ("{", "["):
        return False
    try:
        json.JSONDecoder().raw_decode(head)
    except json.JSONDecodeError:
        return False
    return True


def results_in_words(messages: list[Message]) -> str:
    """This turn's tool results in kept's own sentences, for when the model wrote
    no reply. Not the raw fields: shown as a reply, those were copied by the
    model as fake confirmations in later turns."""
    from agent.reply_check import said

    last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
    calls = {c.id: c.arguments for m in messages[last_user + 1 :] for c in m.tool_calls}
    lines = []
    for m in messages[last_user + 1 :]:
        if m.role != "tool":
            continue
        try:
            data = json.loads(m.content)
        except (TypeError, ValueError):
            data = m.content
        lines.append(said(m.name or "tool", calls.get(m.tool_call_id or "", {}), data, m.is_error))
    return "\n".join(lines)


def _added(a: Usage, b: Usage) -> Usage:
    """Two generations' usage as one (llama.cpp always counts, so none is missing)."""
    return Usage(
        (a.input_tokens or 0) + (b.input_tokens or 0),
        (a.output_tokens or 0) + (b.output_tokens or 0),
        (a.cached_input_tokens or 0) + (b.cached_input_tokens or 0),
    )


def _looks_like_a_call(text: str, tools: list[ToolSpec]) -> bool:
    try:
        return bool(parse_reply(text, {t.name for t in tools})[1])
    except Malformed:
        return True


def _no_tool_call_bias(llm) -> dict[int, float] | None:
    """Forbid the token that opens a tool call, when the template has one (Qwen's <tool_call>)."""
    ids = llm.tokenize(OPEN.encode("utf-8"), add_bos=False, special=True)
    return {ids[0]: -1e9} if len(ids) == 1 else None


def _common_prefix(llm, tokens: list[int]) -> int:
    """How many prompt tokens are already in the KV cache (llama.cpp skips evaluating them)."""
    if not llm.n_tokens:
        return 0
    n = 0
    for a, b in zip(llm.input_ids[: llm.n_tokens], tokens, strict=False):
        if a != b:
            break
        n += 1
    return max(0, min(n, len(tokens) - 1))
