"""Recall for the prompt: BM25 over the fact log, and a gate that says "nothing".

Ranking is BM25 over ``memory.text.tokens``. The index is an inverted list of
precomputed term weights, so a query touches only the facts that share a
word with it; the index of the store's facts is cached and rebuilt only when
the facts change (a cheap fingerprint query decides).

The relevance gate keeps a fact only when it shares at least two distinct
words with the query (all of them, for a one-word query) and holds at least a
fifth of the query's idf mass (its rare, telling words). A turn that needs no
memory ("Bump the retry count to 3.", "I'm heading out for lunch.") shares a
word with some fact, rarely two; a question the store answers shares its
subject and its detail. Chosen by measurement on tests/data/recall_dev.jsonl
(`kept bench gate` prints the trade-off table): a plain score floor works on
one store size but not another, since idf grows with the number of facts.

A turn that asks kept to act ("Schedule a call with my manager tomorrow at
10am", "Tell the Harbor owner the launch date") names what it needs less fully
than a question: most of its words are the instruction (schedule, call,
tomorrow, 10am), which no fact holds. In such a task turn the instruction
words count only for the facts that hold them; a fact holding a word the
request names (capitalised inside the sentence, or after my/our: "Harbor",
"manager") is kept on that word alone, when at most a tenth of the facts hold
it (at most ``MAX_ANCHORED`` such facts); and the person's own standing rules
about the same kind of action ("I don't take meetings before 10:00" for a
call, "anything I send outside Northwind also goes to Emil" for a message)
come along, at most ``MAX_RULES``. Questions are gated as before.
Measured on the same dev set, which holds task-shaped turns that need no
memory as well (`kept bench gate`).

Superseded facts are never recalled as current. A question about what
changed, or what something was before, also gets them, marked "superseded".
"""

from __future__ import annotations

import math
import re
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from memory.text import MONTHS, has_cjk, query_terms, tokens
from memory.text.acts import is_request
from memory.text.dates import undated

# BM25 parameters: the usual defaults, not tuned on the benchmarks (their figures are in the README).
K1 = 1.2
B = 0.75

# The relevance gate (chosen on tests/data/recall_dev.jsonl; see `kept bench gate`).
MIN_COVERAGE = 0.2  # a kept fact holds at least this share of the query's idf mass
MIN_RELATIVE = 0.3  # and scores at least this share of the best fact's score
MIN_TERMS = 2  # and shares at least this many distinct words with the query (all, if it has fewer)
# Task turns (see tasks()): an anchor is a word held by at most this share of the facts (or by 2)...
ANCHOR_MAX_SHARE = 0.1
MAX_ANCHORED = 4  # ...and at most this many facts come in on their anchor alone
MAX_RULES = 3  # standing rules of the person about the task's kind of action


# --- task turns -----------------------------------------------------------------

# Verbs that ask kept to act in the person's world, by the kind of action.
# "Let X know" is a message too; a sentence may open with "please", "can you"...
_SEND, _MEET, _DO = "send", "meet", "do"
TASK_VERBS = {
    **dict.fromkeys("send tell message email mail text ping notify forward reply cc dm".split(), _SEND),
    **dict.fromkeys("schedule reschedule book arrange invite call put add create assign remind order buy pay file "
                    "submit set cancel move share raise".split(), _DO),
}
_LEAD = r"(?:(?:please|pls|ok(?:ay)?|so|now|then|also|and|hey|quickly)[,\s]+)*(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
_SENTENCE_START = re.compile(r"(?:^|[.!?;\n]\s*)" + _LEAD + r"([a-z]+)(?:\s+([a-z]+))?", re.IGNORECASE)
_LET_KNOW = re.compile(r"\blet\s+.{1,80}?\bknow\b", re.IGNORECASE)
# Words that say what kind of action a fact or request is about.
_KIND_WORDS = {
    _SEND: "send sent sending email emails emailed mail message messages messaged cc copy copies copied reply replies "
           "forward write writes outside tell",
    _MEET: "meeting meetings meet meets call calls calendar invite invites sync syncs "
           "appointment appointments 1:1 one-on-one standup",
}
# A standing rule or preference of the person's own (not "Jonas prefers Slack").
_RULE_CUE = re.compile(
    r"\b(always|never|don't|do not|doesn't|won't|rule|prefers?|preferred|whenever|every time|anything|anyone|"
    r"everything|avoid\w*|must)\b|规矩|规定|总是|从不|从来不|永远|凡是|一律|不要|之前不|以后不|偏好",
    re.IGNORECASE,
)
_PERSONAL = re.compile(r"\b(i|me|my|mine|the person|the person's)\b|^rule\b|我|^规矩|^规定", re.IGNORECASE)


def tasks(query: str) -> set[str]:
    """The kinds of action a turn asks for (empty when it asks for none).

    A sentence that opens (after "please", "can you"...) with an action verb
    is a task: "send" when it sends something to someone, else "do"; either
    is also "meet" when it is about a meeting or call ("Book a call with...").
    "Send me the link" sends nothing out. Whether the turn asks kept to act at
    all is memory.text.acts' call ("Did I send…?" asks; "How about booking…?" acts)."""
    if not is_request(query):
        return set()
    kinds = set()
    for m in _SENTENCE_START.finditer(query):
        verb, nxt = m.group(1).lower(), (m.group(2) or "").lower()
        kind = TASK_VERBS.get(verb)
        if kind == _SEND and nxt == "me":
            kind = _DO
        if kind:
            kinds.add(kind)
    if _LET_KNOW.search(query):
        kinds.add(_SEND)
    if has_cjk(query):
        if _CN_SEND.search(query):
            kinds.add(_SEND)
        elif _CN_DO.search(query):
            kinds.add(_DO)
    if kinds:
        kinds |= _kinds_of(_SEND_ME.sub(" ", query)) & ({_MEET} if _SEND not in kinds else {_MEET, _SEND})
    return kinds


# Chinese requests: "告诉 X ...", "跟 X 说一下", "给 X 发...", "把 X 加到日历", "加一个 task", "约一个 call".
_CN_LEAD = r"(?:^|[。！？；\n]\s*)(?:请|帮我|麻烦你?|你)?\s*"
_CN_SEND = re.compile(_CN_LEAD + r"(?:告诉|通知|回复|转发|抄送|发(?:给|消息|邮件|个))|跟.{1,60}?说|给.{1,60}?发(?:个|一|消息|邮件)")
_CN_DO = re.compile(_CN_LEAD + r"(?:把|加|添加|安排|预约|订|预订|提醒|创建|新建|分配|取消|买|提交)|约(?:一个|个|一下)|加到|安排")
_SEND_ME = re.compile(r"\b(send|email|mail|message|text|forward)\s+me\b", re.IGNORECASE)
# Words a task names: capitalised inside a sentence ("the Harbor owner", "Message
# Felix") or right after a possessive ("my manager", "our vendor contact").
_NAMED = re.compile(r"(?<![.!?]\s)(?<!^)(?<![.!?])\b([A-Z][\w'’-]*)|\b(?:my|our|the person's)\s+([\w-]+)")


def named_terms(query: str) -> set[str]:
    """The terms of the words a request names (see ``_NAMED``)."""
    words = []
    for m in _NAMED.finditer(query.strip()):
        words.extend(w for w in m.groups() if w)
    return set(tokens(" ".join(words)))


def _kinds_of(text: str) -> set[str]:
    words = set(re.findall(r"[a-z0-9:'-]+", text.lower()))
    kinds = {kind for kind, vocab in _KIND_WORDS_SETS.items() if words & vocab}
    if has_cjk(text):
        kinds |= {kind for kind, pattern in _CN_KIND_WORDS.items() if pattern.search(text)}
    return kinds


_KIND_WORDS_SETS = {kind: frozenset(v.split()) for kind, v in _KIND_WORDS.items()}
# The same in Chinese (matched as substrings).
_CN_KIND_WORDS = {
    _SEND: re.compile("发给|发一份|消息|邮件|抄送|告诉|通知|回复|转发"),
    _MEET: re.compile("开会|会议|日历|(?<!大)约"),
}


def is_personal_rule(text: str) -> bool:
    return _RULE_CUE.search(text) is not None and _PERSONAL.search(text) is not None


_TEMPORAL = (
    "today tomorrow tonight yesterday week weekend weekly month morning afternoon evening noon midnight "
    "minute minutes hour hours day days next this last asap later soon now monday tuesday wednesday "
    "thursday friday saturday sunday task tasks todo reminder calendar "
    "告诉 通知 回复 转发 抄送 发给 说一下 把 加到 添加 安排 预约 约一个 提醒 创建 分配 取消 日历 日期 "
    "今天 明天 后天 下周 本周 上午 下午 晚上 分钟 小时"
)
# The instruction part of a task: its verbs and when. Not what it is about.
INSTRUCTION_TERMS = frozenset(tokens(" ".join(TASK_VERBS) + " " + _TEMPORAL + " " + " ".join(MONTHS)))


def _is_instruction(term: str) -> bool:
    """A verb of the request, or when: a weekday, a date, a clock time, a number."""
    return term in INSTRUCTION_TERMS or term[:1].isdigit()


@dataclass
class Recalled:
    text: str  # already dated: "2026-10-07: ..."
    fact_id: int | None
    status: str  # active, superseded, archived
    score: float


class Index:
    """BM25 over tokenised documents, with each posting's weight precomputed."""

    def __init__(self, docs_tokens: Sequence[Sequence[str]], k1: float = K1, b: float = B):
        self.n = len(docs_tokens)
        lengths = [len(t) for t in docs_tokens]
        avgdl = (sum(lengths) / self.n) if self.n else 1.0
        avgdl = avgdl or 1.0
        counts: dict[str, dict[int, int]] = {}
        for i, terms in enumerate(docs_tokens):
            for t in terms:
                row = counts.get(t)
                if row is None:
                    counts[t] = {i: 1}
                else:
                    row[i] = row.get(i, 0) + 1
        norms = [k1 * (1 - b + b * dl / avgdl) for dl in lengths]
        self.postings: dict[str, list[tuple[int, float]]] = {
            t: [(i, tf * (k1 + 1) / (tf + norms[i])) for i, tf in row.items()] for t, row in counts.items()
        }
        self.idf_unseen = math.log(1 + (self.n + 0.5) / 0.5)

    def idf(self, term: str) -> float:
        posting = self.postings.get(term)
        if posting is None:
            return self.idf_unseen
        df = len(posting)
        return math.log(1 + (self.n - df + 0.5) / (df + 0.5))

    def scores(self, terms: Sequence[str]) -> dict[int, float]:
        """Score of every document that shares a term with the (distinct) ``terms``."""
        out: dict[int, float] = {}
        for t in terms:
            posting = self.postings.get(t)
            if not posting:
                continue
            w = self.idf(t)
            for i, tfw in posting:
                out[i] = out.get(i, 0.0) + w * tfw
        return out

    def top(self, terms: Sequence[str], k: int) -> list[tuple[int, float]]:
        scored = self.scores(terms)
        # Best first; on a tie the later document (the newer fact) wins.
        best = sorted(scored.items(), key=lambda p: (-p[1], -p[0]))
        return best[:k]

    def coverage(self, terms: Sequence[str], doc: int) -> float:
        """Share of the query's idf mass that ``doc`` contains (0..1)."""
        total = matched = 0.0
        for t in terms:
            w = self.idf(t)
            total += w
            posting = self.postings.get(t)
            if posting and any(i == doc for i, _ in posting):
                matched += w
        return matched / total if total else 0.0


class _DocsIndex:
    """An index with the per-document term sets the gate needs."""

    def __init__(self, docs: Sequence[str], k1: float = K1, b: float = B):
        self.docs = list(docs)
        toks = [tokens(d) for d in self.docs]
        self.index = Index(toks, k1, b)
        self.term_sets = [frozenset(t) for t in toks]
        self._rules: list[tuple[int, set[str]]] | None = None

    def rank(self, query: str, k: int) -> list[tuple[int, float]]:
        return self.index.top(query_terms(query), k)

    def rules(self) -> list[tuple[int, set[str]]]:
        """(document, kinds of action) of each standing rule of the person's about an action."""
        if self._rules is None:
            found = ((i, _kinds_of(d)) for i, d in enumerate(self.docs) if is_personal_rule(d))
            self._rules = [(i, kinds) for i, kinds in found if kinds]
        return self._rules

    def recall(
        self, query: str, k: int, min_coverage: float = MIN_COVERAGE, min_relative: float = MIN_RELATIVE,
        min_terms: int = MIN_TERMS, task_aware: bool = True,
    ) -> list[tuple[int, float]]:
        terms = query_terms(query)
        kinds = tasks(query) if task_aware else set()
        # In a task, the words of the instruction (send, schedule, tomorrow, 10am)
        # count for a fact only when it holds them: no fact is asked to.
        optional = {t for t in terms if _is_instruction(t)} if kinds else set()
        kept = self._gate(terms, k, min_coverage, min_relative, min_terms, optional)
        if kinds:
            kept = self._task(query, [t for t in terms if t not in optional], kinds, kept, k)
        return kept

    def _gate(self, terms: list[str], k: int, min_coverage: float, min_relative: float, min_terms: int,
              optional: set[str] = frozenset()):
        if not terms:
            return []
        best = self.index.top(terms, max(k * 3, 24))
        if not best:
            return []
        idf = {t: self.index.idf(t) for t in terms}
        floor = best[0][1] * min_relative
        kept = []
        for i, score in best:
            if score < floor:
                break
            words = self.term_sets[i]
            counted = [t for t in terms if t not in optional or t in words]
            matched = [idf[t] for t in counted if t in words]
            total = sum(idf[t] for t in counted)
            if len(matched) >= min(min_terms, len(counted)) and total and sum(matched) / total >= min_coverage:
                kept.append((i, score))
                if len(kept) == k:
                    break
        return kept

    def _task(self, query: str, terms: list[str], kinds: set[str], kept: list[tuple[int, float]], k: int):
        """Add to a task's facts those holding its anchor, and the person's rules for its kind of action."""
        out = list(kept)
        have = {i for i, _ in out}
        scores = self.index.scores(terms) if terms else {}
        named = named_terms(query)
        limit = max(2, ANCHOR_MAX_SHARE * self.index.n)
        anchors = [t for t in terms if t in named and 0 < len(self.index.postings.get(t, ())) <= limit]
        holders = {i for t in anchors for i, _ in self.index.postings[t]} - have
        for i in sorted(holders, key=lambda i: (-scores.get(i, 0.0), -i))[:MAX_ANCHORED]:
            out.append((i, scores.get(i, 0.0)))
            have.add(i)
        rules = [i for i, rule_kinds in self.rules() if rule_kinds & kinds and i not in have]
        for i in sorted(rules, key=lambda i: (-scores.get(i, 0.0), -i))[:MAX_RULES]:
            out.append((i, scores.get(i, 0.0)))
        return out[:k]


_DOCS_CACHE: OrderedDict[tuple[str, ...], _DocsIndex] = OrderedDict()


def _docs_index(docs: Sequence[str]) -> _DocsIndex:
    # Callers ask many questions of one document list (a benchmark haystack,
    # the fact log): index it once.
    key = tuple(docs)
    found = _DOCS_CACHE.get(key)
    if found is None:
        found = _DocsIndex(key)
        _DOCS_CACHE[key] = found
        while len(_DOCS_CACHE) > 4:
            _DOCS_CACHE.popitem(last=False)
    else:
        _DOCS_CACHE.move_to_end(key)
    return found


def rank(query: str, docs: list[str], k: int) -> list[tuple[int, float]]:
    """Indexes into ``docs`` with BM25 scores, best first, at most ``k``; no gate."""
    return _docs_index(docs).rank(query, k)


def recall(query: str, docs: list[str], k: int = 12) -> list[tuple[int, float]]:
    """Like ``rank`` but through the relevance gate: empty when nothing applies."""
    return _docs_index(docs).recall(query, k)


# --- the store's facts --------------------------------------------------------

# Questions about the past state of something: these may see superseded facts.
_CHANGE_CUE = re.compile(
    r"\b(chang\w*|before|previous\w*|used to|original\w*|earlier|formerly|former|old|prior|"
    r"no longer|anymore|any more|history|was it|were they|initial\w*|updated?|moved from|switched)\b"
    r"|之前|以前|原来|原先|改了|变了|变化|更改",
    re.IGNORECASE,
)


def asks_about_change(query: str) -> bool:
    return _CHANGE_CUE.search(query) is not None


def fact_body(text: str) -> str:
    """The sentence without its leading date: the date says when, not what."""
    return undated(text)


_FINGERPRINT_SQL = (
    "SELECT count(*), max(id), max(touched_at), total(length(text)),"
    " total(id * CASE status WHEN 'active' THEN 1 WHEN 'superseded' THEN 2 WHEN 'archived' THEN 3 ELSE 5 END)"
    " FROM facts"
)


class _FactIndex:
    """The store's facts as of ``fingerprint``: an index of the active ones,
    and (built on first need) one that also holds the superseded ones."""

    def __init__(self, fingerprint: tuple, facts: list):
        self.fingerprint = fingerprint
        self.active = [f for f in facts if f.status == "active"]
        self.everything = facts
        self.active_docs = _DocsIndex([fact_body(f.text) for f in self.active])
        self._all_docs: _DocsIndex | None = None

    @property
    def all_docs(self) -> _DocsIndex:
        if self._all_docs is None:
            self._all_docs = _DocsIndex([fact_body(f.text) for f in self.everything])
        return self._all_docs


# One cached index per open store; dropped with the store object.
_FACT_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _fact_index(db) -> _FactIndex:
    from memory.facts import ACTIVE, SUPERSEDED, by_status

    fingerprint = tuple(db.conn.execute(_FINGERPRINT_SQL).fetchone())
    cached = _FACT_CACHE.get(db)
    if cached is not None and cached.fingerprint == fingerprint:
        return cached
    built = _FactIndex(fingerprint, by_status(db, ACTIVE, SUPERSEDED))
    _FACT_CACHE[db] = built
    return built


def recall_facts(db, query: str, k: int = 12) -> list[Recalled]:
    """Up to ``k`` stored facts that bear on ``query``; none when none apply.

    Only active facts, unless the query asks what changed or what something
    was before: then superseded facts may come too, marked as such.
    """
    idx = _fact_index(db)
    if asks_about_change(query):
        facts, docs = idx.everything, idx.all_docs
        # "changed", "before" say which facts may come, not what they are about.
        query = _CHANGE_CUE.sub(" ", query)
    else:
        facts, docs = idx.active, idx.active_docs
    if not facts:
        return []
    return [Recalled(facts[i].text, facts[i].id, facts[i].status, round(score, 4)) for i, score in docs.recall(query, k)]
