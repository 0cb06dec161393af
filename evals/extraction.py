"""The extraction stage: what kept's write path made of the planted facts.

Read from the fact log (and SOUL) alone, deterministically, with no model.

**Values.** A sentence's value-bearing tokens are what a decoy or a stale
version changes: e-mail addresses, calendar days ("December 3", "Dec 3rd",
"3 December", "2026-12-03", "12月3日", "12/3" all read ``d:12-03``), clock
times ("17:30", "5:30 pm", "17点30" read ``t:17:30``), weekdays ("Tuesdays",
"Tue", "周二", "星期二" read ``w:tue``) and amounts ("$42,000", "42k", "4.2万"
read ``n:42000``; a bare number below 100 is not a value). The dates kept's
own code adds after a relative date ("by Friday (2026-11-13)") are not the
model's words and are left out before reading.

**Subjects.** The persona's names: capitalised words of its planted
sentences (Lighthouse, Aisha, Northwind...), less a stoplist of ordinary
sentence words. **Keywords**: the other words of four letters or more, and
Chinese character pairs.

**A stored fact matches a planted one** when it holds every value of the
planted sentence, shares one of its subjects (when it has any), and, when
the planted sentence has no value, shares at least half of its other
keywords. Its date is right when the fact's ``said_on`` is the planted
message's day.

**Planted facts** (every kind but the nickname and treatment wishes, which
belong in SOUL and are counted apart): those still current are *right*
(an active fact matches, one with the right day; a promise kept with
evidence may instead be superseded by its evidence), *wrong date* (active
facts match, none on the right day) or *missing* (extracted, when a fact of
any status matched, then lost; or never extracted). A planted fact a later
change replaced must not be active.

**Changed facts**, one chain per fact that changed once or twice: *superseded
correctly* when the latest value is active and no earlier value is (an
active fact matching an earlier version and not the latest is a *stale*
fact); *linked* when, besides, the active latest fact replaces (through its
``replaces`` chain) a fact holding an earlier value, so kept recorded it as
a change rather than two unrelated facts.

**Every active fact** falls in exactly one class, in this order:

- *invented*: it holds a value that no message of the persona holds (with
  each message's relative dates resolved the way kept resolves them), or a
  name that no message holds (a capitalised word that does not open a
  sentence or clause; acronyms such as USD are not names);
- *planted*: it matches a current planted fact;
- *stale*: it matches a planted fact that was later changed;
- *unplanned*: not planted but faithful: it has no value, or one message
  holds all its values together with one of its subjects (or it names none);
- *wrong*: its values are in the history but never with its subject: a
  decoy's value bound to another subject ("the Lighthouse budget is $44,000"
  when only Harbor's was).

*Stale* and *wrong* are the wrong facts; *invented* are the invented ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

from evals.persona import Persona
from memory.text import MONTHS, STOP_WORDS
from memory.text.dates import undated

SOUL_KINDS = ("nickname", "treatment")

_MONTHS = {m: i + 1 for i, m in enumerate(MONTHS)}
_MONTH_ABBR = {m[:3]: n for m, n in _MONTHS.items()} | {"sept": 9}
_MONTH_RE = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
)
_WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_EN_WD = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues|tue|wed|thurs|thu|fri|sat|sun)s?"
_ZH_WD = {"一": "mon", "二": "tue", "三": "wed", "四": "thu", "五": "fri", "六": "sat", "日": "sun", "天": "sun"}

_ANNOTATION = re.compile(r"\s*\(\d{4}-\d{2}(?:-\d{2})?(?: to \d{4}-\d{2}-\d{2})?\)")
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_ISO = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
_ZH_DATE = re.compile(r"(?<!\d)(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
_MD = re.compile(rf"\b({_MONTH_RE})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s*\d{{4}})?", re.I)
_DM = re.compile(rf"(?<!\d)(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})(?![a-z])(?:,?\s*\d{{4}})?", re.I)
_SLASH = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})(?![\d/])")
_TIME = re.compile(
    r"(?<![\d:])(\d{1,2})(?::|：|点)(\d{2})(?:\s*([ap])\.?m\.?\b)?|(?<![\d:])(\d{1,2})\s*([ap])\.?m\.?\b", re.I
)
_EN_WEEKDAY = re.compile(rf"\b({_EN_WD})\b", re.I)
_ZH_WEEKDAY = re.compile(r"(?:周|星期|礼拜)([一二三四五六日天])")
_WAN = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*万")
_AMOUNT = re.compile(r"(\$|€|£|¥)?\s*(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?\s*(k|K)?(?![\d,])")

# Capitalised words that are ordinary sentence words, not names.
_STOP_NAMES = {
    "the",
    "a",
    "an",
    "i",
    "i'd",
    "i'm",
    "i'll",
    "my",
    "me",
    "we",
    "our",
    "you",
    "your",
    "he",
    "she",
    "her",
    "his",
    "they",
    "it",
    "its",
    "this",
    "that",
    "these",
    "those",
    "and",
    "or",
    "but",
    "by",
    "for",
    "from",
    "in",
    "on",
    "at",
    "to",
    "of",
    "with",
    "when",
    "what",
    "who",
    "please",
    "heads",
    "update",
    "rule",
    "signed",
    "sent",
    "another",
    "note",
    "noted",
    "hi",
    "hey",
    "okay",
    "ok",
    "also",
    "just",
    "user",
    "person",
    "assistant",
    "kept",
    "memory",
    "fact",
    "today",
    "tomorrow",
    "yesterday",
    "morning",
    "afternoon",
    "evening",
    "weekly",
    "sync",
    "launch",
    "budget",
    "deck",
    "contract",
    "nightly",
    "build",
    "email",
    "project",
    "promise",
    "promised",
    "reminder",
}
# The shared stop words, and words of the persona's phrasing that say nothing about a fact's content.
_STOP_WORDS = STOP_WORDS | {"don't", "done", "dont", "heads", "rule", "today", "update"}
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_CAP_WORD = re.compile(r"(?<![\w@.])([A-Z][A-Za-z]+)(?:['’]s)?(?![\w@])")
_CJK = re.compile(r"[\u4e00-\u9fff]+")


def strip(text: str) -> str:
    """A stored sentence without its date prefix or the dates code added after relative dates."""
    return _ANNOTATION.sub("", undated(text))


def values(text: str) -> set[str]:
    """The value-bearing tokens of ``text`` (see the module docstring)."""
    out: set[str] = set()
    rest = text

    def take(rx, fn):
        nonlocal rest

        def sub(m):
            v = fn(m)
            if v:
                out.add(v)
            return " "

        rest = rx.sub(sub, rest)

    take(_EMAIL, lambda m: "e:" + m.group(0).lower().rstrip("."))
    take(_ISO, lambda m: _day(int(m.group(2)), int(m.group(3))))
    take(_ZH_DATE, lambda m: _day(int(m.group(1)), int(m.group(2))))
    take(_MD, lambda m: _day(_month(m.group(1)), int(m.group(2))))
    take(_DM, lambda m: _day(_month(m.group(2)), int(m.group(1))))
    take(_TIME, _time)
    take(_SLASH, lambda m: _day(int(m.group(1)), int(m.group(2))))
    take(_EN_WEEKDAY, lambda m: "w:" + m.group(1).lower()[:3])
    take(_ZH_WEEKDAY, lambda m: "w:" + _ZH_WD[m.group(1)])
    take(_WAN, lambda m: f"n:{round(float(m.group(1)) * 10000)}")

    def amount(m):
        whole = int(m.group(2).replace(",", ""))
        number = float(f"{whole}.{m.group(3)}") if m.group(3) else whole
        if m.group(4):
            number *= 1000
        if not m.group(1) and not m.group(4) and number < 100:
            return None  # a bare small number is a count or an ordinal, not a value
        return f"n:{number:g}" if number != int(number) else f"n:{int(number)}"

    take(_AMOUNT, amount)
    return out


def _month(word: str) -> int:
    w = word.lower().rstrip(".")
    return _MONTHS.get(w) or _MONTH_ABBR.get(w[:4] if w.startswith("sept") else w[:3], 0)


def _calendar_word(word: str) -> bool:
    """A month or weekday, whole or abbreviated ("Mar", "Tues"), not a name that begins like one
    (Marie, Sunil, Janet)."""
    w = word.lower().rstrip(".")
    if w in _MONTHS or w in _MONTH_ABBR:
        return True
    return any(w == d or (d.startswith(w) and len(w) >= 3) for d in _WEEKDAY_NAMES)


def _day(month: int, day: int) -> str | None:
    return f"d:{month:02d}-{day:02d}" if 1 <= month <= 12 and 1 <= day <= 31 else None


def _time(m) -> str | None:
    if m.group(4):  # "5 pm"
        hour, minute, half = int(m.group(4)), 0, m.group(5)
    else:
        hour, minute, half = int(m.group(1)), int(m.group(2)), m.group(3)
    if half:
        hour = hour % 12 + (12 if half.lower() == "p" else 0)
    return f"t:{hour:02d}:{minute:02d}" if hour < 24 and minute < 60 else None


def words(text: str) -> set[str]:
    text = _EMAIL.sub(" ", text)
    latin = {w.lower().strip("'’-") for w in _WORD.findall(text)}
    latin = {w[:-2] if w.endswith("'s") or w.endswith("’s") else w for w in latin}
    pairs = {run[i : i + 2] for run in _CJK.findall(text) for i in range(len(run) - 1)}
    return latin | pairs


def names(text: str) -> set[str]:
    """Capitalised words of ``text`` that are not ordinary sentence words."""
    return {
        w.lower()
        for w in _CAP_WORD.findall(_EMAIL.sub(" ", text))
        if w.lower() not in _STOP_NAMES and not _calendar_word(w)
    }


@dataclass
class Shape:
    """What a sentence is matched by."""

    values: set[str]
    subjects: set[str]
    keywords: set[str]


class Matcher:
    def __init__(self, persona: Persona):
        self.persona = persona
        self.vocabulary: set[str] = set()
        for p in persona.planted:
            self.vocabulary |= names(p.text)
        self._shapes: dict[str, Shape] = {}
        self.planted = {p.id: self.shape(p.text) for p in persona.planted}

    def shape(self, text: str) -> Shape:
        if text not in self._shapes:
            self._shapes[text] = self._shape(text)
        return self._shapes[text]

    def _shape(self, text: str) -> Shape:
        text = strip(text)
        ws = words(text)
        subjects = ws & self.vocabulary
        keywords = {w for w in ws if (len(w) >= 4 or _CJK.fullmatch(w)) and w not in _STOP_WORDS} - subjects
        return Shape(values(text), subjects, keywords)

    def matches(self, planted_id: str, text: str) -> bool:
        want, got = self.planted[planted_id], self.shape(text)
        if not want.values <= got.values:
            return False
        if want.subjects and not want.subjects & got.subjects:
            return False
        if not want.values and want.keywords:
            # Half of its other words, counted apart in Latin script and in Chinese
            # character pairs, so a paraphrase in either language can match.
            return any(part and 2 * len(part & got.keywords) >= len(part) for part in _split(want.keywords))
        return True


def _split(keywords: set[str]) -> tuple[set[str], set[str]]:
    cjk = {w for w in keywords if _CJK.fullmatch(w)}
    return keywords - cjk, cjk


def _message_facts(persona: Persona) -> list[tuple[set[str], set[str], str]]:
    """Each message's values (relative dates resolved as kept resolves them), words and text."""
    from memory.text import dates

    out = []
    for m in persona.messages:
        annotated = dates.annotate(m.text, date.fromisoformat(m.at[:10]))
        out.append((values(m.text) | values(annotated), words(m.text), m.text))
    return out


def said_words(word_sets: Iterable[set[str]]) -> set[str]:
    """Every word the messages hold, and the halves of their hyphenated words: a hyphenated
    name is one word of a message ("Jean-Luc"), and the name reading in ``_invented`` sees its
    halves, which a message holding the whole name did say."""
    out: set[str] = set().union(*word_sets)
    return out | {part for w in out if "-" in w for part in w.split("-")}


_NAME_IN_TEXT = re.compile(r"(?<![\w@.])(?<![.:;!?]\s)(?<![.:;!?])([A-Z][a-z]+)(?:['’]s)?(?![\w@])")


def _invented(text: str, shape: Shape, all_values: set[str], all_words: set[str]) -> list[str]:
    """What in ``text`` no message holds: values, and names (a capitalised word
    that does not open a sentence or clause; acronyms are not names)."""
    body = _EMAIL.sub(" ", strip(text)).strip()
    missing = sorted(shape.values - all_values)
    for m in _NAME_IN_TEXT.finditer(body):
        w = m.group(1).lower()
        if m.start() == 0 or w in _STOP_NAMES or _calendar_word(w):
            continue
        if w not in all_words and w not in missing:
            missing.append(w)
    return missing


def score(persona: Persona, db) -> dict[str, Any]:
    """The extraction stage for one persona whose store went through kept's write path."""
    from memory import facts as fact_log
    from memory import soul

    matcher = Matcher(persona)
    stored = fact_log.by_status(db)
    active = [f for f in stored if f.status == fact_log.ACTIVE]
    by_id = {f.id: f for f in stored}
    planted = {p.id: p for p in persona.planted}
    replaced_by = {p.replaces: p.id for p in persona.planted if p.kind == "change" and p.replaces}
    fact_kinds = [p for p in persona.planted if p.kind not in SOUL_KINDS]
    current = [p for p in fact_kinds if p.id not in replaced_by]
    stale_ids = [p.id for p in fact_kinds if p.id in replaced_by]

    hits = {p.id: [f for f in stored if matcher.matches(p.id, f.text)] for p in fact_kinds}
    per_planted = []
    right = wrong_date = missing = 0
    # A promise kept with evidence may stay active or be superseded by its evidence.
    closed = {p.replaces for p in persona.planted if p.kind == "evidence" and p.replaces}
    for p in current:
        ok_status = (fact_log.ACTIVE, fact_log.SUPERSEDED) if p.id in closed else (fact_log.ACTIVE,)
        on = [f for f in hits[p.id] if f.status in ok_status]
        day = p.fact[:10]
        if any(f.said_on == day for f in on):
            verdict = "right"
            right += 1
        elif on:
            verdict = "wrong_date"
            wrong_date += 1
        else:
            verdict = "lost" if hits[p.id] else "missing"
            missing += 1
        per_planted.append(
            {
                "planted": p.id,
                "kind": p.kind,
                "day": day,
                "verdict": verdict,
                "facts": [f.id for f in hits[p.id]],
                "active": [f.id for f in on],
                "said_on": sorted({f.said_on for f in on}),
            }
        )

    # Changed facts: one chain per fact that changed, from its first version to its latest.
    chains = []
    for p in fact_kinds:
        if p.kind == "change" or p.id not in replaced_by:
            continue
        chain = [p]
        while chain[-1].id in replaced_by:
            chain.append(planted[replaced_by[chain[-1].id]])
        latest, earlier = chain[-1], chain[:-1]
        latest_active = [f for f in hits[latest.id] if f.status == fact_log.ACTIVE]
        stale_active = sorted(
            {
                f.id
                for e in earlier
                for f in hits[e.id]
                if f.status == fact_log.ACTIVE and not matcher.matches(latest.id, f.text)
            }
        )
        earlier_facts = {f.id for e in earlier for f in hits[e.id]}
        linked = any(_reaches(f, earlier_facts, by_id) for f in latest_active)
        ok = bool(latest_active) and not stale_active
        chains.append(
            {
                "chain": [c.id for c in chain],
                "latest_active": bool(latest_active),
                "stale_active_facts": stale_active,
                "superseded": ok,
                "linked": ok and linked,
            }
        )

    # Every active fact in one class.
    messages = _message_facts(persona)
    all_values = set().union(*(v for v, _, _ in messages)) if messages else set()
    all_words = said_words(w for _, w, _ in messages)
    classes: dict[str, list[int]] = {"planted": [], "stale": [], "unplanned": [], "wrong": [], "invented": []}
    detail = []
    current_ids = [p.id for p in current]
    for f in active:
        shape = matcher.shape(f.text)
        invented = _invented(f.text, shape, all_values, all_words)
        matched = [pid for pid in current_ids if f in hits[pid]]
        stale = [pid for pid in stale_ids if f in hits[pid]]
        if invented:
            kind = "invented"
        elif matched:
            kind = "planted"
        elif stale:
            kind = "stale"
        elif not shape.values or any(
            shape.values <= v and (not shape.subjects or shape.subjects & w) for v, w, _ in messages
        ):
            kind = "unplanned"
        else:
            kind = "wrong"
        classes[kind].append(f.id)
        detail.append(
            {
                "fact": f.id,
                "text": f.text,
                "class": kind,
                "planted": matched or stale,
                **({"not_in_any_message": invented} if invented else {}),
            }
        )

    # The nickname and treatment wishes: kept in SOUL (or as an active fact).
    soul_text = soul.current(db) or ""
    soul_lines = [ln for ln in soul_text.splitlines() if ln.strip()] + [f.text for f in active]
    soul_kept = [
        p.id
        for p in persona.planted
        if p.kind in SOUL_KINDS and any(matcher.matches(p.id, line) for line in soul_lines)
    ]

    return {
        "planted": len(fact_kinds),
        "current": len(current),
        "replaced": len(stale_ids),
        "right": right,
        "wrong_date": wrong_date,
        "missing": missing,
        "extracted": sum(1 for p in fact_kinds if hits[p.id]),
        "changes": len(chains),
        "superseded": sum(c["superseded"] for c in chains),
        "linked": sum(c["linked"] for c in chains),
        "stale_left_active": sum(1 for c in chains if c["stale_active_facts"]),
        "active_facts": len(active),
        **{f"facts_{k}": len(v) for k, v in classes.items()},
        "soul_wishes": sum(1 for p in persona.planted if p.kind in SOUL_KINDS),
        "soul_kept": len(soul_kept),
        "per_planted": per_planted,
        "chains": chains,
        "facts": detail,
    }


def _reaches(fact, targets: set[int], by_id: dict) -> bool:
    seen = set()
    f = fact
    while f is not None and f.replaces is not None and f.replaces not in seen:
        seen.add(f.replaces)
        if f.replaces in targets:
            return True
        f = by_id.get(f.replaces)
    return False


def summary_line(name: str, s: dict[str, Any]) -> str:
    """One line for the terminal."""
    return (
        f"extraction {name}: planted facts {s['planted']} ({s['current']} current): right value and date "
        f"{s['right']}, wrong date {s['wrong_date']}, missing {s['missing']}; changed facts {s['changes']}: "
        f"superseded {s['superseded']} (linked {s['linked']}), stale left active {s['stale_left_active']}; "
        f"active facts {s['active_facts']}: planted {s['facts_planted']}, stale {s['facts_stale']}, "
        f"wrong {s['facts_wrong']}, invented {s['facts_invented']}, unplanned {s['facts_unplanned']}; "
        f"SOUL wishes kept {s['soul_kept']}/{s['soul_wishes']}"
    )
