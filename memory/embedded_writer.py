"""Memory written in code, for a model that writes it badly.

The embedded 0.5B model, asked to extract facts and rewrite MEMORY, ran an
extract call to its token limit for five minutes and stored nothing; its
MEMORY read "What they asked for: What do you know about Project Atlas so
far?". So for such a model (agent/models/choices.py ``memory_in_code``) a
write pass does in code what code does reliably:

- facts: each informative sentence of the person's own messages is a dated
  fact in the person's words, its relative dates resolved from the message's
  date (memory.text.dates). Questions, small talk and credentials are not
  facts; every dropped sentence is reported with why.
- a later value for the same subject supersedes the earlier fact when the
  reading package can tell: the two sentences carry the same kind of value (a
  date, a time, an amount, a name) that differs, and are about the same thing:
  most of their other words shared, or, whatever their shape, close in meaning
  with the values masked (memory/superseding.py).
- SOUL changes only from the person's wishes about how kept talks to them
  ("Please call me Sasha", "never use bullet points", "everyone calls me
  Maggie, so please do too", "I can't stand bullet points"), as
  memory.soul.read_wishes reads them; the model only confirms the candidates
  of the general reading (see "SOUL" below).
- MEMORY is computed from the store: who they are, what they asked for (the
  actions kept took), open promises, the last days' facts.

The plan writes nothing; memory/writer.py applies it in the pass's one
transaction, so a reread (``kept memory rewrite --again``) adds nothing twice.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from memory import facts as fact_log
from memory import reconcile, soul, summary, superseding
from memory.secrets import contains_secret
from memory.stages import Batch, messages_of
from memory.text import dates, words
from memory.text.acts import STATEMENT, act, is_question, is_request
from memory.text.acts import split as sentences
from memory.text.commitments import CLAUSE_BREAK
from memory.text.nicknames import given_name
from memory.text.script import quotes_original, reads_simplified

MIN_CONTENT_TOKENS = 3  # fewer (Latin) content tokens: small talk ("Thanks, great!")
MIN_CJK_CHARS = 5
SAME_SUBJECT = 0.5  # share of the other words two sentences must have in common to be about one thing
LATELY_DAYS = 7


@dataclass
class Decision:
    message_id: int
    text: str
    outcome: str  # "fact", "superseded #N", "soul", "dropped"
    reason: str

    def line(self) -> str:
        return f"#{self.message_id} {self.outcome}: {self.text[:90]}" + (f" ({self.reason})" if self.reason else "")


@dataclass
class Written:
    """What a pass in code plans: the writer's two plans, and a report of every sentence."""

    summary: summary.SummaryPlan
    facts: reconcile.FactsPlan
    decisions: list[Decision] = field(default_factory=list)


# ---------------------------------------------------------------- reading


def _content(text: str) -> list[str]:
    return [t for t in words.tokens(text) if not words.has_cjk(t) or len(t) == 1]


@reads_simplified
def informative(text: str) -> bool:
    toks = _content(text)
    cjk = sum(1 for t in toks if words.has_cjk(t))
    return len(toks) - cjk >= MIN_CONTENT_TOKENS or cjk >= MIN_CJK_CHARS


# A request may carry a statement of its own beside what it asks: "Set up a meeting with Dana,
# the review is Thursday", "帮我约一下王经理，周四开评审会". The rule is grammatical, not a
# list of phrasings: split the request at clause boundaries (punctuation, and the closed class of
# causal subordinators), and keep a clause that is no request and no question and is a clause of
# its own: not one that leans on a word outside it (a relative pronoun or a complementiser opens
# a clause whose subject is elsewhere: "…, which renews on May 2"). A coordinator (and, but, so,
# then, or) joins two clauses that each have their own subject ("…, so unit base is now the
# Riverside"): the clause after it stands, and statement clauses next to each other are kept as
# one sentence, so what the person said together stays together ("Kelvingrove fell through, so
# unit base is now the Riverside Museum car park" after "Scratch that -"): a change that names
# the old value is read as one (memory/superseding.py). What the request asks is left to the
# tool call, whose result kept stores anyway.
_BECAUSE = re.compile(r"\s+(?:because|since)\s+|因为", re.I)
_LEANING = re.compile(r"^(?:which|who|whom|whose|that|where|when|to)\b", re.I)
_COORDINATOR = re.compile(r"^(?:and|but|so|then|or)\s+", re.I)
_BREAKS = re.compile(rf"(\s*(?:{CLAUSE_BREAK})\s*)")


def _undated(text: str) -> str:
    """``text`` without its dates and times (memory.text.dates), as ``values`` reads them."""
    for start, end, _, _ in reversed(dates.find(text, date.today())):
        text = text[:start] + " " + text[end:]
    return text


@quotes_original
def world_clauses(request: str) -> list[str]:
    """The clauses of a request that state something of the world, each run of adjacent ones a
    sentence of its own."""
    label = _LABEL.match(request)
    named = label.group(0).strip(" :：").split() if label else []
    if (
        label
        and not words.has_cjk(label.group(0))
        and (len(named) == 1 or (len(named) <= 3 and named[1].lower() in _PREPOSITIONS))
        and not (is_request(request[label.end() :]) or is_question(request[label.end() :]))
    ):
        # "Update on Harwood: the court has moved the trial" is a statement under a label (a noun,
        # or a noun and what it is of: "Change of venue"), which the request reader took for a verb
        # ("Update"): the label says what it is about, so it stays.
        return [request.strip()] if informative(request) else []
    found: list[str] = []
    run: list[str] = []

    def close() -> None:
        text = "".join(run).strip(" ,.;。，！!:：—–-")
        run.clear()
        if text and informative(text):
            found.append(text[0].upper() + text[1:] + ("" if words.has_cjk(text[-1]) else "."))

    pieces = _BREAKS.split(request)
    for i in range(0, len(pieces), 2):
        joint = pieces[i - 1] if i else ""
        for k, part in enumerate(_BECAUSE.split(pieces[i])):
            bare = part.strip(" ,.;。，！!")
            body = _COORDINATOR.sub("", bare)
            standing = (
                bool(body)
                and not _LEANING.match(body)
                and not is_request(body)
                and not is_question(body)
                # "tomorrow 4pm", 后天上午十一点: only when the request is for, no clause of its own
                and any(not re.fullmatch(r"\d{1,2}:\d{2}", t) for t in _content(_undated(body)))
            )
            if not standing:
                close()
                continue
            if not run or k:  # a new run, or after "because": the clause starts a sentence
                close()
                run.append(body)
            else:
                run.append(joint + bare)
    close()
    return found


@dataclass
class Values:
    """What kinds of value a sentence carries, and the words that are its subject."""

    dates: frozenset[str]
    numbers: frozenset[str]
    subject: frozenset[str]  # the other words: names and nouns say what the value is of
    # Names after a preposition, by the preposition: "at the Clarion Hotel" is ("at", "clarion hotel").
    places: frozenset[tuple[str, str]] = frozenset()
    # Its subject and object noun phrases, each as its words: "the summit", "Priya's hiring budget".
    phrases: frozenset[frozenset[str]] = frozenset()
    # Its values by kind and what they are of, for the reading that needs no shape (memory.superseding).
    reading: superseding.Reading | None = None
    # The words of its subject noun phrase, where one is read ("the offsite dinner").
    subject_phrase: frozenset[str] = frozenset()


@reads_simplified
def values(text: str, said_on: date) -> Values:
    """A sentence's dates (relative ones resolved, "December 18" as month and
    day), its other numbers (amounts, counts, times), and its subject words."""
    text = re.sub(r"^\s*\d{4}-\d{2}-\d{2}\s*:\s*", "", text)  # a stored fact's own date prefix
    found = dates.find(text, said_on)
    said = {s.label() for _, _, _, s in found}
    rest = text
    for start, end, _, _ in reversed(found):
        rest = rest[:start] + " " + rest[end:]
    rest = re.sub(r"\(\d{4}-\d{2}-\d{2}[^)]*\)", " ", rest)  # the dates annotate() added
    toks = _content(rest)
    numbers: set[str] = set()
    subject: set[str] = set()
    i = 0
    while i < len(toks):
        t = toks[i]
        if t in words.MONTHS and i + 1 < len(toks) and toks[i + 1].isdigit():
            said.add(f"{t} {toks[i + 1]}")
            i += 2
            continue
        if any(ch.isdigit() for ch in t):
            numbers.add(t)
        elif t not in words.MONTHS and t not in _WEEKDAYS:
            subject.add(t)
        i += 1
    return Values(
        frozenset(said),
        frozenset(numbers),
        frozenset(subject),
        _places(rest),
        _phrases(rest),
        superseding.read(text, said_on),
        _subject_phrase(rest),
    )


# Closed classes for reading an English clause: a preposition opens a phrase of its own, an
# auxiliary or copula ends the subject; a determiner opens an object.
_PREPOSITIONS = frozenset(
    "at in on to for with from by of about into onto over under after before until till near via than".split()
)
_AUXILIARIES = frozenset(
    "is are was were 's has have had will would can could should may might must do does did remains stays "
    "got gets been".split()  # "got pushed back": the get-passive
)
_DETERMINERS = frozenset("the a an this that these those our my your their his her its".split())
_LABEL = re.compile(r"^[^:：\d]{1,40}[:：]\s*(?=\S)")  # "Change of venue: …", "Update on Harwood: …" (not "at 10:30")
_LEAD = re.compile(r"^(?:[A-Za-z]+,\s+)+")  # "Actually, …", "OK, so, …"
_CLAUSE_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d[\w:.]*(?:,\d+)*|[,;]")
_PLACE = re.compile(
    r"\b(?P<prep>" + "|".join(sorted(_PREPOSITIONS)) + r")\s+(?:the\s+)?(?P<name>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)"
)


def _main_clause(text: str) -> str:
    text = _LABEL.sub("", text.strip(), count=1)
    return _LEAD.sub("", text, count=1)


def _places(text: str) -> frozenset[tuple[str, str]]:
    """Capitalised names after a preposition, by the preposition: where a thing is held or goes."""
    found = ((m.group("prep"), m.group("name").lower()) for m in _PLACE.finditer(_main_clause(text)))
    return frozenset((prep, name) for prep, name in found if not set(words.tokens(name)) & _DAY_WORDS)


def _subject_phrase(text: str) -> frozenset[str]:
    return next(iter(_phrase_list(text)[:1]), frozenset())


def _phrases(text: str) -> frozenset[frozenset[str]]:
    return frozenset(_phrase_list(text))


def _phrase_list(text: str) -> list[frozenset[str]]:
    """The main clause's subject and object noun phrases: the things a sentence says something
    of ("the summit is now at…", "the court has moved the trial to…"). Read by closed classes:
    the subject ends at the first auxiliary or past form, a prepositional phrase after its head
    is not part of it ("the flight to the offsite"), and after the verb a determiner opens the
    object. English only: a sentence without a Latin clause has none."""
    ws = [w.lower() for w in _CLAUSE_WORD.findall(_main_clause(text))]
    subject: list[str] = []
    i, prepositional = 0, False
    while i < len(ws):
        w = ws[i]
        if w in _AUXILIARIES or (subject and w.endswith("ed")):
            break
        if w in _PREPOSITIONS or w == ",":
            prepositional = True
        elif not prepositional and w not in _DETERMINERS:
            subject.append(w)
        i += 1
    else:
        return []  # no verb read: no clause to take a subject from
    phrases = [subject]
    i += 1
    while i < len(ws) and (ws[i] in _AUXILIARIES or ws[i].endswith(("ed", "en", "ing"))):
        i += 1  # the rest of the verb group: "has moved", "is being held"
    if i < len(ws) and ws[i] in _DETERMINERS:
        obj: list[str] = []
        for w in ws[i + 1 :]:
            if w in _PREPOSITIONS or w in _AUXILIARIES or w == ",":
                break
            obj.append(w)
        phrases.append(obj)
    found = (frozenset(t for w in phrase for t in words.tokens(w)) for phrase in phrases)
    return [p for p in found if p]


_WEEKDAYS = frozenset(words.tokens("monday tuesday wednesday thursday friday saturday sunday"))
_DAY_WORDS = _WEEKDAYS | frozenset(words.MONTHS)  # "on January 14" names a day, not a place


def supersedes(new: Values, old: Values) -> bool:
    """``new`` gives a later value for ``old``'s subject, read either way: by the sentences'
    shape (below), or by their values and meaning whatever the shape (memory.superseding:
    "scratch that, X fell through, so …", 改到…不在…了)."""
    return _superseded(new, [old]) == 0


def _superseded(new: Values, olds: list[Values], latest_first: bool = True) -> int | None:
    """The index of the first of ``olds`` (latest first, or in order) that ``new`` supersedes by
    shape, else the one it supersedes by meaning among the few nearest
    (memory.superseding.superseded), or None."""
    order = reversed(range(len(olds))) if latest_first else range(len(olds))
    by_shape = next(
        (
            i
            for i in order
            if _supersedes_by_shape(new, olds[i]) and not _other_things(new, olds[i]) and _same_kind(new, olds[i])
        ),
        None,
    )
    if by_shape is not None or new.reading is None:
        return by_shape
    judged = [(i, old.reading) for i, old in enumerate(olds) if old.reading is not None and not _narrowed(new, old)]
    found = superseding.superseded(new.reading, [reading for _, reading in judged])
    return judged[found][0] if found is not None else None


def _superseded_in_versions(
    new: Values, olds: list[Values], earlier: list[list[Values]], latest_first: bool = True
) -> int | None:
    """The index of the one of ``olds`` that ``new`` supersedes, judged against each as it stands
    and then against the versions each replaced (``earlier``, by index): a change of a changed
    value is a change of the current one."""
    found = _superseded(new, olds, latest_first)
    if found is not None:
        return found
    flat = [(i, v) for i, vs in enumerate(earlier) for v in vs]
    if not flat:
        return None
    if new.reading is None:
        return None
    # By the values' reading alone (the shape is read against the current version above), and a
    # version counts for the kind of value its current one holds and the new sentence changes:
    # "the capex came in at S$1.2 million" changes no day of the go-live the chain is about.
    judged = [(i, v.reading) for i, v in flat if v.reading is not None and olds[i].reading is not None]
    hit = superseding.superseded(new.reading, [r for _, r in judged])
    if hit is None:
        return None
    head, version = judged[hit][0], judged[hit][1]
    current = olds[head].reading
    assert current is not None
    # Names are left out: a name in an old version is too often what another sentence is about
    # ("…at Fitzroy, 24 guests" after a chain that began "I'm …, head chef … in Fitzroy").
    common = set(superseding.changed_kinds(new.reading, current)) & set(superseding.changed_kinds(new.reading, version))
    return head if common - {"name"} else None


def _same_kind(new: Values, old: Values) -> bool:
    """The shape's reading of a change agrees with the values' reading: the two carry a value of the
    same kind (a day, a time, an amount, a name) that changed. The shape reads any two numbers as
    one kind, so "the budget is €46,000" after "first patient in is planned for 15 March", or "64
    objects in 22 crates" after "the big project this year is …", read as changes by shape alone.
    An amount also needs what it is of in both (a word holding it, or the old amount named): two
    amounts in sentences about one exhibition ("64 objects", "CA$2.1 million") are of two things."""
    if new.reading is None or old.reading is None:
        return True  # nothing read: the shape decides alone, as it did
    kinds = superseding.changed_kinds(new.reading, old.reading)
    if kinds != ["amount"]:
        return bool(kinds)
    return (
        superseding.same_holder(new.reading, old.reading, kinds)
        or superseding.names_old_value(new.reading, old.reading, "amount")
        or (bool(new.subject_phrase) and new.subject_phrase <= old.subject and _near(new.reading, old.reading, kinds))
    )


def _near(new: superseding.Reading, old: superseding.Reading, kinds: list[str]) -> bool:
    """The subject's words are the old one's ("the budget" of "our hiring budget"), and the two, their
    values masked, are about the same thing in broad terms: "the ship model is … three metres long"
    after "…CA$2.1 million now because they're adding the whaling ship model" is not."""
    cos = superseding.closeness(new, old, kinds)
    return cos is None or cos >= superseding.SAME_THING_NAMING_OLD


def _other_things(new: Values, old: Values) -> bool:
    """Every name changed with the value ("The Helix launch is set for December 30" after "The
    Willow launch is set for December 23"): another thing, however alike the words."""
    return bool(new.reading and old.reading and superseding.other_things(new.reading, old.reading))


def _narrowed(new: Values, old: Values) -> bool:
    """ "The offsite dinner is on the 13th" after "The offsite is on the 14th": the new subject is
    the old one narrowed, another thing, however close the two sentences mean."""
    return bool(old.subject_phrase) and old.subject_phrase < new.subject_phrase


def _supersedes_by_shape(new: Values, old: Values) -> bool:
    """``new`` gives a later value for ``old``'s subject: they are about the same
    thing (every word of ``new``'s subject or object noun phrase is one of
    ``old``'s: "the summit" after "the Nordic Fintech Summit", not "Priya's
    hiring budget" after "the Q3 budget"; or at least two subject words are
    shared, half of the shorter sentence's) and carry the same kind of value
    (a date, a number, a name after the same preposition), changed."""
    shared = new.subject & old.subject
    shorter = min(len(new.subject), len(old.subject))
    same_words = len(shared) >= 2 and len(shared) / shorter >= SAME_SUBJECT
    if not (same_words or any(phrase <= old.subject for phrase in new.phrases)):
        return False
    for kind in ("dates", "numbers"):
        a, b = getattr(new, kind), getattr(old, kind)
        if a and b and a != b:
            return True
    old_preps = {prep for prep, _ in old.places}
    return any(prep in old_preps and (prep, name) not in old.places for prep, name in new.places)


def unchanged_part(old_text: str, new: Values, old: Values) -> str:
    """What of ``old_text`` a change leaves standing: its clauses that hold none of the values the
    new sentence replaced. "Our gala is on December 5, and we're planning for 180 guests" after
    "the guest count is 240" still says when the gala is. Empty when every clause held one."""
    if new.reading is None or old.reading is None:
        return ""
    changed = {k: old.reading.of(k) for k in superseding.changed_kinds(new.reading, old.reading)}
    body = re.sub(r"^\s*\d{4}-\d{2}-\d{2}\s*:\s*", "", old_text)
    said_on = date.today()
    pieces = _BREAKS.split(body)
    kept: list[str] = []
    for i in range(0, len(pieces), 2):
        clause = pieces[i]
        held = superseding.read(clause, said_on)
        if any(held.of(k) & values for k, values in changed.items()) or not clause.strip():
            continue
        kept.append((pieces[i - 1] if kept and i else "") + _COORDINATOR.sub("", clause.strip()))
    if len(kept) == (len(pieces) + 1) // 2:
        return ""  # no clause held the value (read whole, not by clause): nothing to split off
    text = "".join(kept).strip(" ,.;。，")
    if not text or not informative(text):
        return ""
    return text[0].upper() + text[1:] + ("" if words.has_cjk(text[-1]) else ".")


# Asking someone, in both languages (a closed class): 帮我, 请, 麻烦, "please", "can you".
_ASKED = re.compile(r"帮|请|麻烦|替我|给我|\bplease\b|\b(?:can|could|would|will)\s+you\b|\blet'?s\b", re.I)
# A third-person pronoun opening a sentence points back at what the sentence before it named
# ("Dr. Vogel is the PI; her email is …"): alone, the fact would not say whose.
_ANAPHOR = re.compile(r"^(?:he|she|it|they|his|her|its|their|him|them|he's|she's|it's|they're)\b|^(?:他|她|它)", re.I)


# A sentence that opens with an address (an e-mail, a phone number, a link) gives it for what the
# sentence before it named ("My partner is Tom Keane. tom@example.org"): alone, it says not whose.
_ADDRESS = re.compile(r"^(?:[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\+?\d[\d ()-]{6,}\d|https?://\S+)")


def _with_antecedents(said: list[str]) -> list[str]:
    """The sentences of one message, each one opening with a pronoun or an address joined to the one
    before it."""
    out: list[str] = []
    for sentence in said:
        leans = _ANAPHOR.match(sentence.strip()) or _ADDRESS.match(sentence.strip())
        if out and leans and not is_question(sentence) and not is_question(out[-1]):
            out[-1] = out[-1].rstrip() + " " + sentence.strip()
        else:
            out.append(sentence)
    return out


# ---------------------------------------------------------------- SOUL
# SOUL takes the sentences memory.soul.read_wishes reads as wishes about how kept talks: the rules'
# readings ("call me Sasha", "keep your answers short", "I can't stand bullet points") as they are,
# and the general reading's candidates (said to kept about the person, near a kind of treatment in
# meaning), which the model confirms under the schema grammar when the pass has one. The model does
# not judge what the rules read: it answered at chance (9 of 16) on a mixed English/Chinese set of
# 8 wishes and 8 requests to act, saying no to "Never use emoji with me", so a check of those would
# only drop wishes at random. SOUL is the person's own sentence either way, never the model's text,
# less an opening request to act on a named person or a particular text (memory.soul.wish_text: "fix
# the flaky test in ci.yml, and btw … Sunny is what I answer to"), since SOUL is in every prompt.


def _soul_line(sentence: str) -> str:
    return "- " + soul.wish_text(sentence.strip()).rstrip(".!。！") + "."


# ---------------------------------------------------------------- MEMORY


def computed_memory(db, *, new_facts: list[reconcile.FactCandidate], today: date, cap: int) -> str:
    """MEMORY from the store: who they are, what they asked for, open promises, the last days."""
    from memory import promises

    active = fact_log.by_status(db, fact_log.ACTIVE)
    texts = [(f.said_on, f.text) for f in active] + [(c.said_on, c.text) for c in new_facts]
    first_person = [t for d, t in texts if re.match(r"\s*(i'm|i am|my name|i work|i run|i lead|我是|我叫)\b", t, re.I)]
    who = "\n".join(f"- {t}" for t in first_person[:3])
    asked = "\n".join(f"- {line}" for line in _actions(db)[-5:])
    try:
        open_promises = [promises.describe(p, today) for p in promises.list_promises(db)][:5]
    except Exception:  # a store without the promises table yet
        open_promises = []
    keep = "\n".join(f"- {p}" for p in open_promises)
    since = (today - timedelta(days=LATELY_DAYS)).isoformat()
    recent = sorted(((d, t) for d, t in texts if d >= since and t not in first_person), reverse=True)
    lately = "\n".join(f"- {d}: {t}" for d, t in recent[:8])
    text, _overflow = summary.fit({"who": who, "asked": asked, "keep": keep, "lately": lately}, cap, today.isoformat())
    return text  # what did not fit is in the fact log already: nothing moves out


def _actions(db) -> list[str]:
    """The actions kept took for the person, from the stored tool results."""
    rows = db.conn.execute(
        "SELECT author, text, at, meta FROM messages WHERE role = 'tool' ORDER BY id DESC LIMIT 40"
    ).fetchall()
    out = []
    for r in reversed(rows):
        name = r["author"]
        meta = json.loads(r["meta"]) if r["meta"] else {}
        if name.startswith(("list_", "search_", "get_", "find_")) or meta.get("is_error"):
            continue
        try:
            result = json.loads(r["text"])
        except ValueError:
            continue
        if not isinstance(result, dict):
            continue
        what = result.get("title") or result.get("body") or ""
        who = result.get("to") or result.get("assignee") or ", ".join(result.get("attendees") or [])
        out.append(f"{r['at'][:10]}: {name.replace('_', ' ')}: {str(what)[:60]}" + (f" ({who})" if who else ""))
    return out


# ---------------------------------------------------------------- the plan


def read(db, batch: list, *, cap: int, today: date, llm=None) -> Written:
    """Facts, SOUL and MEMORY for ``batch`` (stored messages), planned; nothing written. ``llm``,
    when given, only confirms the candidates of SOUL's general reading (memory.soul.read_wishes)."""
    decisions: list[Decision] = []
    said: list[tuple[int, str, str, bool]] = []  # (message id, date, sentence, is a request)
    persons = [m for m in batch if m.role == "user" and m.author in ("me", "")]
    read_out = [(m, list(enumerate(_with_antecedents(sentences(m.text))))) for m in persons]
    wishes = soul.read_wishes(
        [((m.id, i), s, m.text) for m, ss in read_out for i, s in ss if not contains_secret(s)], llm
    )
    for m, ss in read_out:
        for i, s in ss:
            if contains_secret(s):
                decisions.append(Decision(m.id, "[a sentence with a credential]", "dropped", "holds a credential"))
            elif (m.id, i) in wishes:  # a wish asked as a question ("can u answer in english?") too
                said.append((m.id, m.at[:10], s, True))
            elif is_question(s):
                decisions.append(Decision(m.id, s, "dropped", "a question"))
            elif is_request(s) and not (act(s) == STATEMENT and not _ASKED.search(s)):
                # Asked of kept, not said of the world: a tool call does it, and its result is kept.
                # (A sentence that reads as a statement whole, where only a clause has the shape of
                # a request and nothing asks anyone, is a report: "X又推迟了，改到4月12号" tells
                # what was moved where; it is kept as said.)
                told = world_clauses(s)
                why = "a request to act" + ("; what it states of the world is kept" if told else "")
                decisions.append(Decision(m.id, s, "dropped", why))
                said.extend((m.id, m.at[:10], c, False) for c in told)
            else:
                said.append((m.id, m.at[:10], s, False))

    # SOUL: the wishes about how kept talks to the person, in their words.
    old_soul = soul.current(db)
    new_soul = old_soul
    treatment: set[tuple[int, str]] = set()
    for mid, _, s, wish in said:
        if not wish:
            continue
        treatment.add((mid, s))
        line = _soul_line(s)
        if line in new_soul:
            decisions.append(Decision(mid, s, "dropped", "already in SOUL"))
        else:
            new_soul = (new_soul.rstrip() + "\n" + line).strip()
            decisions.append(Decision(mid, s, "soul", "a wish about how kept talks to the person"))

    # Facts: every other informative sentence, in the order said.
    fplan = reconcile.FactsPlan()
    active = {f.id: f for f in fact_log.by_status(db, fact_log.ACTIVE)}
    known = [(f.id, values(f.text, date.fromisoformat(f.said_on)), f.said_on) for f in active.values()]
    # What each current fact replaced: a later change is judged against every version, since a
    # version may name what the latest leaves out ("First patient in for the Vela trial is …", then
    # "Heads up: first patient in moves to …", then "Vela 的首例入组又推迟了…").
    versions: dict[int, list[Values]] = {}  # by fact id, or by id() of a candidate planned in this pass
    for f in active.values():
        if f.replaces:
            versions[f.id] = [values(v.text, date.fromisoformat(v.said_on)) for v in fact_log.lineage(db, f.id)[:-1]]
    rests: list[reconcile.FactCandidate] = []  # what changes left standing of the facts they replaced
    planned: list[tuple[reconcile.FactCandidate, Values]] = []
    for mid, said_on, s, _ in said:
        if (mid, s) in treatment and not given_name(s):
            continue  # a wish about treatment is SOUL's; one that also says who they are is a fact too
        if not informative(s):
            decisions.append(Decision(mid, s, "dropped", "too little in it to be a fact"))
            continue
        ref = date.fromisoformat(said_on)
        text = dates.annotate(" ".join(s.split()), ref)
        if fact_log.find_same(db.conn, fact_log.dated(text, said_on), said_on) is not None or any(
            c.text == text and c.said_on == said_on for c, _ in planned
        ):
            fplan.already_kept += 1
            decisions.append(Decision(mid, text, "dropped", "already stored"))
            continue
        candidate = reconcile.FactCandidate(text, said_on, [mid])
        mine = values(text, ref)
        earlier = _superseded_in_versions(
            mine, [v for _, v in planned], [versions.get(id(c), []) for c, _ in planned], latest_first=False
        )
        replaced_versions: list[Values] = []
        if earlier is not None:  # a later value within this batch: only the latest is stored
            replaced, replaced_values = planned.pop(earlier)
            replaced_versions = [replaced_values, *versions.get(id(replaced), [])]
            fplan.adds = [c for c in fplan.adds if c is not replaced]
            fplan.updates = [(i, c) for i, c in fplan.updates if c is not replaced]
            rest = unchanged_part(replaced.text, mine, replaced_values)
            decisions.append(
                Decision(replaced.source_ids[0], replaced.text, "dropped", f"a later message (#{mid}) changed it")
                if not rest
                else Decision(replaced.source_ids[0], rest, "fact", f"the rest of a sentence #{mid} changed")
            )
            if rest:
                rests.append(reconcile.FactCandidate(rest, replaced.said_on, replaced.source_ids))
        earlier_known = [(fid, v) for fid, v, on in known if on <= said_on]
        found = _superseded_in_versions(
            mine, [v for _, v in earlier_known], [versions.get(fid, []) for fid, _ in earlier_known]
        )
        if found is not None:
            old, old_values = earlier_known[found]
            fplan.updates.append((old, candidate))
            was = active[old]
            rest = unchanged_part(was.text, mine, old_values)
            if rest:
                rests.append(reconcile.FactCandidate(rest, was.said_on, was.source_ids))
                decisions.append(Decision(mid, rest, "fact", f"the rest of fact #{old}, which this changed"))
            known = [k for k in known if k[0] != old]
            replaced_versions += [old_values, *versions.get(old, [])]
            decisions.append(Decision(mid, text, f"supersedes #{old}", "same subject, a changed value"))
        else:
            fplan.adds.append(candidate)
            decisions.append(Decision(mid, text, "fact", ""))
        planned.append((candidate, mine))
        if replaced_versions:
            versions[id(candidate)] = replaced_versions
    fplan.adds.extend(rests)
    fplan.candidates = len(planned) + fplan.already_kept

    memory_text = computed_memory(db, new_facts=[c for c, _ in planned], today=today, cap=cap)
    splan = summary.SummaryPlan(memory_text, new_soul if new_soul != old_soul else None, [])
    return Written(splan, fplan, sorted(decisions, key=lambda d: d.message_id))


# ---------------------------------------------------------------- the stage (memory/stages.py)

NAME = "facts"  # it does the summary and facts stages' work: reported where theirs is
DOING = "reading facts, SOUL and MEMORY in code"


def plan(db, batch: Batch | list, llm, today: date) -> Written:
    messages = messages_of(batch)
    cap = batch.cap if isinstance(batch, Batch) else 0
    written = read(db, messages, cap=cap or 1500, today=today, llm=llm)  # a call only to confirm SOUL candidates
    if isinstance(batch, Batch):
        written.facts.max_active = batch.max_active or None
    if messages:
        written.summary.why = f"write pass in code over messages {messages[0].id}-{messages[-1].id}"
    return written


def apply(conn, plan: Written) -> dict[str, Any]:
    counts = summary.apply(conn, plan.summary) | reconcile.apply(conn, plan.facts)
    counts["decisions"] = [d.line() for d in plan.decisions]
    return counts


def for_turn(db, text: str, today: date | None = None) -> list[str]:
    return reconcile.for_turn(db, text, today)
