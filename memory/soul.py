"""SOUL: only what the person asked for about how to be treated.

Name or nickname, tone, format rules ("no bullet points"), language. The
default persona lives in code (agent/context.py) and never in this note, so
no rewrite can erase it. The note is always in the prompt, so it stays short.
Every version is kept in ``notes``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
from collections.abc import Hashable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

import sqlite_utils

from memory import notes
from memory.db import transaction
from memory.secrets import redact
from memory.text.nicknames import ZH_CALLED_ME
from memory.text.script import quotes_original, reads_simplified
from memory.text.words import has_cjk

MIGRATIONS: list = []  # SOUL is stored in memory.notes

K = TypeVar("K", bound=Hashable)
MAX_CHARS = 2000  # always in the prompt: a long SOUL would crowd out everything else


class SoulTooLong(ValueError):
    pass


def current(db: sqlite_utils.Database) -> str:
    note = notes.latest(db, notes.SOUL)
    return note.text if note else ""


def render(db: sqlite_utils.Database) -> str:
    """The SOUL note as it goes into the prompt; empty when nothing was asked."""
    return current(db).strip()


def clean(text: str) -> str:
    """Redacted, trimmed, refused when longer than ``MAX_CHARS``."""
    text = redact(text).strip()
    if len(text) > MAX_CHARS:
        raise SoulTooLong(f"SOUL is {len(text)} characters; keep it under {MAX_CHARS} (it is in every prompt)")
    return text


def save(conn, text: str, reason: str) -> int | None:
    """Store a new version inside the caller's transaction (None when unchanged)."""
    return notes.save(conn, notes.SOUL, clean(text), reason)


def set_text(db: sqlite_utils.Database, text: str, reason: str = "edited by the person") -> bool:
    """Replace SOUL with ``text``; True when a new version was stored."""
    with transaction(db) as conn:
        return save(conn, text, reason) is not None


def history(db: sqlite_utils.Database) -> list[notes.Note]:
    return notes.history(db, notes.SOUL)


# ---------------------------------------------------------------- wishes about treatment
#
# memory.text.acts.about_talk reads requests shaped as requests ("call me Sasha", "keep your
# answers short"). People also state the same wishes as facts about themselves or about
# others ("everyone calls me Maggie, so please do too", "I can't stand bullet points",
# 大家都叫我阿琪，你也这么叫我吧). These read them by two closed classes each, not by phrasings:
#
# - how the person is addressed: a verb of naming (call, go by, 叫, 称呼) with the person as
#   its object and a name after it;
# - how kept's text looks: the person's wish (an attitude or a directive: prefer, hate, can't
#   stand, never, always, keep, use, no; 别, 不要, 请, 用, 喜欢) about kept's output (your
#   answers, replies; 回复, 回答) or about a unit of written form (bullet points, tables, emoji,
#   bold, headings, paragraphs, sentences, lines; 表格, 要点, 段落, 列表, 表情). The units are the
#   parts any text is made of, named once for all wishes, not words lifted from one.
#
# A statement of the person's own doings that names a unit ("I wrote three paragraphs today")
# carries no wish marker, so it stays a fact.

# The naming verbs as people type them in chat too: a letter dropped or doubled ("cal me", "adress
# me") leaves a string that is no other word, so it can only be the verb.
_NAMED_AS = re.compile(
    r"\b(?:cal{1,3}(?:s|ed|ing)?|ad{1,2}res{1,2}(?:es)?)\s+me\s+(?:as\s+|by\s+)?[\"'“]?[A-Z\u4e00-\u9fff]|\bnickname\s+is\s+[A-Z]"
)
_GOES_BY = re.compile(r"\bI\s+(?:go|usually\s+go)\s+by\s+[A-Z]")  # the name they use: for kept too
# A name everyone uses is the name to use: a universal subject of the naming verb (a closed class of
# quantifiers), unlike one person's usage ("my mother calls me Peggy"), which stays a fact.
_EVERYONE = re.compile(
    r"\b(?:everyone|everybody|all|people|most\s+people|they\s+all)\s+(?:\w+\s+)?call(?:s)?\s+me\b", re.I
)
# (A name in Latin letters is typed with a space before it as often as not: 叫我 Gavin.)
_NAMED_AS_ZH = re.compile(ZH_CALLED_ME + r"\s?[\u4e00-\u9fffA-Za-z]")
# The same universal subjects in Chinese (大家 / 所有人 / 人人, everyone): the name everyone uses.
_EVERYONE_ZH = re.compile(r"(?:大家|所有人|人人|谁都)都?" + ZH_CALLED_ME)
_OUTPUT = re.compile(
    r"\b(?:bullet(?:s|\s+points?)?|numbered\s+lists?|lists?|tables?|emojis?|emoticons?|bold|italics?|"
    r"headings?|headers?|markdown|paragraphs?|sentences?|lines?|capitals|all\s+caps|exclamation\s+marks?|"
    r"jargon|waffle|small\s+talk|answers?|repl(?:y|ies)|responses?|tone)\b",
    re.I,
)
_OUTPUT_ZH = re.compile(r"回复|回答|表格|要点|段落|列表|表情|加粗|粗体|标题|长篇|啰嗦|废话")
# kept's replies themselves, named.
_REPLIES = re.compile(
    r"\b(?:answers?|repl(?:y|ies)|responses?)\b|\b(?:answer|reply|respond|talk|write|speak)(?:ing)?\s+(?:to\s+)?me\b|"
    r"回复|回答",
    re.I,
)
# Whose text it is: kept's ("your replies", "when you summarize", "with me", "for me").
_KEPTS = re.compile(r"\byour\b|\byou\b|\b(?:with|for|to)\s+me\b", re.I)
# A directive opening the sentence, or the person's attitude towards the unit.
_DIRECTIVE = re.compile(
    r"^(?:and\s+|also\s+|but\s+|so\s+)?(?:please\s+)?(?:always|never|keep|use|stick|avoid|skip|no|don'?t|"
    r"do\s+not|just|only|be|please)\b",
    re.I,
)
_ATTITUDE = re.compile(
    r"\bI\s+(?:really\s+)?(?:prefer|hate|dislike|can'?t\s+stand|cannot\s+stand|love|like|want|need)\b"
)
_WISH = re.compile(r"\b(?:please|pls|plz|prefer|rather|always|never|no|without|instead|at\s+most|too)\b", re.I)
_WISH_ZH = re.compile(r"别|不要|请|麻烦|用|喜欢|讨厌|希望|最好|尽量")  # 麻烦 (你) is 请's politer twin
# A particular text the sentence works on ("format this as a list", 列一下这篇文章的要点): a task.
# "like this" / "such as this" name a kind ("bullet points for anything like this"), not one text.
_THIS_TEXT = re.compile(
    r"(?<!\blike\s)(?<!\bas\s)\b(?:this|these|that|the\s+following)\b(?!\s+(?:way|time|week|year))"
    r"|这篇|这个|这份|这段|以下|下面",
    re.I,
)
_ADDRESSED_ZH = re.compile(r"你|您|请|吧|就行|以后")
# English asks politely with a modal question to "you" ("Could you call me Bex?", "Would you mind
# using bullet points with me?"): a closed class of openings. The rest is read as the directive it
# asks for, by the rules a directive meets ("keep your answers short", "call me Bex").
_ASKED_OF_KEPT = re.compile(
    r"^(?:and\s+|also\s+|so\s+)?(?:please\s+)?(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:just\s+)?"
    r"(?:(?:be\s+able\s+to|mind)\s+)?",
    re.I,
)


def _base_form_first(clause: str) -> str:
    """``clause`` with an opening -ing verb in its base form ("using bullet points" → "use bullet
    points"), from the lemminflect lexicon, so it reads as the directive it asks for."""
    first, _, rest = clause.partition(" ")
    if not first.lower().endswith("ing"):
        return clause
    from lemminflect import getLemma

    lemma = getLemma(first.lower(), upos="VERB")
    return f"{lemma[0]} {rest}".strip() if lemma else clause


_SHAPING = re.compile(r"^(?:answer|reply|respond|write|talk|speak|stop)\b", re.I)
_LATIN_RUN = re.compile(r"[A-Za-z][A-Za-z0-9 ,'’-]*[A-Za-z0-9]")  # an English stretch of a mixed sentence


def wished_treatment(sentence: str, message: str = "") -> bool:
    """Whether ``sentence`` tells how kept should address the person or shape its replies,
    phrased as a request (memory.text.acts.about_talk) or as a statement of the wish.
    ``message``, the whole message the sentence is part of, lets a short form of the name the
    person introduces themself by count as the name to use, however it is put
    (memory.text.nicknames)."""
    from memory.text.acts import about_talk, act, is_question
    from memory.text.nicknames import nickname, offered_name

    if about_talk(sentence):
        return True
    if message and not is_question(sentence) and nickname(sentence, message):
        return True
    if not is_question(sentence) and offered_name(
        sentence, message, bidden=any(bidden(c) for c in _CLAUSES.split(sentence) if c and c.strip())
    ):
        return True  # "just Dez is fine", "go with Mina", "it's Trixie, not Beatrice"
    s = sentence.strip()
    modal = _ASKED_OF_KEPT.match(s)
    if modal and not (_THIS_TEXT.search(s) and not _NAMED_AS.search(s)):
        # The directive the question asks for, as a directive: "Could you keep it short?" is
        # "keep it short"; "Would you mind using…" is "use…".
        rest = s[modal.end() :].rstrip("?？ ").strip()
        rest = _base_form_first(rest)
        # What it asks done to a particular text or person ("reply to the Harlow email", "write to
        # Anna") is a task, however it is shaped.
        directed = (_DIRECTIVE.search(rest) or _SHAPING.match(rest)) and not _acts_on_someone(rest)
        # "call me Bex", "address me as Dr. Okafor": a name after it, not "call me when it's ready".
        if re.match(r"(?:call|address)\s+me\s+(?:as\s+)?[\"'“]?[A-Z]", rest) or (directed and _OUTPUT.search(rest)):
            return True
        if _SHAPING.match(rest) and re.match(r"\w+\s+(?:me|back)\b", rest, re.I):
            return True  # "answer me in French", "write back in short paragraphs"
    naming = bool(_NAMED_AS.search(s) or _NAMED_AS_ZH.search(s) or _GOES_BY.search(s))
    # "that" after a name given is the name ("Everyone calls me Greta, so go with that"), not a text.
    if is_question(sentence) or (_THIS_TEXT.search(sentence) and not naming):
        return False  # a task on a particular text ("format this as a list"), not how kept talks
    if act(s) == "request" and not (_NAMED_AS.search(s) or _NAMED_AS_ZH.search(s) or _REPLIES.search(s)):
        return False  # a request to act ("book a table for two"), not about kept's replies
    if _GOES_BY.search(s):
        return True
    if _NAMED_AS.search(s):  # "everyone calls me Maggie": a wish for kept when it asks it of kept too
        return bool(_WISH.search(s) or _KEPTS.search(s.split("me", 1)[1]) or _EVERYONE.search(s))
    if _NAMED_AS_ZH.search(s):
        return bool(_ADDRESSED_ZH.search(s) or _EVERYONE_ZH.search(s))
    # A taste held by someone else (他喜欢看表格) is theirs: the person's own wish has no third party.
    if _OUTPUT_ZH.search(s) and _WISH_ZH.search(s) and not _THIRD_PARTY.search(s):
        return True
    # A mixed sentence ("回复keep it to two lines max, 我在手机上看"): its English runs are read as
    # the English clauses they are, by the same rules.
    for part in _LATIN_RUN.findall(s) if has_cjk(s) else [s]:
        part = part.strip(" ,.;")
        if _OUTPUT.search(part) and (
            _DIRECTIVE.search(part) or _ATTITUDE.search(part) or (_KEPTS.search(part) and _WISH.search(part))
        ):
            return True
    return False


_JOINED = re.compile(r",?\s+(?:and|then|also)\s+", re.I)  # clauses joined without a comma ("call me Dot and book…")


@reads_simplified
def only_treatment(text: str) -> bool:
    """Whether every sentence of ``text`` that asks kept to act (memory.text.acts.asks_to_act)
    only says how kept is to treat the person: a wish ``wished_treatment`` reads, or one said
    as a directive (no question mark) near a kind of treatment by ``treatment_kind``.

    An introduction that closes with "跟我说话简单点儿，别弄那些加粗的格式" or "One rule: write every
    time in 24-hour format" has an imperative in it, and no tool does what it asks: read as a
    request to act, it offered the embedded model its acting tools and a first reply of "Not
    done (schedule meeting): …". The wish goes to SOUL through the write pass as before. A
    question-shaped request ("Would you add 'call the bank' to my tasks?") is left to acts: the
    cosine reading is loose on those, and the grammar one reads a wish asked as a question."""
    from datetime import date

    from memory.text import dates
    from memory.text.acts import asks_to_act, asks_to_assign, asks_to_tell, sentences

    def wish(sentence: str) -> bool:
        if not (
            wished_treatment(sentence, text)
            or (not sentence.rstrip().endswith(("?", "？")) and bool(treatment_kind(sentence)))
        ):
            return False
        # A wish and an order in one sentence ("Call me Dot and book the audit with Kasia for
        # Friday at 10"): a clause that acts on someone named, or in the shape of one of kept's
        # acts (telling someone, handing work over, something on a day), is an order, whatever
        # the wish beside it. ("24-hour format" names no day.)
        return not any(
            asks_to_act(c)
            and (_acts_on_someone(c) or asks_to_tell(c) or asks_to_assign(c) or dates.find(c, date.today()))
            for c in _CLAUSES.split(sentence) + _JOINED.split(sentence)
            if c and c.strip()
        )

    acting = [text[a:b] for a, b in sentences(text) if asks_to_act(text[a:b])]
    return bool(acting) and all(wish(s) for s in acting)


# ---------------------------------------------------------------- a general reading, confirmed
#
# The rules above are closed readings: on wishes written by people who did not write them they
# found 20 of 43. A wish about treatment has two general marks, whatever its wording: it is said
# to kept about the person (addressed: "you", "your", "u", or the person as the one who receives:
# "me", 回我 / 给我 / 跟我, or a clause said to kept by its mood, below), with no third party who
# receives instead (he, him, her, 他, 她) and no particular text it works on, and it is about how
# kept addresses, formats, sounds, which language or how long. The second is read by the form a
# clause gives kept's text (a unit of written form as its manner, below) or by meaning
# (all-MiniLM-L6-v2, memory/meaning.py) against one description of each kind of
# treatment, Chinese through its CC-CEDICT English (memory/text/bilingual.py). A sentence with both
# marks that the rules did not read is a candidate only: where a model is given, it confirms each
# under the schema grammar; SOUL takes the person's sentence, never the model's text.

KINDS = {
    "name": "how you should address me or call me by name",
    "format": "how you should format your replies to me: bullet points, tables, markdown, numbered steps",
    "tone": "the tone you should take when you talk to me: formal, blunt, warm, no emoji",
    "language": "which language you should answer me in",
    "length": "how long or short your answers to me should be",
}
NEAR_KIND = 0.35  # cosine to the nearest kind's description; look-alikes about others' texts sit near it too
# The second person, in its chat spellings too (u, ur, ya, yr): one closed class of pronouns.
_ADDRESSED = re.compile(r"\b(?:you|your|yours|you're|u|ur|ya|yr|me)\b", re.I)
_ADDRESSED_TO_ME_ZH = re.compile(r"[你您]|(?:回|复|给|叫|呼|跟|对|和)我")
# The verbs of naming with the person as their object, and the nouns of naming, a closed class; "我叫…"
# (I am called…) introduces the person, a fact, as "I'm Sasha" does.
_NAMING_ZH = re.compile(ZH_CALLED_ME + r"|名字|英文名|中文名")
_GREETING_ZH = re.compile(r"^\W*(?:你好|您好|你们好|大家好)(?:呀|啊)?")  # a greeting says "you" to no purpose
_THIRD_PARTY = re.compile(r"\b(?:he|she|him|her|his|hers)\b|[他她]", re.I)  # "they" is as often a thing

# Said to kept without a pronoun. A sentence needs no "you" to be said to kept: the imperative is the
# second person's mood ("keep it short", "number the steps"), "please" asks the one who is listening
# ("tl;dr version only please"), and a rule for every later reply is a rule for the one who replies
# ("bullet points from here on", "two lines max per reply"). Each is a closed class of grammar (the
# verb's base form opening a clause, after a discourse marker at most; the politeness word; the
# quantifiers and time phrases of a standing rule), not a wording: they read any wish put that way.
# Chinese has the same moods by particles: 请 / 麻烦 ask, 别/不要/不用 opening a clause forbid, 吧 / 就行 /
# 就好 close a suggestion, and 以后 / 每次 / 凡是 make a standing rule; they are grammar words of
# request and of rule, not adverbs of one sentence.
_CLAUSES = re.compile(r"\s*(?:[,;:–—]|\s-\s|\bso\b|\bbut\b)\s*", re.I)
_OPENER = re.compile(
    r"^(?:(?:and|also|but|so|then|just|please|pls|plz|kindly|oh|btw|ok|okay|honestly|now)\b[\s,]*)+", re.I
)
_PLEASE = re.compile(r"\b(?:please|pls|plz)\b", re.I)
# What a verb takes after it and an adjective does not: an object pronoun, a determiner, a particle.
_VERB_TAKES = frozenset("it them me us this that these those the a an your my up out down off".split())
_NOT_A_BASE_VERB = frozenset(("i", "it", "its", "we", "they", "there", "here", "this", "that", "the", "a", "an"))
# 请 / 麻烦 / 劳驾 are Chinese's "please"; its standing rule (以后 / 今后 / 每次 / 凡是 / 一律: "from now on",
# "every time", "whatever", "without exception") is memory.text.acts.habitual's, as the English one is.
_BIDS_ZH = re.compile(r"请|麻烦|劳驾|^(?:[^，,。]{0,4})?(?:别|不要|不用)|(?:吧|就行|就好|就可以)[。！!，,]?$")


def _standing(text: str) -> bool:
    """A habitual frame or a quantifier over occasions anywhere in ``text`` (memory.text.acts.habitual,
    its ``ANYWHERE`` scope): a rule for every later reply is said to the one who replies."""
    from memory.text.acts import ANYWHERE, habitual

    return habitual(text, ANYWHERE)


# A particular text or person the clause works on, when nothing else says it is addressed: a determiner
# or a possessive before a noun ("the quarterly report", "our VP"), a name ("Send Ana…", "README"),
# a file. A standing rule overrides the determiner ("number the steps" for any how-to).
_DETERMINED = re.compile(r"\b(?:the|this|that|these|those|my|our|his|her|their)\s+\w", re.I)
_UNIT = r"(?:bullet(?:s|\s+points?)?|lists?|tables?|paragraphs?|sentences?|lines?|headings?|blocks?|markdown|prose|steps|formats?)"
_AS_FORM = re.compile(rf"\b(?:in|as|into)\s+(?:a\s+|an\s+|one\s+|\w+\s+)?(?:[\w-]+\s+)?{_UNIT}\b", re.I)
# A clause with no verb that names a form ("bullet points from here on", "two lines max per reply"):
# the form itself is what is asked, when the clause is said as a standing rule or with "please".
# Kept's replies named so ("short answers please") are the same: a form of kept's text is asked.
_FORM_HEAD = re.compile(rf"^(?:no\s+|only\s+)?(?:[\w-]+\s+)?(?:{_UNIT}|answers|replies|responses)\b", re.I)
# A noun and its number name one item ("slide 4", "ticket 12"), a particular text; a number after a
# preposition ("under 50 characters") is a bound.
_NUMBERED = re.compile(
    r"\b(?!(?:under|over|than|at|by|in|on|to|for|of|about|around|from|until|up|max|within|after|before)\b)"
    r"[a-z]+\s+#?\d+\b",
    re.I,
)
_FILE = re.compile(r"\w\.(?:[a-z]{2,4})\b")


def _base_verb(word: str) -> bool:
    """Whether ``word`` is a verb's base form in the lemminflect lexicon ("keep", "number", "put")."""
    from lemminflect import getAllLemmas

    w = word.lower()
    return w not in _NOT_A_BASE_VERB and w in getAllLemmas(w).get("VERB", ())


# A taste of the person's own, in the first person ("I hate small talk", "I'd rather have the long
# explanation", 我这人不喜欢客套, 我看不惯 am/pm): told to their assistant, it is said to kept when it is
# about a kind of treatment (the meaning reading decides that). The verbs of liking, disliking and
# preferring are a closed class of both languages; a third party's taste (他喜欢看表格) and a
# particular text are left out by the reading's other marks.
_PREFERS = re.compile(
    r"\b(?:i|i'm|i am)\s+(?:\w+\s+){0,2}?(?:like|love|hate|prefer|dislike|detest|can't\s+stand|cannot\s+stand|enjoy)\b"
    r"|\bi(?:'d|\s+would)\s+(?:much\s+)?(?:rather|prefer|like|love|appreciate)\b",
    re.I,
)
_PREFERS_ZH = re.compile(
    "我(?:这人|这个人|个人|本人)?(?:比较|最|很|特别|真的|一向|向来|从来|一直)?(?:不|不太|很不)?(?:喜欢|爱|讨厌|受不了|看不惯|烦|习惯|偏好)"
)


def _prefers(sentence: str) -> bool:
    """A taste the person states (not asks about: "how do I like my notes formatted?" asks)."""
    from memory.text.acts import is_question

    s = sentence.replace("’", "'")
    return bool(_PREFERS_ZH.search(s) if has_cjk(s) else _PREFERS.search(s)) and not is_question(s)


@reads_simplified
def bidden(clause: str) -> bool:
    """Whether ``clause`` is said to kept by its mood alone: an imperative, "please", a standing rule
    (English), or a Chinese request particle."""
    c = clause.strip()
    if has_cjk(c):
        return bool(_BIDS_ZH.search(c)) or _standing(c)
    if _PLEASE.search(c) or _standing(c):
        return True
    body = _OPENER.sub("", c)
    words = re.findall(r"[A-Za-z][\w'’-]*", body)
    # A verb with something after it: a lone word ("short.") is an adjective as often as a verb.
    if len(words) < 2 or not _base_verb(words[0]) or words[1].lower() in ("is", "are", "was", "were"):
        return False
    # A word that is an adjective too opens an imperative only before what a verb takes (its object or
    # particle: "lay it out", "clean the list up"); before a noun it is the noun's adjective ("Long day.").
    from lemminflect import getAllLemmas

    first = words[0].lower()
    if first in getAllLemmas(first).get("ADJ", ()):
        return words[1].lower() in _VERB_TAKES
    return True


# A name as what a verb acts on or whom it is for ("remind me to call Jo", "reply to the Harlow email
# for me", "send it to Anna"): the person or text a task is about. A name after "me" or "as" is the
# name asked for ("address me as Dr. Haldane").
_NAME_ACTED_ON = re.compile(r"\b(?P<before>[A-Za-z]+)\s+(?:[A-Z][\w'’-]*)")


def _acts_on_someone(clause: str) -> bool:
    for m in _NAME_ACTED_ON.finditer(clause):
        before = m.group("before").lower()
        if before in ("the", "to", "for", "with") or (before not in ("me", "as", "in", "into") and _base_verb(before)):
            return True
    return bool(_FILE.search(clause) or _NUMBERED.search(clause))


def _particular(clause: str, sentence: str) -> bool:
    """Whether ``clause`` works on a particular text or person."""
    c = _OPENER.sub("", clause.strip())
    words = re.findall(r"[\w'’.-]+", c)
    for before, word in zip(words, words[1:], strict=False):
        # A capitalised word inside the clause is a name ("Send Ana…", "README"), but for "I" and a
        # language after in or into ("in French"), which is how a wish names the language ("to
        # Anna" is a person).
        if (
            word[:1].isupper()
            and not re.fullmatch(r"I(?:'m|’m|'d|'ll)?", word)
            and before.lower() not in ("in", "into")
        ):
            return True
    if _FILE.search(c) or _NUMBERED.search(c):
        return True
    return bool(_DETERMINED.search(c)) and not _standing(sentence)


def _as_form(clause: str) -> bool:
    """A unit of form as the manner of ``clause``, with no single text made or worked on before it:
    "lay it out in a table", "give me steps as a numbered list", but not "write me a haiku in three
    lines" or "send the notes as bullet points" (an object with a determiner is one text)."""
    m = _AS_FORM.search(clause)
    return m is not None and not re.search(r"\b(?:a|an|the|some)\s+\w", clause[: m.start()], re.I)


def _vectors(texts: list[str]):
    """The meaning vectors of ``texts``' English readings, one row each (memory/meaning.py)."""
    from memory import meaning
    from memory.text.bilingual import english_reading

    return meaning.embed([english_reading(t) for t in texts])


def _nearest(vectors) -> tuple[str, float]:
    """The kind the nearest of ``vectors`` is nearest to in meaning, and that cosine."""
    from memory import meaning

    kinds = meaning.embed(list(KINDS.values()))
    best, near = "", 0.0
    for vector in vectors:
        sims = kinds @ vector
        i = int(sims.argmax())
        if float(sims[i]) > near:
            best, near = list(KINDS)[i], float(sims[i])
    return best, near


@quotes_original
def wish_text(sentence: str) -> str:
    """``sentence`` without the request to act it opens with, for SOUL ("fix the flaky test in
    ci.yml, and btw I'm Sunniva but Sunny is what I answer to" → "btw I'm Sunniva but Sunny is what I
    answer to"): SOUL is in every prompt, and a task in it would be asked again every turn. Only
    opening clauses said to kept about a particular text or person are cut, and the rest is the
    person's words as written."""
    if has_cjk(sentence):
        return sentence
    rest = sentence
    while True:
        m = _CLAUSES.search(rest)
        if not m:
            return rest
        head = rest[: m.start()]
        task = bidden(head) and _acts_on_someone(head) and not (wished_treatment(head) or treatment_kind(head))
        if not task or not rest[m.end() :].strip():
            return rest
        rest = re.sub(r"^(?:and|then|also)\b\s*", "", rest[m.end() :].strip(), flags=re.I)


@reads_simplified
def treatment_kind(sentence: str) -> str:
    """The kind of treatment (``KINDS``) ``sentence`` is near in meaning, when it is said to kept
    about the person; else ""."""
    return treatment_reading(sentence)[0]


# A format wish read by the form a clause said to kept gives kept's text (a unit as its manner, a
# verbless clause naming a form, a unit under a standing rule): a reading by grammar, as specific as
# the rules', so it is taken as they are, without the model. On dev (tests/data/treatment_test*.jsonl)
# the embedded model sorted away 3 of the 3 such wishes it was asked about ("lay it out in a table
# for me", "Give me steps as a numbered list…", "Two lines max per reply…"), while the form reading
# took no look-alike there, among 1998 persona sentences or 645 acts / commitments sentences.
BY_FORM = "by its form"


@reads_simplified
def treatment_reading(sentence: str) -> tuple[str, str, float]:
    """(kind, why, nearness): the kind ``treatment_kind`` gives, why there is none when there is
    none ("not addressed", "a third party", "a particular text", "far from every kind", "no
    meaning model") or ``BY_FORM`` when the kind is read by grammar, and the cosine to the nearest
    kind's description (0 when not measured, 1 when read by form or by a naming verb). The reasons
    are for evals/soul_wishes.py's anatomy of what is missed."""
    from memory import meaning

    s = sentence.strip()
    cjk = has_cjk(s)
    if _THIRD_PARTY.search(s):
        return "", "a third party", 0.0
    pronoun = bool(_ADDRESSED_TO_ME_ZH.search(_GREETING_ZH.sub("", s)) if cjk else _ADDRESSED.search(s))
    # Said to kept by a pronoun, but only in clauses on a particular text or person ("remind me to
    # call Jo", "reply to the Harlow email for me"): a task, as an imperative on one is.
    spoken = [] if cjk else [c for c in _CLAUSES.split(s) if c and _ADDRESSED.search(c)]
    if spoken and all(_acts_on_someone(c) for c in spoken) and not _NAMED_AS.search(s):
        pronoun = False
    # A naming verb with the person as its object ("everyone from the dentists to the cleaners calls
    # me Teddie"), or a Chinese naming word said to kept (同事都叫我 Webster，你也这么叫吧): about the name
    # whatever else the sentence says, where the rules want a wish marker or a closer shape.
    if pronoun and (_NAMED_AS.search(s) or (cjk and _NAMING_ZH.search(s))):
        return "name", "", 1.0
    # The clauses said to kept: by a pronoun anywhere in the sentence (as before), or by their mood,
    # when they work on no particular text or person.
    clauses = [c for c in (re.split(r"[，,。；;]", s) if cjk else _CLAUSES.split(s)) if c and c.strip()]
    moods = [c for c in clauses if bidden(c) and not _particular(c, s) and not _THIS_TEXT.search(c)]
    if not pronoun and not moods and _prefers(s) and not _particular(s, s) and not _THIS_TEXT.search(s):
        moods = [s]  # the person's own taste, told to their assistant: near a kind, it is about kept
    if not pronoun and not moods:
        return "", "not addressed", 0.0
    if pronoun and _THIS_TEXT.search(s):
        return "", "a particular text", 0.0
    # A unit of written form (bullet points, tables, sentences…) given as the manner of an addressed
    # clause on no particular text ("lay it out in a table for me", "put them in code blocks"): the
    # form kept's text takes, whatever the verb. Only as a manner (in / as / into a unit): "book a
    # table for two" names a table, not a form.
    said_to = moods + ([] if _THIS_TEXT.search(s) else [c for c in clauses if _ADDRESSED.search(c)])
    # A form as the manner of one imperative ("explain in two sentences what a courier does") shapes
    # that one answer: a rule for kept's text is said as a standing rule or to the person ("for me").
    as_form = said_to if (pronoun or _standing(s)) else []
    # And a form worked on by a clause said as a standing rule ("for any how-to stuff, number the
    # steps"): a rule for every text of that kind is a rule for kept's replies.
    if (
        any(_as_form(c) and not _particular(c, s) for c in as_form if not has_cjk(c))
        or any(_FORM_HEAD.match(_OPENER.sub("", c.strip())) for c in moods if not has_cjk(c))
        or (_standing(s) and any(re.search(rf"\b{_UNIT}\b", c, re.I) for c in moods if not has_cjk(c)))
    ):
        return "format", BY_FORM, 1.0
    if not (meaning.enabled() and meaning.available()):
        return "", "no meaning model", 0.0
    # Said to kept by a pronoun, the sentence is read whole, as before; a clause is read alone only
    # where nothing but its mood says it to kept: a clause cut from a sentence ("give me a short,")
    # reads nearer a kind than the sentence it belongs to.
    vectors = _vectors([s] if pronoun and not _THIS_TEXT.search(s) else moods)
    kind, near = _nearest(vectors)
    if near >= NEAR_KIND:
        return kind, "", near
    if _fitted(vectors):
        return kind, FITTED, near
    return "", "far from every kind", near


# Where the cosine to the five descriptions is too low, a logistic model over the same vectors says
# whether the sentence lies where wishes lie (evals/treatment_fit.py fits it on dev sets and says
# why; memory/treatment_weights.json). It is asked only here, for a sentence already read as said
# to kept on no particular text, and what it finds is a candidate like the cosine's: confirmed by
# the model where one is given.
FITTED = "by the fitted reading"
_WEIGHTS = Path(__file__).with_name("treatment_weights.json")
_override: list = []  # a model set by ``fitted_reading`` (cross-validation), innermost last


@contextlib.contextmanager
def fitted_reading(model: dict | None) -> Iterator[None]:
    """Within the block, the fitted reading uses ``model`` (a dict as the weights file holds), or
    none at all when ``model`` is None."""
    _override.append(model)
    try:
        yield
    finally:
        _override.pop()


@functools.lru_cache(maxsize=1)
def _shipped() -> dict | None:
    try:
        return json.loads(_WEIGHTS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _fitted(vectors) -> bool:
    """Whether the fitted model puts any of the sentences of ``vectors`` over its threshold."""
    import numpy as np

    model = _override[-1] if _override else _shipped()
    if not model or not len(vectors):
        return False
    logits = vectors @ np.asarray(model["weights"], dtype=vectors.dtype) + model["bias"]
    return bool((1 / (1 + np.exp(-np.clip(logits, -30, 30)))).max() >= model["threshold"])


# The model sorts the sentence among four labels rather than answering yes or no: asked "is it a wish
# about the assistant's <kind>?" under a boolean schema it said yes to all 10 sentences of a probe
# (book me a table, remind me to call Jo, my mother calls me Peggy...). With labels and six examples
# of its own (none from an eval set) it kept 8 of 10 of the general reading's candidates among
# treatment_test's wishes and took 4 of 10 hard look-alikes on the probe.
TREATMENT = "how to talk to them from now on"
LABELS = ("a task to do now", "a fact about their life", "a question", TREATMENT)
CONFIRM_SYSTEM = (
    "You sort one sentence a person wrote to their assistant. 'a task to do now': they ask for something "
    "to be done, found, sent or written. 'a fact about their life': they tell something. 'a question': they "
    "ask something. 'how to talk to them from now on': they say how the assistant should address them or "
    "word its own replies to them (name, format, tone, language, length) in future. Examples: 'Please book "
    "a room for Friday.' -> a task to do now. 'Could you address me as Professor Lind?' -> how to talk to "
    "them from now on. 'My brother calls me Sprout.' -> a fact about their life. 'I'd like your answers in "
    "German from now on.' -> how to talk to them from now on. 'Can you email me the agenda as a list?' -> "
    "a task to do now. 'Keep it casual with me, no need for formalities.' -> how to talk to them from now on."
)


def confirmed(llm, candidates: list[tuple[K, str, str]]) -> list[tuple[K, str, str]]:
    """The ``candidates`` ((key, sentence, kind)) the model sorts as how to talk to the person, one
    bounded call each under the schema grammar; a reply that cannot be used confirms nothing."""
    from typing import Literal

    from memory.llm import UnusableReply
    from memory.replies import Reply

    class Sorted(Reply):
        what: Literal[LABELS]  # type: ignore[valid-type]

    out = []
    for key, sentence, kind in candidates:
        try:
            reply = llm(
                purpose="soul confirm",
                system=CONFIRM_SYSTEM,
                prompt=f"Sentence: {sentence}",
                schema=Sorted,
                max_tokens=24,
            )
        except (UnusableReply, ValueError):
            continue
        what = reply.get("what") if isinstance(reply, dict) else getattr(reply, "what", "")
        if what == TREATMENT:
            out.append((key, sentence, kind))
    return out


def read_wishes(items: Sequence[tuple[K, str, str]], llm=None) -> set[K]:
    """The keys of ``items`` ((key, sentence, its message)) whose sentence is a wish about treatment:
    those the rules read or the general reading reads by form (``BY_FORM``), and the general
    reading's other candidates (by meaning or a naming verb), confirmed by ``llm`` (a
    memory.llm.MemoryLLM) when one is given."""
    from memory.text.acts import is_question

    taken = {
        key for key, sentence, message in items if not is_question(sentence) and wished_treatment(sentence, message)
    }
    readings = [(key, sentence, treatment_reading(sentence)) for key, sentence, _ in items if key not in taken]
    taken |= {key for key, _, (kind, why, _) in readings if kind and why == BY_FORM}
    candidates = [(key, sentence, kind) for key, sentence, (kind, why, _) in readings if kind and why != BY_FORM]
    if llm is not None:
        candidates = confirmed(llm, candidates)
    return taken | {key for key, _, _ in candidates}
