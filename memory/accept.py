"""A fitted acceptance step for recall: the signals the matcher reads, per candidate fact.

``memory.recall`` decides what bears on a turn by hand-set rules (thresholds on BM25's share of
the best, idf coverage, shared words, meaning cosine and lead, the focus cosine). This module
lays out, for one turn, the candidates a fused ranking (BM25 and meaning, reciprocal-rank
fusion) puts first, together with whatever the rules accepted, and for each the same signals as
numbers: one row per candidate (``candidate_rows``) and one per turn (``turn_row``). A logistic
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
from typing import TYPE_CHECKING

from memory import asked, meaning
from memory.text import bilingual, has_cjk

if TYPE_CHECKING:
    from memory.recall import Match, _DocsIndex

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


def rows(
    docs: _DocsIndex, query: str, accepted: Sequence[Match], past: bool = False, top_n: int = TOP_N
) -> tuple[dict[str, float], list[tuple[int, dict[str, float]]]]:
    """(the turn's signals, [(candidate index, its signals incl. the turn's)]) for ``query``.

    Candidates: the first ``top_n`` of the fused ranking (BM25's alone without the meaning model)
    and every document the rules accepted (``accepted``: ``_DocsIndex.match``'s output)."""
    from memory import recall as r
    from memory.text.acts import focus as _focus
    from memory.text.acts import is_question, is_request

    text = r.unquoted(query)
    terms = r._terms(text)
    n = len(docs.docs)
    turn: dict[str, float] = dict.fromkeys(TURN_FEATURES, 0.0)
    if not terms or not n:
        return turn, []
    why, named = docs.gate(text, terms)
    acting = docs._acts_in_world(query, text, terms, named)
    if why is None and acting:
        why = "asks to act"
    question, request = is_question(text), is_request(text)
    asked_focus = _focus(text) if question else None
    wanted = asked.kinds(text) if question else frozenset()
    judge = docs._meaning()
    scores = docs.index.scores(terms)
    by_bm25 = sorted(scores, key=lambda i: (-scores[i], -i))
    bm25_rank = {i: k for k, i in enumerate(by_bm25)}
    best = scores[by_bm25[0]] if by_bm25 else 0.0
    sims = None
    focus_sims = None
    if judge is not None:
        reading = bilingual.english_reading(text) if has_cjk(text) else text
        sims = judge.vectors @ meaning.embed_one(reading)
        if asked_focus:
            f_reading = " ".join(bilingual.glosses(asked_focus)) if has_cjk(asked_focus) else asked_focus
            if f_reading:
                focus_sims = judge.vectors @ meaning.embed_one(f_reading)
    cos_order: list[int] = [int(j) for j in sims.argsort()[::-1]] if sims is not None else []
    cos_rank = {i: k for k, i in enumerate(cos_order)}
    fused: dict[int, float] = {}
    for k, i in enumerate(by_bm25):
        fused[i] = 1 / (r.RRF_K + k + 1)
    for k, i in enumerate(cos_order):
        fused[i] = fused.get(i, 0.0) + 1 / (r.RRF_K + k + 1)
    fused_order = sorted(fused, key=lambda i: (-fused[i], -i))
    fused_rank = {i: k for k, i in enumerate(fused_order)}
    acc = {m.index: m for m in accepted}
    cands = list(dict.fromkeys(fused_order[:top_n] + [m.index for m in accepted]))
    # The turn's words and their idf mass, as the word rule reads them.
    idf = {t: docs.index.idf(t) for t in terms}
    total = sum(w for t, w in idf.items() if t in docs.index.postings)
    turn_words = r._words(text)
    n_words = max(1, len(turn_words))
    rare = max(2, r.RARE_SHARE * n)
    limit = max(2, r.NAME_MAX_SHARE * n)
    owned = docs._owned_anchors(text, limit)
    owned_docs = {i for held in owned.values() for i in held}
    owner = {t for w in asked.owners(text) for t in r._terms(w) if t in named} if question else set()
    focus_terms = set(r._terms(asked_focus)) if asked_focus else set()
    rules = set(docs.rules)
    covs: dict[int, float] = {}
    for i in cands:
        shared = [t for t in terms if t in docs.term_sets[i]]
        covs[i] = (sum(idf[t] for t in shared) / total) if total else 0.0
    max_cos = float(sims[cos_order[0]]) if sims is not None and cos_order else 0.0
    lead = float(sims[cos_order[0]] - sims[cos_order[1]]) if sims is not None and len(cos_order) > 1 else 0.0
    turn.update(
        {
            "gate_open": float(why is not None),
            "why_names": float(bool(why and why.startswith("names"))),
            "why_person": float(why == "speaks of the person"),
            "why_remind": float(why == "asks to be reminded"),
            "why_particular": float(why == "asks about a particular thing"),
            "why_acts": float(why == "asks to act"),
            "question": float(question),
            "request": float(request),
            "asks_only": float(question and not request),
            "acting": float(acting),
            "cjk": float(has_cjk(text)),
            "past": float(past),
            "named": min(len(named), 3) / 3,
            "owned": float(bool(owned_docs)),
            "focus": float(bool(asked_focus)),
            "kinds": float(bool(wanted)),
            "names_unknown": float(judge.names_unknown(text)) if judge is not None else 0.0,
            "n_terms": math.log1p(len(terms)),
            "best_bm25": math.log1p(best),
            "best_cov": max(covs.values(), default=0.0),
            "max_cos": max_cos,
            "cos_lead": lead,
            "n_accepted": math.log1p(len(accepted)),
            "any_accepted": float(bool(accepted)),
            "store_rules": float(bool(rules)),
        }
    )
    out: list[tuple[int, dict[str, float]]] = []
    for i in cands:
        held = docs.term_sets[i]
        score = scores.get(i, 0.0)
        n_shared = sum(1 for w in turn_words if w & held)
        rare_shared = sum(1 for w in turn_words if any(0 < docs.index.df(t) <= rare for t in w & held))
        names_held = [t for t in named if t in held]
        share = min((len(docs.names[t]) / n for t in names_held), default=1.0)
        cos = float(sims[i]) if sims is not None else 0.0
        is_rule = i in rules
        chain = docs._texts[i] != docs.docs[i]
        m = acc.get(i)
        row = dict(turn)
        row.update(dict.fromkeys(CANDIDATE_FEATURES, 0.0))
        row.update(
            {
                "bm25": math.log1p(score),
                "bm25_share": score / best if best else 0.0,
                "bm25_rank": _rank_value(bm25_rank.get(i)),
                "cov": covs[i],
                "shared_words": min(n_shared, 4) / 4,
                "shared_frac": n_shared / n_words,
                "rare_shared": min(rare_shared, 3) / 3,
                "name": float(bool(names_held)),
                "name_share": 1.0 - share if names_held else 0.0,
                "owned_c": float(i in owned_docs),
                "cos": cos,
                "cos_gap": cos - max_cos,
                "cos_rank": _rank_value(cos_rank.get(i)),
                "fused_rank": _rank_value(fused_rank.get(i)),
                "focus_cos": float(focus_sims[i]) if focus_sims is not None else 0.0,
                "focus_word": float(bool(focus_terms & held)),
                "holds_kind": float(asked.holds_a_kind(wanted, docs.docs[i])),
                "owner_ok": float(not owner or bool(owner & held)),
                "rule": float(is_rule),
                "rule_request": float(is_rule and request),
                "rule_acting": float(is_rule and acting),
                "chain": float(chain),
                "chain_past": float(chain and past),
                "long": float(len(docs.docs[i]) > r.FACT_CHARS),
                "accepted": float(m is not None),
                "kind_asked_held": float(bool(wanted) and asked.holds_a_kind(wanted, docs.docs[i])),
            }
        )
        if m is not None:
            row[_reason_class(m.reason)] = 1.0
        out.append((i, row))
    return turn, out


def vector(row: dict[str, float], names: Sequence[str] = FEATURES) -> list[float]:
    return [float(row.get(f, 0.0)) for f in names]


# --- the fitted decision ---------------------------------------------------------------------

WEIGHTS = Path(__file__).with_name("accept_weights.json")


_forced: list[bool] = []  # callers inside ``switched(on)``, innermost last


def enabled() -> bool:
    """Whether the fitted step decides. Off unless ``KEPT_ACCEPT=1``: it embeds every turn (the
    cosines are among its signals), which takes recall's p50 over 500 facts from about 0.6 ms to
    about 30 ms on this machine (``kept bench scale``), past the 5 ms recall must keep to."""
    if _forced:
        return _forced[-1]
    return os.environ.get("KEPT_ACCEPT", "0").strip().lower() in ("1", "true", "yes", "on")


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
    ``cap``; the standing rules the rules' own path brings (``acc_rule``) come as they are, after
    them (instructions, like the SOUL: the model reading them judges which applies)."""

    candidate: Logistic
    turn: Logistic
    turn_threshold: float
    candidate_threshold: float
    cap: int = 12

    @classmethod
    def from_json(cls, found: dict) -> Model:
        return cls(
            Logistic(float(found["candidate"]["bias"]), dict(found["candidate"]["weights"])),
            Logistic(float(found["turn"]["bias"]), dict(found["turn"]["weights"])),
            float(found["turn_threshold"]),
            float(found["candidate_threshold"]),
            int(found.get("cap", 12)),
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
        if not scored or self.turn.probability(reading) < self.turn_threshold:
            return [(i, 1.0) for i in fixed]
        free = [(i, p) for (i, p), (_, row) in zip(scored, candidates, strict=True) if not row.get("acc_rule")]
        chosen = sorted([(i, p) for i, p in free if p >= self.candidate_threshold], key=lambda ip: -ip[1])[
            : min(k, self.cap)
        ]
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
