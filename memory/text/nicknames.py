"""The short name a person gives beside their full one ("I'm Katherine Oyelaran … Kat is fine").

People rarely ask to be called something in one fixed form: "Theo is what everybody uses", "Just
Max, please", "Gwen works best", "Alex for short", "Most folks know me as Fred". What every such
wording shares is not a verb but a relation between two names in the same message: the person
introduces themself by a full name, and another word of the message is a short form of its given
name. A short form is a truncation of the given name (Max, Theo, Kat, Chris), possibly from its
middle (Liz for Elizabeth, Mandy for Amanda), with an endearing ending at most (-y, -ie, -o,
-i: Vicky, Nico), or its opening followed by later letters in their order (Dora, Dot). That relation is what this module reads; it holds in any phrasing and needs no
list of phrasings. It does not cover a name with no letters in common (Sasha for Alexandra,
Peggy for Margaret): those come with a naming verb ("call me Sasha"), which memory.soul reads, or
in a frame of offering a name ("Dez is fine", "go with Pinky"), which ``offered_name`` below reads.

A word counts only where it stands as a name on its own: not joined to another capitalised word
("Sam Patel", "Maxwell Logistics"), and not after a determiner or a possessive and a noun ("the
Gwent office", "my daughter Thea"), which make it someone or something else.
"""

from __future__ import annotations

import re

# A verb of naming with the speaker as its object (叫我, 称呼我, 喊我, and 管我叫: "call me" by the
# 管…叫… frame), the speaker also in the first persons of the north and northwest (俺, 额), which
# after a naming verb can be nothing else. memory.text.acts and memory.soul read naming wishes by it.
ZH_CALLED_ME = "(?:(?:叫|称呼|喊)(?:我|俺|额)|管(?:我|俺|额)叫)"

# How a person introduces themself: "I'm / I am / my name is / this is / name's" before the name, or
# "<Name> here", or the name opening the message after a greeting ("Hi! Amanda Ferreira, ...").
# The first two are the grammar of English self-introduction, a closed class.
_CAP = r"[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?"
_FULL = rf"(?P<given>{_CAP})(?:\s+{_CAP}){{1,2}}"
_INTRO = (
    re.compile(rf"\b(?:I'm|I’m|I am|[Mm]y name is|[Mm]y name's|[Tt]his is|[Nn]ame's|[Ii]t's)\s+{_FULL}"),
    re.compile(rf"\b{_FULL}\s+here\b"),
    # The message opening with the name, after one greeting at most, whatever it is (Hi, Hiya, Morning).
    re.compile(rf"^\W*(?:\w+(?:\s+\w+)?\W+)?{_FULL}\s*[,;(–-]"),
)
_WORD = re.compile(r"(?<![\w'’-])([A-Z][a-z]{1,9})(?![\w'’-])")
_ENDING = re.compile(r"(?:ie|ey|y|o|i)$")
# A determiner or a possessive, then at most one word: the name after them is someone else's or a thing's.
_TAKEN = re.compile(r"\b(?:the|a|an|my|our|his|her|their|your|its)\s+(?:\w+\s+)?$", re.I)


def given_name(message: str) -> str:
    """The given name of the full name the person introduces themself by in ``message``, or ""."""
    for rx in _INTRO:
        m = rx.search(message)
        if m:
            return m.group("given")
    return ""


def short_form(word: str, given: str) -> bool:
    """Whether ``word`` can be a short form of ``given`` (Kat of Katherine, Liz of Elizabeth, Vicky
    of Victoria), and is not the name itself."""
    w, g = word.lower(), given.lower()
    if w == g:
        return False
    if g.startswith(w):
        return len(w) >= 2
    if len(w) >= 3 and w[:2] == g[:2] and _in_order(w, g):
        return True  # letters of the name in its order: Dora and Dot of Dorothea
    core = _ENDING.sub("", w)
    if len(core) < 3 or len(core) >= len(g):  # with its ending a short form may outgrow a short name: Freddie
        return False
    if core in g:
        return True
    # An ending may come with the stem's last consonant changed or doubled: Vicky, Becky, Patty.
    return core != w and len(core) >= 4 and core[:-1] in g


def _in_order(word: str, name: str) -> bool:
    letters = iter(name)
    return all(c in letters for c in word)


def nickname(sentence: str, message: str) -> str:
    """The short form of the person's given name that ``sentence`` gives as a name of its own, when
    ``message`` (the message it is part of) introduces the person by a full name; else ""."""
    given = given_name(message)
    if not given:
        return ""
    for m in _WORD.finditer(sentence):
        word = m.group(1)
        before, after = sentence[: m.start()], sentence[m.end() :]
        earlier = before.split()
        # A capital opening the sentence ("Just Max") is the sentence's, not a name's.
        joined = len(earlier) > 1 and re.fullmatch(_CAP, earlier[-1].strip("\"'“”"))
        if re.match(r"\s+[A-Z]", after) or joined:
            continue  # part of a longer name: "Sam Patel", "Maxwell Logistics", "Dr Fred"
        if _TAKEN.search(before):
            continue  # "my daughter Thea", "the Gwent office"
        if short_form(word, given):
            return word
    return ""


# ---------------------------------------------------------------- a name offered, in any form
#
# A name with no letters in common with the full one (Dez for Desmond, Pinky for Priyanka, Trixie for
# Beatrice), or the full name itself (Imogen, after "Dr. Imogen Strand"), comes without a naming verb
# as often as with one: "just Dez is fine", "Imogen works fine", "go with Mina", "it's Trixie, not
# Beatrice", "Sunny is what I answer to", "Roz to everyone". What these share is the grammar of
# offering a word as a name, a closed set of frames around a name:
#
# - the name as the subject of a predicate of sufficiency (is fine / ok / good / best, works, will
#   do) or of "what I answer to / go by", or followed by "to everyone" / "for short";
# - the name as the object of a verb of choosing a name (answer to, go with, stick with / to);
# - the name corrected against another name ("it's Trixie, not Beatrice", "Kat, not Katherine"), in
#   either order ("nobody calls me Rosalind, it's Roz").
#
# Frames like "Priya is fine" or "go with Tom" also say other things, so a frame counts only when
# something ties it to the person's own name: the message names them with a verb of naming ("stop
# calling me 'boss'", "my name's…"), the sentence is said to kept by its mood ("pls go with Pinky"),
# the frame is itself about the person (the correction; "what I answer to"), or the message
# introduces them by a given name the offered one begins as ("I'm Desmond…", "just Dez is fine").
# A weekday or a month is no name ("Tuesday works").

# A name in Latin letters, or in Chinese characters (雅姐, 老方: a name without capitals).
_NAME = r"[\"'“‘]?(?P<name>[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?\b|[\u3400-\u9fff]{2,4}(?![\u3400-\u9fff]))[\"'”’]?"
_SUFFICES = re.compile(
    rf"(?:^|[\s,;:])(?:just\s+|only\s+|simply\s+)?{_NAME}\s+(?:"
    r"(?:is|'s|’s)\s+(?:(?:just|totally|perfectly|absolutely|completely)\s+)?(?:fine|ok|okay|good|great|perfect|best|enough)"
    r"(?=\s*(?:[,.;!:)]|$|\s+(?:by|with|for)\s+me\b|\s+(?:thanks|thx|cheers)\b))"
    r"|works(?:\s+(?:fine|best|great|well|for\s+me))?(?:[\s,.!;]|$)|will\s+do\b|does\s+(?:fine|the\s+job)\b"
    r"|for\s+short\b|to\s+(?:everyone|everybody|all)\b"
    # the name as the choice made ("so 雅姐 it is", "Dez it is, then")
    r"|it\s+is(?=\s*(?:[,.;!]|$|\s+(?:then|please|thanks)\b)))",
)
# "Sunny is what I answer to", "Nessa is what I'd like from you": the name as what the person prefers.
_OWN_FRAME = re.compile(
    rf"(?:^|[\s,;:]){_NAME}\s+(?:is|'s|’s)\s+what\s+I(?:['’]d|\s+would)?\s+(?:answer\s+to|go\s+by|use|prefer|like|want)\b"
)
_CHOSEN = re.compile(rf"\b(?:answer\s+to|go\s+with|stick\s+(?:with|to))\s+(?:just\s+|only\s+)?{_NAME}(?!\s+[A-Za-z])")
_CORRECTED = re.compile(rf"(?:^|[\s,;:]){_NAME}\s*,?\s+not\s+[\"'“‘]?[A-Z][a-z]+")
# The same correction in the other order: a name denied ("nobody calls me Rosalind", "not Beatrice"),
# then the one it is ("it's Roz").
_CORRECTED_AFTER = re.compile(
    rf"\b(?i:not|never|nobody|no\s+one|nobody's|no-one)\b[^.;!?]*?[A-Z][a-z]+[^.;!?]*?,\s*(?:it's|it’s|it\s+is|just)\s+{_NAME}\s*[.!]?$"
)
_CALENDAR = re.compile(
    r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day|January|February|March|April|May|June|July|August|"
    r"September|October|November|December|Today|Tomorrow|Tonight"
)
_NAMES_ME = re.compile(
    r"\b(?:call(?:s|ed|ing)?|address(?:es|ed|ing)?)\s+me\b|\bmy\s+name\b|\bname'?s\b|\bI\s+go\s+by\b", re.I
)


def offered_name(sentence: str, message: str = "", bidden: bool = False) -> str:
    """The name ``sentence`` offers as the person's, in one of the frames above; ``message`` is the
    message it is part of, ``bidden`` whether the sentence is said to kept by its mood. Else ""."""
    context = message or sentence
    given = given_name(context) or _single_intro(context)
    tied = bidden or bool(_NAMES_ME.search(context))
    frames = ((_OWN_FRAME, True), (_CORRECTED, True), (_CORRECTED_AFTER, True), (_SUFFICES, False), (_CHOSEN, False))
    for rx, own in frames:
        for m in rx.finditer(sentence):
            name = m.group("name")
            if _CALENDAR.fullmatch(name) or name in ("I", "It", "That", "This", "There", "Which", "What"):
                continue
            before = sentence[: m.start("name")]
            if _TAKEN.search(before) or re.search(r"[A-Z][a-z]+\s*$", before.rstrip("\"'“‘ ")):
                continue  # someone else's name ("my daughter Thea"), or part of a longer one
            # Tied by the introduction alone, the name must begin as the given name does (Dez for
            # Desmond, Roz for Rosalind, Imogen itself): "I'm Sam Lee. Priya is fine." is news of Priya.
            if own or tied or (given and name[0] == given[0]):
                return name
    return ""


_SINGLE_INTRO = re.compile(
    rf"\b(?:I'm|I’m|I am|[Mm]y name is|[Mm]y name's|[Nn]ame's|[Ii]t's|[Ii]t’s)\s+(?P<given>{_CAP})\b"
)


def _single_intro(message: str) -> str:
    """A given name alone after an introduction ("I'm Rosalind", "it's Wilhelmina on the badge")."""
    m = _SINGLE_INTRO.search(message)
    return m.group("given") if m and not _CALENDAR.fullmatch(m.group("given")) else ""
