"""What kind of act a request asks for (a meeting, a message, a task, closing what is there), learned from labelled requests.

The readings of ``memory.text.acts`` say a request tells someone something (a message) or hands
work over (a task) when its grammar shows it; a request in neither shape was left to the embedded
model, which mostly booked a meeting. This module decides those by meaning: a softmax over the
meaning model's vector of the request (``memory.meaning``, all-MiniLM-L6-v2; a Chinese request
read in its CC-CEDICT English, as recall reads Chinese facts), fitted on requests labelled with
the tool they ask for, and on the statements, questions and requests for words beside them (no
act), each written by someone who read no code (the acts dev splits and the dev first sessions:
``python -m evals.bench.fit_kind fit``). It learns what meetings, messages and tasks are about (a
time to meet and someone to meet, words for someone to hear, work and who does it), and what
telling news is, not a list of phrasings, so it holds for wordings no pattern has seen. A line it
reads as asking for no act gets no kind: the grammar's reading of a request is not enough for kept
to make the model act on what reads as news. A request to cancel or complete something already there
(``CLOSE``) makes nothing new: the embedded model is offered no tool that would.

A line's vector comes from the meaning model, or, where the caller gives ``Vectors``
(``agent.models.local.kind_vectors``: the meaning model's vector beside the embedded chat model's
own mean-pooled one), from those, read by weights fitted on them (``request_kind_weights_embedded.json``,
which names the model file's sha256; another file's vectors fall back to the meaning model alone).
The chat model reads Chinese, Turkish or Tagalog as written, where MiniLM reads English. On the
held-out files (fitted on dev, read once) the model was made to write a call for 17 of 819 lines
asking for no act where the meaning model alone made it for 25, was offered the making tools for 61
where it was for 73, and 232 of 326 requests' tools were read right against 230 (docs/reading.md,
the twenty-ninth round).

Without the meaning model (``KEPT_MEANING=0``, or the package not installed) and without the chat
model's vectors, or with ``KEPT_REQUEST_KIND=0``, it says nothing, and the request is left to the
model as before.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory import meaning
from memory.text import bilingual
from memory.text.script import simplified
from memory.text.words import has_cjk

MEETING, MESSAGE, TASK, CLOSE, NONE = "meeting", "message", "task", "close", "none"
# CLOSE: cancel or complete something already there ("scrap tomorrow's standup", "tick off the
# stocktake"); NONE: asks for no act (a statement, a question, a draft, a look-up).
KINDS = (MEETING, MESSAGE, TASK, CLOSE, NONE)
WEIGHTS = Path(__file__).with_name("request_kind_weights.json")
EMBEDDED_WEIGHTS = Path(__file__).with_name("request_kind_weights_embedded.json")


@dataclass(frozen=True)
class Vectors:
    """Another model's sentence vectors to read kinds by: ``embed`` gives a line's vector, ``model``
    names the model file (its sha256) so that only weights fitted on its vectors read them."""

    model: str
    embed: Callable[[str], Any]


def reading(request: str) -> str:
    """The text the meaning model reads for a request: its English, or a Chinese one's dictionary English."""
    text = simplified(request)
    return bilingual.english_reading(text) if has_cjk(text) else text


@functools.cache
def _weights(path: Path = WEIGHTS, model: str | None = None) -> tuple | None:
    """(weights, bias) from ``path``, or None when missing, for other kinds or (``model`` given) for
    another model file's vectors."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    import numpy as np

    if tuple(found.get("kinds", ())) != KINDS or found.get("model") != model:
        return None
    return np.asarray(found["weights"], dtype=np.float32), np.asarray(found["bias"], dtype=np.float32)


def _fitted(vectors: Vectors | None = None) -> tuple | None:
    """(weights, bias, the vectors they read) when the request kind is on: the shipped weights for
    ``vectors`` when weights fitted on them ship, else the meaning model's (vectors None) when it is
    there; None otherwise."""
    if os.environ.get("KEPT_REQUEST_KIND", "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    if vectors is not None:
        found = _weights(EMBEDDED_WEIGHTS, vectors.model)
        if found is not None:
            return (*found, vectors)
    if not meaning.available():
        return None
    found = _weights()
    return None if found is None else (*found, None)


@functools.lru_cache(maxsize=64)
def _vector(line: str, vectors: Vectors | None = None):
    """The vector of ``line``: by ``vectors`` when given, else the meaning vector of its reading. One
    turn asks it of the same line up to three times (what the model is offered, the news reading of
    each acting sentence, what it is made to write), and an embedding costs 8-20 ms on one core
    (the chat model's, 50-150 ms)."""
    return vectors.embed(line) if vectors is not None else meaning.embed_one(reading(line))


def _softmax(z) -> dict[str, float]:
    import numpy as np

    p = np.exp(z - z.max())
    p /= p.sum()
    return {k: float(v) for k, v in zip(KINDS, p, strict=True)}


def probabilities(request: str, vectors: Vectors | None = None) -> dict[str, float] | None:
    """Each kind's probability for ``request``, or None without the vectors or the weights."""
    fitted = _fitted(vectors)
    if fitted is None:
        return None
    weights, bias, read_by = fitted
    return _softmax(_vector(request, read_by) @ weights + bias)


def kind(request: str, vectors: Vectors | None = None) -> str | None:
    """The kind of act a request asks for (``MEETING``, ``MESSAGE``, ``TASK`` or ``CLOSE``), by meaning; None
    when by meaning it asks for none (it reads like a statement, a question or a request for words:
    the fit saw those too), or without the vectors."""
    found = probabilities(request, vectors)
    return chosen(found) if found else None


MAJORITY = 0.5  # a kind is read only when it is likelier than every other reading together


def chosen(found: dict[str, float]) -> str | None:
    """The act a line's probabilities read (None: no act, or no kind likelier than the rest
    together). Kept makes the model write a call on this reading, so a doubtful one is left to the
    model: left one file out on dev, the majority rule made the model act on 6 of 757 lines asking
    for no act where the likeliest kind alone made it act on 17, and got 222 of 238 requests' tools
    right against 215."""
    best = max(found, key=lambda k: found[k])
    return None if best == NONE or found[best] < MAJORITY else best


def acting_sentences(request: str) -> list[str]:
    """The sentences of ``request`` that ask to act (``memory.text.acts.asks_to_act``), or the whole
    request when none does alone or it is one sentence: in a long message the vector of the whole is
    mostly its news ("Book a call with Rafael … tomorrow at half past seven. Block C's wiring…")."""
    from memory.text.acts import asks_to_act, sentences

    parts = [request[a:b] for a, b in sentences(request)]
    acting = [p for p in parts if asks_to_act(p)]
    return acting if acting and len(parts) > 1 else [request]


def each_sentence(
    request: str, fitted: tuple | None = None, vectors: Vectors | None = None
) -> list[dict[str, float]] | None:
    """The probabilities of each of ``request``'s acting sentences (``acting_sentences``), by
    ``fitted`` ((weights, bias), e.g. one fold's, for ``vectors``) or the shipped weights; None
    without them."""
    if fitted is not None:
        weights, bias = fitted
    else:
        shipped = _fitted(vectors)
        if shipped is None:
            return None
        weights, bias, vectors = shipped
    return [_softmax(_vector(s, vectors) @ weights + bias) for s in acting_sentences(request)]


def none_asked(found: list[dict[str, float]] | None) -> bool:
    """Whether every acting sentence reads, by a majority, as asking for no act (news, a question, a
    request for words): then the grammar's reading of a request is not taken. Left one file out on dev,
    this kept the acting tools from 11 of the 30 lines asking for no act that the grammar read as
    asking to act (in no shape that names the act), and from 1 of the 83 such requests for a tool;
    a threshold of 0.6 or 0.7 (not taken: no reason but the figure) did 8 / 0 and 5 / 0 (four kinds;
    with the closing kind beside them, docs/reading.md's twenty-third round)."""
    if not found:
        return False
    return all(f[NONE] >= MAJORITY for f in found)


def asks_for_none(request: str, vectors: Vectors | None = None) -> bool:
    """``none_asked`` for ``request``'s acting sentences by the shipped weights; False without them."""
    return none_asked(each_sentence(request, vectors=vectors))
