"""A fitted acceptance step for recall: the signals the matcher reads, per candidate fact.

``memory.recall`` decides what bears on a turn by hand-set rules (thresholds on BM25's share of
the best, idf coverage, shared words, meaning cosine and lead, the focus cosine). This module
lays out, for one turn, the candidates a fused ranking (BM25 and meaning, reciprocal-rank
fusion) puts first, together with whatever the rules accepted, and for each the same signals as
numbers (``memory.recall.candidate_rows``, named here by ``FEATURES``). A logistic
model over those rows (``Model``) can then make the final decision instead of the thresholds:
``evals/bench/fit_gate.py`` extracts the rows from the dev splits of ``kept bench gate``, fits the
model with numpy and scores it leaving one split out.

Every signal is a property of the turn, the store and the ranking, none a word list: the model
learns how much each counts, not which words matter. No signal is computed that the matcher
does not already read (one cosine per candidate from the vectors it holds, the turn's vector,
the question's focus vector).
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

TOP_N = 12  # candidates of the fused ranking read per turn

# Turn signals (the same for every candidate of the turn).
TURN_FEATURES = (
    "gate_open",
    "why_names",
    "why_person",
    "why_remind",
    "why_particular",
    "why_acts",
    "question",
    "request",
    "asks_only",
    "acting",
    "cjk",
    "past",
    "named",
    "owned",
    "focus",
    "kinds",
    "names_unknown",
    "n_terms",
    "best_bm25",
    "best_cov",
    "max_cos",
    "cos_lead",
    "n_accepted",
    "any_accepted",
    "store_rules",
)
# Candidate signals.
CANDIDATE_FEATURES = (
    "bm25",
    "bm25_share",
    "bm25_rank",
    "cov",
    "shared_words",
    "shared_frac",
    "rare_shared",
    "name",
    "name_share",
    "owned_c",
    "cos",
    "cos_gap",
    "cos_rank",
    "fused_rank",
    "focus_cos",
    "focus_word",
    "holds_kind",
    "owner_ok",
    "rule",
    "rule_request",
    "rule_acting",
    "chain",
    "chain_past",
    "long",
    "accepted",
    "acc_name",
    "acc_words",
    "acc_meaning",
    "acc_fill",
    "acc_rule",
    "acc_other",
    "kind_asked_held",
)
FEATURES = TURN_FEATURES + CANDIDATE_FEATURES


def _rank_value(r: int | None) -> float:
    """A rank as a number in (0, 1]: first 1, second 0.5, absent 0."""
    return 0.0 if r is None else 1.0 / (1 + r)


def _reason_class(reason: str) -> str:
    if reason.startswith(("name", "the person's")):
        return "acc_name"
    if reason.startswith("words"):
        return "acc_words"
    if reason.startswith("meaning"):
        return "acc_meaning"
    if reason.startswith("next best"):
        return "acc_fill"
    if reason.startswith("standing rule"):
        return "acc_rule"
    return "acc_other"


def vector(row: dict[str, float], names: Sequence[str] = FEATURES) -> list[float]:
    return [float(row.get(f, 0.0)) for f in names]


# --- the fitted decision ---------------------------------------------------------------------

WEIGHTS = Path(__file__).with_name("accept_weights.json")


_forced: list[bool] = []  # callers inside ``switched(on)``, innermost last


def enabled() -> bool:
    """Whether the fitted step decides. On unless ``KEPT_ACCEPT=0``: left one split out over the
    17 dev splits it kept the hand rules' answerable share and leaked on fewer turns (pooled,
    never-stored 0.369 -> 0.265, ordinary+general 0.162 -> 0.149), and since it decides only
    within the turns the hand rules opened (``Model.within_rules``) it leaks on no turn they do not
    (docs/recall.md, the thirteenth round)."""
    if _forced:
        return _forced[-1]
    return os.environ.get("KEPT_ACCEPT", "1").strip().lower() not in ("0", "false", "no", "off")


# The stores the weights were fitted on hold 38-52 facts, each one sentence or a few; on fewer
# facts or on pages (whole sessions kept as one document) the signals leave the range they were
# fitted over (BM25 and its idf, a name's share of the store), so the hand rules decide there.
MIN_DOCS = 20


def fits(docs: Sequence[str], page_chars: int) -> bool:
    """Whether a document list is of the kind the weights were fitted on: at least ``MIN_DOCS``
    documents, most of them no longer than ``page_chars``."""
    return len(docs) >= MIN_DOCS and sum(len(d) <= page_chars for d in docs) * 2 > len(docs)


@contextlib.contextmanager
def switched(on: bool) -> Iterator[None]:
    """The fitted step on or off for the calls inside (a benchmark comparing it with the hand rules)."""
    _forced.append(on)
    try:
        yield
    finally:
        _forced.pop()


def hand_rules_only() -> contextlib.AbstractContextManager[None]:
    return switched(False)


@dataclass(frozen=True)
class Logistic:
    """One logistic model over named signals: a signal it has no weight for counts 0."""

    bias: float
    weights: dict[str, float]

    def probability(self, row: dict[str, float]) -> float:
        z = self.bias + sum(w * row.get(f, 0.0) for f, w in self.weights.items())
        return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))


STACK = ("best_candidate", "second_candidate", "candidate_mass")  # the turn model's reading of the candidates


@dataclass(frozen=True)
class Model:
    """The fitted acceptance step. The candidate model gives each candidate a probability of being
    a fact the turn needs; the turn model, from the turn's signals and what the candidate model
    says of its candidates (``STACK``), whether the turn needs memory at all. A turn reaching
    ``turn_threshold`` gets the candidates reaching ``candidate_threshold``, best first, at most
    ``cap`` (or as many as the hand rules accepted among them, when more; never more than the
    caller's ``k``); the standing rules the rules' own path brings (``acc_rule``) come as they are, after
    them (instructions, like the SOUL: the model reading them judges which applies). With
    ``within_rules`` a turn the hand rules found nothing for stays without memory."""

    candidate: Logistic
    turn: Logistic
    turn_threshold: float
    candidate_threshold: float
    cap: int = 12
    # The step decides within the turns the hand rules opened: on a turn where they found nothing
    # it brings nothing. So on any store, whatever it was fitted on, it leaks on no turn the hand
    # rules do not, and its part is the choice of facts (pruning, extending, re-ranking) where the
    # rules found some. Without this it opened turns the rules left closed, and on dev2 (where
    # they leak on no never-stored turn) it leaked on 3 of 16; left one split out it costs 0.002
    # of the pooled answerable share (docs/recall.md, the thirteenth round).
    within_rules: bool = True

    @classmethod
    def from_json(cls, found: dict) -> Model:
        return cls(
            Logistic(float(found["candidate"]["bias"]), dict(found["candidate"]["weights"])),
            Logistic(float(found["turn"]["bias"]), dict(found["turn"]["weights"])),
            float(found["turn_threshold"]),
            float(found["candidate_threshold"]),
            int(found.get("cap", 12)),
            bool(found.get("within_rules", False)),
        )

    def choose(
        self, turn: dict[str, float], candidates: Sequence[tuple[int, dict[str, float]]], k: int
    ) -> list[tuple[int, float]]:
        """The candidates accepted, as (index, probability): the fitted ones best first, at most
        ``min(k, cap)``, then the standing rules kept (probability 1)."""
        scored = [(i, self.candidate.probability(row)) for i, row in candidates]
        probs = sorted((p for _, p in scored), reverse=True)
        reading = dict(turn)
        reading.update(
            {
                STACK[0]: probs[0] if probs else 0.0,
                STACK[1]: probs[1] if len(probs) > 1 else 0.0,
                STACK[2]: sum(probs),
            }
        )
        fixed = [i for i, row in candidates if row.get("acc_rule")]
        closed = self.within_rules and not turn.get("any_accepted")
        if closed or not scored or self.turn.probability(reading) < self.turn_threshold:
            return [(i, 1.0) for i in fixed]
        free = [(i, p, row) for (i, p), (_, row) in zip(scored, candidates, strict=True) if not row.get("acc_rule")]
        passing = [(i, p, row) for i, p, row in free if p >= self.candidate_threshold]
        # The cap is a budget for the model's own choice, not a cut below what both judges accept:
        # a candidate the hand rules found (``accepted``) and the model passes bears on the turn by
        # both readings, and a turn with more of them than the cap (a long history, many lines on
        # one topic) gets them all, up to the caller's ``k``.
        room = max(self.cap, sum(1 for _, _, row in passing if row.get("accepted")))
        chosen = sorted([(i, p) for i, p, _ in passing], key=lambda ip: -ip[1])[: min(k, room)]
        return chosen + [(i, 1.0) for i in fixed]


@functools.cache
def load(variant: str, path: Path = WEIGHTS) -> Model | None:
    """The fitted model for ``variant`` ("meaning": with the meaning model, "words": without it),
    or None when no weights are shipped for it."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    part = found.get(variant)
    return Model.from_json(part) if part else None
