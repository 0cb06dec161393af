"""The evaluated persona-and-tools prefix, saved to disk for the next process.

Every `kept ask` is a new process, and the fixed prefix of the embedded
model's prompt (persona and tool definitions, about a thousand tokens) used
to be evaluated afresh by each one. After one process has evaluated it, its
llama.cpp state (the KV cache of exactly those tokens) is written to
``<kept home>/cache/prefix/<model>-<prefix>.kv``; a later process loads it
and llama.cpp's prefix match skips those tokens.

The file name is the model file's hash and the prefix tokens' hash, so a
changed persona, tool list or model file never loads a stale state. A file
that cannot be read is ignored (and replaced); the cache is only ever a
speed-up.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import struct
from pathlib import Path

MAGIC = b"KEPTKV1\n"
ENV_OFF = "KEPT_PREFIX_CACHE"  # "0" turns the disk cache off (benchmarks measure both)
ENV_DIR = "KEPT_PREFIX_DIR"  # another folder for the saved states (kept bench local uses a fresh one)


def enabled() -> bool:
    return os.environ.get(ENV_OFF, "1").strip().lower() not in ("0", "false", "off", "no")


def cache_dir() -> Path:
    if os.environ.get(ENV_DIR):
        return Path(os.environ[ENV_DIR])
    from agent import config

    return config.home() / "cache" / "prefix"


def model_key(path: str, verified: bool) -> str:
    """The model file's sha256 when it was verified (known), else its path, size and mtime."""
    if verified:
        from agent.models.model_file import SHA256

        return SHA256[:16]
    st = os.stat(path)
    return hashlib.sha256(f"{os.path.abspath(path)}|{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()[:16]


def prefix_key(tokens: list[int]) -> str:
    return hashlib.sha256(struct.pack(f"<{len(tokens)}i", *tokens)).hexdigest()[:16]


def file_for(model: str, tokens: list[int]) -> Path:
    return cache_dir() / f"{model}-{prefix_key(tokens)}.kv"


def save(llm, tokens: list[int], path: Path) -> int:
    """Write the state of a context holding exactly ``tokens``; returns the bytes written."""
    import llama_cpp

    size = llama_cpp.llama_state_get_size(llm._ctx.ctx)
    buf = (ctypes.c_uint8 * int(size))()
    n = int(llama_cpp.llama_state_get_data(llm._ctx.ctx, buf, size))
    header = MAGIC + struct.pack("<ii", len(tokens), n)
    data = header + struct.pack(f"<{len(tokens)}i", *tokens) + bytes(buf)[:n]
    from memory.files import write_private

    path.parent.mkdir(parents=True, exist_ok=True)
    write_private(path, data)
    return len(data)


def load(llm, tokens: list[int], path: Path) -> bool:
    """Restore a saved prefix into ``llm``; False (and nothing changed) when the file does not fit."""
    import llama_cpp

    try:
        data = path.read_bytes()
    except OSError:
        return False
    if not data.startswith(MAGIC):
        return False
    try:
        n_tok, n_bytes = struct.unpack_from("<ii", data, len(MAGIC))
        at = len(MAGIC) + 8
        saved = list(struct.unpack_from(f"<{n_tok}i", data, at))
        at += 4 * n_tok
    except struct.error:
        return False
    if saved != tokens or len(data) - at != n_bytes:
        return False
    buf = (ctypes.c_uint8 * n_bytes).from_buffer_copy(data, at)
    if int(llama_cpp.llama_state_set_data(llm._ctx.ctx, buf, n_bytes)) != n_bytes:
        llm.reset()
        return False
    llm.input_ids[:n_tok] = tokens
    llm.n_tokens = n_tok
    if hasattr(llm, "_requires_eval"):
        llm._requires_eval = True
    return True


def ensure(llm, tokens: list[int], model: str) -> str:
    """Make the context start with ``tokens``: already there, loaded from disk, or
    evaluated now and saved. Returns which ("kept", "disk", "evaluated")."""
    held = int(llm.n_tokens)
    if held >= len(tokens) and list(llm.input_ids[: len(tokens)]) == tokens:
        return "kept"
    path = file_for(model, tokens)
    if enabled() and path.exists() and load(llm, tokens, path):
        return "disk"
    llm.reset()
    llm.eval(tokens)
    if enabled():
        try:
            save(llm, tokens, path)
        except OSError:
            pass  # a read-only home: the next process evaluates the prefix itself
    return "evaluated"
