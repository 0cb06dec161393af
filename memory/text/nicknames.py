"""The short name a person gives beside their full one ("I'm Katherine Oyelaran … Kat is fine").

People rarely ask to be called something in one fixed form: "Theo is what everybody uses", "Just
Max, please", "Gwen works best", "Alex for short", "Most folks know me as Fred". What every such
wording shares is not a verb but a relation between two names in the same message: the person
introduces themself by a full name, and another word of the message is a short form of its given
name. A short form is a truncation of the given name (Max, Theo, Kat, Chris), possibly from its
middle (Liz for Elizabeth, Mandy for Amanda), with an endearing ending at most (-y, -ie, -o,
-i: Vicky, Nico), or its opening followed by later letters in their order (Dora, Dot). That relation is what this module reads; it holds in any phrasing and needs no
list of phrasings. It does not cover a name with no letters in common (Sasha for Alexandra,
Peggy for Margaret): those come with a naming verb ("call me Sasha"), which memory.soul reads.

A word counts only where it stands as a name on its own: not joined to another capitalised word
("Sam Patel", "Maxwell Logistics"), and not after a determiner or a possessive and a noun ("the
Gwent office", "my daughter Thea"), which make it someone or something else.
"""

from __future__ import annotations

import re

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
