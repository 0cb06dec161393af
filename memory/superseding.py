"""Whether a later sentence gives a new value for what an earlier one said.

The write pass in code (memory/embedded_writer.py) stores the person's sentences
as facts; when they later say the value changed, the earlier fact must stop
being current. How people say so has no fixed shape: "X is now Y", "scratch
that, X fell through, so …", "slight change: … instead", 改到…, 换成…, 推迟到…,
不在…了. So this reads no wording of change. It reads two things that hold
whatever the sentence's shape:

- **the values** each sentence carries, by kind, with the readers kept has for
  them: dates (memory.text.dates, relative ones resolved from the day each was
  said), clock times and amounts (memory.text.words / numbers normalise
  "9am", "两万五", "$4,500"), and names (capitalised runs in Latin script;
  in Chinese the runs no dictionary word covers, where names stand);
- **what the values are of**: the sentences with their values taken out,
  compared by meaning (memory/meaning.py, the same sentence vectors recall
  uses; a Chinese sentence through its CC-CEDICT English). "The board review
  is on ___" and "The board review got pushed back to ___" are close; "The
  venue deposit is ___" and "The catering budget is ___" are not.

A new sentence supersedes an old one when they share a kind of value whose
new value replaces (or denies) the old and, with the values masked, mean
nearly the same thing. When the new one also names the old value
("Kelvingrove fell through", 不在海天了) it says outright that the old value no
longer holds, and less closeness is needed. Two sentences whose names are all
different while another value changed speak of two things ("the Harbor
budget", "the Lighthouse budget"), and a day already come dates a report of
what happened, not a value a later message moves. Without the meaning model (``KEPT_MEANING=0`` or no model package)
this answers False and the word-overlap reading of the caller stands alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from memory.text import bilingual, dates, words
from memory.text.numbers import CN_NUMERAL as _CN_NUMERAL
from memory.text.numbers import amount, en_int
from memory.text.script import reads_simplified

KINDS = ("date", "time", "amount", "name")

# Cosines of the two sentences with their values masked (all-MiniLM-L6-v2). Set on
# invented pairs (tests/test_superseding.py) and the dev first sessions' statements: changed
# values of one thing scored 0.55-0.85 masked, different things with a value of the same kind
# up to 0.5. When the new sentence names the old value it asserts the change itself, and the
# two need only be about the same thing in broad terms.
SAME_THING = 0.6
SAME_THING_NAMING_OLD = 0.35
ROUGHLY_NEAR = 0.15  # below this with every value masked, the pair is not embedded again
# A Chinese sentence reaches the model as its CC-CEDICT glosses, a bag of dictionary senses in
# which unrelated sentences lie closer (dev statements of one session: up to 0.61 apart from any
# change), so more closeness is asked of them, and the glosses alone are not trusted: the two must
# also share dictionary words beside their values (装修 and 预算 of a renovation budget; every one
# of the shorter's: 年会 of 年会定在…), as two English sentences about one thing do.
SAME_THING_ZH = 0.65
SAME_THING_NAMING_OLD_ZH = 0.5
ZH_SHARED_WORDS = 2

_CN_AMOUNT = re.compile(rf"(?<!第){_CN_NUMERAL}")
_CLOCK = re.compile(r"^\d{1,2}:\d{2}$")
_DIGITS = re.compile(r"\d")
# A run of capitalised words, with the small words names take inside them ("Bank of
# Scotland", "Pieter van Wyk"); a possessive 's is not part of the name.
_NAME = re.compile(
    # Not inside a Latin word; a Chinese character before it is a word boundary ("client叫Oriole Coffee").
    r"(?<![A-Za-z0-9_'’])[A-Z][A-Za-z0-9_’'-]*(?:\s+(?:(?:of|van|von|de|der|da|del|la|le|du|al|bin)\s+)?[A-Z][A-Za-z0-9_’'-]*)*"
    r"(?:\s+\d+[A-Za-z]?\b)?"  # "Grade 9", "Terminal 2", "Studio 4B": a number that is part of the name
)
# Words written with a capital for grammar, not because they name something.
_NOT_NAMES = frozenset(
    "i i'm i'd i'll i've a an the this that these those it its my our your their his her we you they he she "
    "if so but and or then also please hi hello hey ok okay yes no on in at by for to from with".split()
)


@dataclass(frozen=True)
class Reading:
    """A sentence's values by kind, and the sentence with them taken out."""

    text: str
    values: dict[str, frozenset[str]]
    dated: tuple[tuple[int, int], ...] = ()  # where its dates stand
    named: tuple[tuple[int, int, str], ...] = ()  # where its names stand, and each name

    def of(self, kind: str) -> frozenset[str]:
        return self.values.get(kind, frozenset())

    @property
    def masked(self) -> str:
        """The sentence with every value taken out."""
        return self.masked_for(KINDS, frozenset())

    def masked_for(self, kinds: Sequence[str], keep: frozenset[str]) -> str:
        """The sentence with its values of these kinds taken out, except the names in ``keep``:
        what changed is masked; a name both sentences carry ("the Atlas budget") and a value of
        a kind that did not change say what they are about."""
        cut = list(self.dated) if "date" in kinds else []
        if "name" in kinds:
            cut += [(a, b) for a, b, name in self.named if name not in keep]
        return _without_values(_cut(self.text, cut), numbers="amount" in kinds or "time" in kinds, days="date" in kinds)


def _names(text: str) -> list[tuple[int, int, str]]:
    """Capitalised runs that name something: not the words capitalised for grammar ("The", "I'd"),
    not the sentence's first word (every sentence starts with a capital: "Sent Priya the report"
    names Priya), not a month or weekday (dates read those)."""
    out = []
    lead = len(text) - len(text.lstrip())
    for m in _NAME.finditer(text):
        found = re.sub(r"['’]s$", "", m.group(0))
        pieces = [(w.start() + m.start(), w.group(0)) for w in re.finditer(r"\S+", found)]
        if (
            pieces
            and pieces[0][0] == lead
            and not re.match(r"[\w’'-]+['’]s\b", text[lead:])
            # In a Chinese sentence a capital is no grammar: "Penang 又推迟了" opens with a name.
            and not (len(pieces) == 1 and words.has_cjk(text[m.end() : m.end() + 3]))
        ):
            pieces = pieces[1:]  # the sentence's first word (unless it owns something: "Priya's budget")
        while pieces and pieces[0][1].lower() in _NOT_NAMES:
            pieces = pieces[1:]
        while pieces and (pieces[-1][1].lower() in _NOT_NAMES or pieces[-1][1].lower() in _LINKS):
            pieces = pieces[:-1]
        if not pieces or all(p[:1].isdigit() for _, p in pieces):
            continue
        if set(words.tokens(pieces[0][1])) & _DAY_WORDS:
            continue  # "January 14", "Friday", "on Thursdays": dates read those
        start, end = pieces[0][0], pieces[-1][0] + len(pieces[-1][1])
        out.append((start, end, text[start:end].lower()))
    return out


_LINKS = frozenset("of van von de der da del la le du al bin".split())  # inside a name, never at its end
_DAY_WORDS = frozenset(words.tokens("monday tuesday wednesday thursday friday saturday sunday") + list(words.MONTHS))


# Chinese grammatical characters (pronouns, particles, prepositions, aspect markers, adverbs of
# time and degree): a closed class. The run reader leaves them stranded beside the name a run holds
# (定在海天, 了小周, 前把), so a run is cut at them and only pieces of two characters or more stay.
_ZH_GRAMMAR = re.compile(
    "[我你他她它们的地得了着过把被在到从向跟和与给对让叫是有要会能将已正刚才就都也还又再很太最前后这那哪么呢吗吧啊]"
)


def _cjk_names(text: str) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    # 一月 and 周五 are proper names to the dictionary ("January", "Friday"): dates read those.
    proper = [w for w in bilingual.words(text) if bilingual.proper_name(w) and not set(words.tokens(w)) & _DAY_WORDS]
    runs = [piece for run in bilingual.unlisted(text) for piece in _ZH_GRAMMAR.split(run) if len(piece) > 1] + proper
    for run in runs:  # where no dictionary word covers it, or the dictionary knows it as a name
        start = text.find(run)
        if any(_DIGITS.search(t) for t in words.tokens(run)) or any(len(n) > 1 for n in _CN_AMOUNT.findall(run)):
            continue  # 三点, 十五号, 八千块: a time, a day or an amount the other readers take
        if _COUNTED.search(run) or (start >= 0 and _cut_from_word(text, start, start + len(run))):
            continue  # 多做一个 (a count), 没准|备好 (准备 cut by the reader): pieces of wording, not names
        if start >= 0 and not any(a <= start < b for a, b, _ in out):
            out.append((start, start + len(run), run))
    return out


_COUNTED = re.compile(f"{_CN_NUMERAL}[个位家条份次件天周年]")  # a numeral and its measure word: a count


def _cut_from_word(text: str, start: int, end: int) -> bool:
    """The run's first character and the one before it, or its last and the one after it, make a
    dictionary word: the reader's cut fell inside a word (没准|备好 of 没准备好), so the run is no name."""
    before = text[start - 1 : start + 1] if start else ""
    after = text[end - 1 : end + 1] if end < len(text) else ""
    return any(len(pair) == 2 and words.has_cjk(pair) and bilingual.glosses(pair) for pair in (before, after))


@reads_simplified
def read(text: str, said_on: date) -> Reading:
    """The values ``text`` carries (said on ``said_on``) and the text without them."""
    text = re.sub(r"^\s*\d{4}-\d{2}-\d{2}\s*:\s*", "", text)  # a stored fact's own date prefix
    text = re.sub(r"\s*\(\d{4}(?:-\d{2}){0,2}[^)]*\)", "", text)  # the dates annotate() added ("(2027)" too)
    spans: list[tuple[int, int]] = []
    found: dict[str, set[str]] = {k: set() for k in KINDS}
    for start, end, _, span in dates.find(text, said_on):
        if span.start > said_on:
            # A day ahead is a value a plan holds, which a later message may move. One already
            # come ("this morning", "yesterday", "this month") dates an occurrence being reported:
            # two such reports are two events, and neither replaces the other.
            found["date"].add(span.label())
        spans.append((start, end))
    named: list[tuple[int, int, str]] = []
    for start, end, name in _names(text) + (_cjk_names(text) if words.has_cjk(text) else []):
        if not any(a <= start < b for a, b in spans):
            found["name"].add(name)
            named.append((start, end, name))
    # Times and amounts: the word reader normalises them ("9am" → 9:00, "two grand" → 2, 两万五
    # → 25000); the pieces of text they came from are masked by their digits or number words.
    toks = words.tokens(_cut(text, spans + [(a, b) for a, b, _ in named]))
    for i, tok in enumerate(toks):
        if tok in words.MONTHS and i + 1 < len(toks) and toks[i + 1].isdigit():
            found["date"].add(f"{tok} {toks[i + 1]}")  # "January 14", "一月二十二号": a month and a day
        elif tok.isdigit() and i + 1 < len(toks) and toks[i + 1] in words.MONTHS:
            found["date"].add(f"{toks[i + 1]} {tok}")  # "14 March"
        elif (i and toks[i - 1] in words.MONTHS and tok.isdigit()) or tok in words.MONTHS:
            continue
        elif _CLOCK.match(tok):
            found["time"].add(tok)
        elif _DIGITS.search(tok):
            found["amount"].add(tok)
        elif tok not in ("a", "an", "one") and (count := en_int(tok)) is not None:  # "one" is mostly a pronoun
            found["amount"].add(str(count))  # "fourteen", which the word reader leaves as a word
    # Amounts in Chinese numerals (八十万, 三千五), which the word reader leaves as characters; one
    # character alone is a count word's (一家, 两个), and a numeral before 月/号/日/点 is a date or time.
    rest = _cut(text, spans + [(a, b) for a, b, _ in named])
    for m in _CN_AMOUNT.finditer(rest):
        value = amount(m.group(0))
        if len(m.group(0)) > 1 and value is not None and rest[m.end() : m.end() + 1] not in "月号日点时":
            found["amount"].add(f"{value:g}")
    return Reading(text, {k: frozenset(v) for k, v in found.items() if v}, tuple(spans), tuple(named))


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + " " + text[end:]
    return text


def _without_values(text: str, numbers: bool = True, days: bool = True) -> str:
    """``text`` with its numbers and day names taken out (its dates and names are cut already)."""
    if numbers or days:  # a day of the month is a number too
        text = re.sub(r"\d[\d,.:]*(?:\s*(?:am|pm)\b|k\b)?", " ", text, flags=re.I)
        text = re.sub(rf"(?:{_CN_NUMERAL})+[月号日点时万千百元块]*", " ", text)  # 一月二十二号, 八十万
    if days:
        text = " ".join(w for w in text.split() if w.lower().strip(".,;:!?") not in _DAY_WORDS)
    return " ".join(text.split())


def _same(a: str, b: str) -> bool:
    return a == b or (len(a) > 1 and len(b) > 1 and (a in b or b in a))


def changed_kinds(new: Reading, old: Reading) -> list[str]:
    """The kinds of value both carry where the new one has a value the old one lacks and the old
    one a value the new one does not repeat as it was: "Aisha owns Lighthouse" adds a name to
    "the Lighthouse launch…" and replaces none; "Kelvingrove fell through, so … the Riverside"
    replaces "Kelvingrove Park", naming only part of it."""
    out = []
    for kind in KINDS:
        a, b = new.of(kind), old.of(kind)
        if a and b and any(not any(_same(x, y) for y in b) for x in a) and (b - a or _denied(new.text, b & a)):
            out.append(kind)
    return out


# Negation, a closed class in both languages: the old value named in a denied clause ("not at
# Pinecrest any more", 不在北湖了) is said to hold no longer.
_NEGATION = re.compile(r"\b(?:not|no\s+longer|never|isn'?t|aren'?t|wasn'?t|won'?t|instead\s+of)\b|n't\b|不|没|非", re.I)


def _denied(text: str, values: frozenset[str]) -> bool:
    clauses = re.split(r"[,，;；.。!！?？]", text)
    return any(v in c.lower() and _NEGATION.search(c) for c in clauses for v in values)


def other_things(new: Reading, old: Reading, kinds: Sequence[str] | None = None) -> bool:
    """Both name things and no name is shared or named again: "The Harbor budget is $44k" after
    "The Lighthouse budget is $42k" speaks of another budget, not a new value of the same one."""
    kinds = changed_kinds(new, old) if kinds is None else kinds
    a, b = _sure_names(new), _sure_names(old)
    if not (a and b) or any(_same(x, y) for x in a for y in b) or names_old_value(new, old, "name"):
        return False
    # Every name replaced: another value of the same kind changed with them, or both sentences
    # name two things or more ("Diego runs Helix…" and "Elena runs Zenith…"), is another thing.
    # One new name ("the dinner is now at the Ritz", "Omari Blake mentors me now") may be the value.
    return any(k != "name" for k in kinds) or (len(a) >= 2 and len(b) >= 2)


def _sure_names(reading: Reading) -> frozenset[str]:
    """The names that are surely names: Latin ones, and Chinese ones the dictionary knows as proper
    names (武汉). A Chinese run no dictionary word covers may be a name or a piece of wording the
    reader could not place (新订, 六辆车 of 新订的六辆车): too unsure to say two sentences speak of
    two things."""
    return frozenset(n for n in reading.of("name") if not words.has_cjk(n) or bilingual.proper_name(n))


def names_old_value(new: Reading, old: Reading, kind: str) -> bool:
    """The new sentence names one of the old sentence's values of this kind beside its own new
    one: it speaks of the old value being replaced. A name counts when one of its words stands
    in the new sentence (the "Kelvingrove" of "Kelvingrove Park", a first name opening the
    sentence, which the name reader leaves out); a Chinese one when two of its characters in a
    row do (海天 of 定在海天, as the run reader cuts it)."""
    if any(any(_same(x, y) for x in new.of(kind)) for y in old.of(kind)):
        return True
    if kind != "name":
        return False
    said = new.text.lower()
    said_words = set(re.findall(r"[\w’'-]+", said))
    for name in old.of(kind):
        if words.has_cjk(name):
            if any(name[i : i + 2] in said and name[i : i + 2] not in new.masked for i in range(len(name) - 1)):
                return True
        elif any(len(w) > 2 and w in said_words for w in name.split() if w not in _NOT_NAMES):
            return True
    return False


def closeness(new: Reading, old: Reading, kinds: Sequence[str] = KINDS) -> float | None:
    """Cosine of the two sentences with the values of ``kinds`` (those that changed) masked, or
    None without the meaning model. A name both carry stays in: it is what they are about. The
    masked texts depend on the pair, so a pair far apart with every value masked (those vectors
    are cached per sentence) is not embedded again."""
    from memory import meaning

    if not (meaning.enabled() and meaning.available()):
        return None
    a, b = meaning.embed([bilingual.english_reading(new.masked), bilingual.english_reading(old.masked)])
    cos = float(a @ b)
    if cos < ROUGHLY_NEAR:
        return cos
    # Both readings must find them close: with every value masked (a shared name alone cannot make
    # two sentences one thing: "the Lighthouse launch moved…" and "Lighthouse nightly build broke…"),
    # and with only what changed masked (a word the masking took cannot hide that they differ:
    # "Priya's hiring budget" and "the Q3 budget").
    shared = new.of("name") & old.of("name")  # the same name: "Manchester" is not "Manchester Crown Court"
    a, b = meaning.embed(
        [
            bilingual.english_reading(new.masked_for(kinds, shared)),
            bilingual.english_reading(old.masked_for(kinds, shared)),
        ]
    )
    return min(cos, float(a @ b))


def _another_occurrence(new: Reading, kinds: Sequence[str]) -> bool:
    """A report of an event happening again ("the Pioneer build failed again", "又…了") with only a
    name changed is another occurrence of a kind of event (memory.series counts those), about
    another thing: no new value for the old one. A repeat with a changed day or amount ("slipped
    again, now the 9th") still is one, and the chain of versions counts the changes."""
    from memory.series import repetition_cue

    return list(kinds) == ["name"] and repetition_cue(new.text)


def _single(new: Reading, old: Reading, kind: str) -> bool:
    """Each sentence holds one value of this kind: the one that changed."""
    return len(new.of(kind)) == 1 and len(old.of(kind)) == 1


def _senses(reading: Reading, kinds: Sequence[str], keep: frozenset[str]) -> list[frozenset[str]]:
    """The words of the sentence besides the values that changed, each as its forms: a Chinese word
    (CC-CEDICT's segmentation, no list) with the stems of its English glosses, a Latin word as its
    stem. A name both sentences hold stays in: it is what they are about."""
    out: list[frozenset[str]] = []
    for run in _RUN.findall(reading.masked_for(kinds, keep)):
        if words.has_cjk(run):
            out.extend(frozenset({w, *words.tokens(bilingual.english_reading(w))}) for w in bilingual.words(run))
            # What no dictionary word covers (分院, a name) is read by its pairs of characters, as
            # names_old_value reads a Chinese name: the run reader's cuts differ between sentences.
            # A run is cut at the grammatical characters the name reader cuts at (定在 is 定 and 在).
            pieces = [p for u in bilingual.unlisted(run) for p in _ZH_GRAMMAR.split(u) if len(p) > 1]
            out.extend(frozenset(p[i : i + 2] for i in range(len(p) - 1)) for p in pieces)
        else:
            out.extend(frozenset({t}) for t in words.tokens(run) if not _DIGITS.search(t))
    return list(dict.fromkeys(out))


def shared_senses(new: Reading, old: Reading, kinds: Sequence[str]) -> tuple[int, int]:
    """How many of the words of the sentence with fewer have a form in common with one of the
    other's (an English word and a Chinese one glossed by it count as one: 上线 and "go-live"),
    and how many words that sentence has."""
    keep = new.of("name") & old.of("name")
    a, b = _senses(new, kinds, keep), _senses(old, kinds, keep)
    other = old.masked_for(kinds, keep)
    if len(a) > len(b):
        a, b = b, a
        other = new.masked_for(kinds, keep)

    def found(x: frozenset[str]) -> bool:
        # A Chinese word standing as it is in the other's text counts, however the dictionary's
        # longest match cut that text (第三家门店 is read 家门|店 there).
        return any(x & y for y in b) or any(len(f) > 1 and words.has_cjk(f) and f in other for f in x)

    return sum(1 for x in a if found(x)), len(a)


_DATE_MARK = "qqdateqq"
_ZH_MONTH_DAY = re.compile(rf"(?:\d{{1,2}}|{_CN_NUMERAL})\s*月\s*(?:\d{{1,2}}|{_CN_NUMERAL})\s*[号日]?")
_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[^\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
HOLDER_WINDOW = 2  # content words either side of a value that say what it is of ("180 guests", "预算35万")


def holders(reading: Reading, kind: str) -> frozenset[str]:
    """The content words next to the sentence's values of ``kind``: what the value is of ("planning
    for 180 guests", "the guest count is 240", "预算35万", "budget加到42万"). Chinese words count
    by their CC-CEDICT English too, so 预算 and "budget" are one word."""
    text = reading.text
    for a, b in sorted(reading.dated, reverse=True):
        text = text[:a] + f" {_DATE_MARK} " + text[b:]
    text = _ZH_MONTH_DAY.sub(f" {_DATE_MARK} ", text)  # 4月18号, 一月二十二号: the word reader's month and day
    seq: list[tuple[str, frozenset[str]]] = []  # (the token's kind or "", the words it stands for)
    for run in _RUN.findall(text):
        if words.has_cjk(run):
            for w in bilingual.words(run):
                seq.append(("", frozenset({w, *words.tokens(bilingual.english_reading(w))})))
            continue
        toks = words.tokens(run)
        for j, tok in enumerate(toks):
            month_day = tok in words.MONTHS or (
                tok.isdigit() and any(t in words.MONTHS for t in toks[max(0, j - 1) : j] + toks[j + 1 : j + 2])
            )
            mark = (
                "date"
                if tok == _DATE_MARK or month_day
                else "time"
                if _CLOCK.match(tok)
                else "amount"
                if _DIGITS.search(tok)
                else ""
            )
            seq.append((mark, frozenset({tok}) if not mark else frozenset()))
    out: set[str] = set()
    for i, (mark, _) in enumerate(seq):
        if mark == kind:
            near = seq[max(0, i - HOLDER_WINDOW) : i] + seq[i + 1 : i + 1 + HOLDER_WINDOW]
            out.update(w for m, ws in near if not m for w in ws)
    return frozenset(out)


# Units say what a value is counted in, not what it is of ("4,500 euros", "$12k", "35万元"): a closed class.
_UNITS = frozenset(
    words.tokens("euro euros dollar dollars usd eur gbp pound pounds yuan rmb k grand percent per cent")
) | {"元", "块", "万", "千", "百", "%"}


def same_holder(new: Reading, old: Reading, kinds: Sequence[str]) -> bool:
    """A word next to the changed amount in both sentences, not its unit: the amount is of the same
    thing ("180 guests", "the guest count is 240"). Dates are not read so: a day stands beside the
    event it dates and beside a deadline alike ("the reopening is set for the 12th", "the rota for
    reopening week by Monday"), so a shared word there says less (dev first sessions)."""
    return any((holders(new, k) & holders(old, k)) - _UNITS for k in kinds if k == "amount")


def supersedes(new: Reading, old: Reading) -> bool:
    """``new`` gives a changed value of the same kind for the same thing ``old`` spoke of."""
    kinds = changed_kinds(new, old)
    if not kinds or other_things(new, old, kinds) or _another_occurrence(new, kinds):
        return False
    cos = closeness(new, old, kinds)
    if cos is None:
        return False
    zh = words.has_cjk(new.masked) or words.has_cjk(old.masked)
    held = same_holder(new, old, kinds)
    if zh and not held:
        shared, fewest = shared_senses(new, old, kinds)
        if shared < min(ZH_SHARED_WORDS, fewest) or not shared:
            return False
        # Glosses are too loose a reading for a closeness to decide a Chinese pair (a bag of
        # dictionary senses), and an English one beside it scores lower still: what both say beside
        # the one value that changed, read in either script (分院 and 开业, "spring menu", a shared
        # name and 上线 for "go-live"), says they are of one thing.
        if len(kinds) == 1 and kinds[0] != "name" and _single(new, old, kinds[0]) and shared >= ZH_SHARED_WORDS:
            return cos >= ROUGHLY_NEAR
    if cos >= (SAME_THING_ZH if zh else SAME_THING):
        return True
    # Naming the old value says outright that it changed; a word holding the value in both (the
    # guest count, the budget) says the value is of the same thing: either way, with the
    # sentences about the same thing in broad terms, it is a change. The holder is read in
    # words, not glosses, so it asks no more closeness of Chinese.
    naming = any(names_old_value(new, old, k) for k in kinds)
    if held and cos >= SAME_THING_NAMING_OLD:
        return True
    return naming and cos >= (SAME_THING_NAMING_OLD_ZH if zh else SAME_THING_NAMING_OLD)


NEAREST = 3  # an earlier sentence a new value replaces is among the few closest to it in meaning


def superseded(new: Reading, olds: Sequence[Reading]) -> int | None:
    """The index of the one of ``olds`` (latest last) that ``new`` supersedes, or None. Only the
    few closest in meaning with every value masked are judged, so a store of hundreds of facts
    costs one vector product, not a judgment per fact."""
    from memory import meaning

    candidates = [i for i, old in enumerate(olds) if changed_kinds(new, old)]
    if not candidates or not (meaning.enabled() and meaning.available()):
        return None
    vectors = meaning.embed(
        [bilingual.english_reading(new.masked)] + [bilingual.english_reading(olds[i].masked) for i in candidates]
    )
    cosines = vectors[1:] @ vectors[0]
    ranked = sorted(range(len(candidates)), key=lambda j: (-float(cosines[j]), -candidates[j]))
    for j in ranked[:NEAREST]:
        if float(cosines[j]) >= ROUGHLY_NEAR and supersedes(new, olds[candidates[j]]):
            return candidates[j]
    return None
