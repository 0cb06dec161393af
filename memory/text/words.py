"""Tokens for recall and search: words, Chinese n-grams, numbers, times, dates.

One function, ``tokens(text)``, serves the fact index, the message index and
every query, so a fact and the question about it always meet in the same
vocabulary. What it promises:

- Latin words are lowercased, accents folded ("Tomás" is "tomas") and
  stemmed by Snowball's English stemmer; stop words are dropped.
- Chinese runs become unigrams and bigrams (no dictionary needed, no slow
  import, and no segmenter's vocabulary to miss the person's own names).
- Numbers meet whatever their spelling: "$5,000", "5000", "5,000.00", "5k"
  and "5千" are all ``5000``.
- Clock times meet: "10:00", "10am", "10 a.m." and "上午十点" are all ``10:00``;
  "3pm", "15:00" and "下午三点" are ``15:00``.
- Dates meet: "2026-11-10", "11/10", "Nov 10th", "10 November" and
  "11月10日" all yield ``november`` and ``10`` (and the year when given).

Tokens use only lowercase letters, digits, CJK characters, "." and ":",
so the full-text index (tokenchars ".:") stores them unchanged.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from memory.text.numbers import SCALE as _SCALE
from memory.text.numbers import cn_int as _cn_int
from memory.text.script import simplified

MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH_ABBR = {m[:3]: m for m in MONTHS} | {"sept": "september"}
_MONTH_BY_NAME = {m: i + 1 for i, m in enumerate(MONTHS)} | {k: MONTHS.index(v) + 1 for k, v in _MONTH_ABBR.items()}
# "may" is also a verb: only an unambiguous abbreviation is rewritten to a month.
_ABBR_REWRITE = {k: v for k, v in _MONTH_ABBR.items() if k not in {"mar", "may", "jun", "jan"}} | {
    "jan": "january",
    "jun": "june",
}

_UNSTEMMED = frozenset(MONTHS) | frozenset(
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
)

NUMBER_WORDS = {
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "eleven": "11",
    "twelve": "12",
    "twenty": "20",
    "thirty": "30",
    "fifty": "50",
    "hundred": "100",
}

# Words that carry no topic. Kept short on purpose: question words stay out of
# the index but words like "before", "changed" or "not" are left to the callers
# that need them (recall reads them from the raw query).
STOP_WORDS = frozenset(
    """
a about above after again against all also am an and any are aren as at be because been
being below between both but by can could couldn did didn do does doesn doing don down during
each else ever few for from further get got had hadn has hasn have haven having he her here
hers herself him himself his how i if in into is isn it its itself just ll let like me mightn more
most much many must mustn my myself need needn no nor not now of off on once only or other our ours
ourselves out over own re s same shan she should shouldn so some such t than that the their
theirs them themselves then there these they this those through to too under until up upon us
ve very was wasn we were weren what when where which while who whom whose why will with won
would wouldn y you your yours yourself yourselves d m o ma really ok okay oh yeah yes hey hi
hello thanks thank please tell know remind something anything thing things
""".split()
)

# A pronoun is no part of a topic word: "我对" in 我对什么过敏 is noise beside 过敏.
_CJK_PRONOUNS = frozenset("我你您他她它")
_CJK_STOP_CHARS = frozenset("的了是我你他她它们在和就都也吗呢吧啊呀么这那有个一不上下")
# Question and function words (longest first) and particles that never form part of a topic word.
CN_FUNCTION_WORDS = re.compile(
    "什么时候|什么|时候|多少|怎么样|怎么|哪里|哪儿|哪个|哪些|为什么|是不是|有没有|一下|一共|几次|请问|帮我|我们的|我的|你的|[的了吗呢吧啊呀]"
)

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"

# Where a Chinese time or date starts, a run of Chinese characters stops, so
# "下午三点开会" reads as 15:00 plus the n-grams of 开会.
_CN_SPECIAL = (
    r"(?:(?:上午|早上|中午|下午|晚上|凌晨)?(?:\d{1,2}|[一二两三四五六七八九十]{1,3})[点點]"
    r"|(?:\d{4}年)?(?:\d{1,2}|[一二三四五六七八九十]{1,3})月"
    r"|[上下这本]?(?:星期|礼拜|周)[一二三四五六日天])"
)

# One pass over the text, most specific alternatives first.
_TOKEN_RE = re.compile(
    r"""
    (?P<iso>\b(?P<iy>\d{4})[-/.](?P<im>\d{1,2})[-/.](?P<id>\d{1,2})\b)
  | (?P<cndate>(?:(?P<cy>\d{4})年)?(?P<cm>\d{1,2}|[一二三四五六七八九十]{1,3})月(?:(?P<cd>\d{1,2}|[一二三四五六七八九十]{1,3})[日号])?)
  | (?P<cnweek>(?P<cnrel>[上下这本])?(?:星期|礼拜|周)(?P<cnwd>[一二三四五六日天]))
  | (?P<cnclock>(?P<cnpart>上午|早上|中午|下午|晚上|凌晨)?(?P<cnh>\d{1,2}|[一二两三四五六七八九十]{1,3})[点點](?P<cnmin>半|\d{1,2}分?|[一二三四五六七八九十]{1,3}分)?)
  | (?P<clock>\b(?P<ch>\d{1,2}):(?P<cmin>\d{2})(?::\d{2})?\s*(?P<cap>[ap]\.?m\b\.?)?)
  | (?P<hour>\b(?P<hh>\d{1,2})\s*(?P<hap>[ap]\.?m)\b\.?)
  | (?P<slash>\b(?P<sm>\d{1,2})/(?P<sd>\d{1,2})(?:/(?P<sy>\d{2,4}))?\b)
  | (?P<num>[$€£¥]?(?P<digits>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d+)?(?:\s?(?P<scale>k|mm|m|bn|b|thousand|million|billion)\b|(?P<cnscale>[千万萬亿]))?(?P<suffix>st|nd|rd|th|s)?(?![a-z0-9]))
  | (?P<alnum>\d+[a-z][a-z0-9]*)
  | (?P<word>[a-z][a-z0-9]*(?:['’][a-z]+)*)
  | (?P<cjk>(?:(?!"""
    + _CN_SPECIAL
    + r""")["""
    + _CJK
    + r"""])+)
    """,
    re.VERBOSE,
)

_HAS_CJK = re.compile(f"[{_CJK}]")


def has_cjk(text: str) -> bool:
    return _HAS_CJK.search(text) is not None


_LATIN_WORD = re.compile(r"[A-Za-z]+")


def written_in_chinese(text: str) -> bool:
    """Whether a message is written in Chinese, not in English that names a Chinese person, place
    or term ("I told 孙悦, the 甲方 project manager, …"): the language kept's own lines answer in.
    A mixed message borrows its nouns from either language but keeps the grammar of the one it is
    written in, so the closed classes decide: Chinese function characters (``_CJK_STOP_CHARS``:
    的, 了, 是, 在, 我, 个…) against English function words (``STOP_WORDS``), ties to Chinese ("下周的
    production meeting 改在 Lumora 的 office 开" is Chinese, "Book a table at 鼎泰丰" is not). Chinese
    without either (郑海涛?) is Chinese."""
    if not has_cjk(text):
        return False
    chinese = sum(1 for c in text if c in _CJK_STOP_CHARS)
    english = sum(1 for w in _LATIN_WORD.findall(text) if w.lower() in STOP_WORDS)
    return chinese >= english


def _latin_fold_table() -> dict[int, str]:
    # Accented Latin letters read as their base letters, so "Tomás", "tomas"
    # and "TOMAS" meet, and "Malmö" is one word, not "malm" + "ö". Only the
    # Latin blocks: Chinese and Japanese text is left untouched.
    table = {}
    for code in range(0xC0, 0x250):
        base = "".join(c for c in unicodedata.normalize("NFKD", chr(code)) if not unicodedata.combining(c))
        if base != chr(code) and base.isascii():
            table[code] = base
    table.update(
        {
            ord("ø"): "o",
            ord("Ø"): "O",
            ord("ł"): "l",
            ord("Ł"): "L",
            ord("đ"): "d",
            ord("ß"): "ss",
            ord("æ"): "ae",
            ord("Æ"): "AE",
            ord("œ"): "oe",
            ord("þ"): "th",
        }
    )
    return table


_LATIN_FOLD = _latin_fold_table()


def fold(text: str) -> str:
    """``text`` in NFKC with accented Latin letters replaced by their base letters and Chinese in
    Simplified characters (``script``): 會議 and 会议 are one word to recall."""
    return simplified(unicodedata.normalize("NFKC", text).translate(_LATIN_FOLD))


def tokens(text: str) -> list[str]:
    """The normalised tokens of ``text``, in order, repeats kept (BM25 counts them)."""
    text = fold(text).lower()
    out: list[str] = []
    for m in _TOKEN_RE.finditer(text):
        kind = m.lastgroup if m.lastgroup in _KINDS else _kind(m)
        _EMIT[kind](m, out)
    return out


def query_terms(text: str) -> list[str]:
    """Distinct tokens of a query, first occurrence first."""
    return list(dict.fromkeys(tokens(text)))


_KINDS = ("iso", "cndate", "cnweek", "cnclock", "clock", "hour", "slash", "num", "alnum", "word", "cjk")


def _kind(m: re.Match) -> str:
    for k in _KINDS:
        if m.group(k) is not None:
            return k
    return "word"


def _emit_iso(m, out):
    _date(out, m.group("iy"), int(m.group("im")), int(m.group("id")))


def _emit_cndate(m, out):
    month = _cn_int(m.group("cm"))
    day = m.group("cd")
    _date(out, m.group("cy"), month, _cn_int(day) if day else None)


_CN_WEEKDAY = dict(
    zip(
        "一二三四五六日天",
        ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "sunday"),
        strict=True,
    )
)


def _emit_cnweek(m, out):
    # 周五 / 星期五 / 礼拜五 meet "Friday"; 下周三 is also 下周 (next week).
    if m.group("cnrel"):
        out.append(m.group("cnrel") + "周")
    out.append(_CN_WEEKDAY[m.group("cnwd")])


def _emit_cnclock(m, out):
    hour = _cn_int(m.group("cnh"))
    part = m.group("cnpart")
    minute_raw = m.group("cnmin")
    if minute_raw is None:
        minute = 0
    elif minute_raw == "半":
        minute = 30
    else:
        minute = _cn_int(minute_raw.rstrip("分"))
    if hour is None or minute is None or hour > 24 or minute > 59:
        return
    if part in ("下午", "晚上") and hour < 12 or part == "中午" and hour < 11:
        hour += 12
    out.append(f"{hour}:{minute:02d}")


def _emit_clock(m, out):
    hour, minute = int(m.group("ch")), int(m.group("cmin"))
    hour = _meridiem(hour, m.group("cap"))
    if hour > 24 or minute > 59:
        out.extend([str(int(m.group("ch"))), str(minute)])
        return
    out.append(f"{hour}:{minute:02d}")


def _emit_hour(m, out):
    hour = _meridiem(int(m.group("hh")), m.group("hap"))
    if hour <= 24:
        out.append(f"{hour}:00")


def _emit_slash(m, out):
    month, day = int(m.group("sm")), int(m.group("sd"))
    if 1 <= month <= 12 and 1 <= day <= 31:
        year = m.group("sy")
        if year and len(year) == 2:
            year = "20" + year
        _date(out, year, month, day)
    else:  # a fraction or a ratio, not a date
        out.extend([str(month), str(day)] + ([m.group("sy")] if m.group("sy") else []))


def _emit_num(m, out):
    digits = m.group("digits").replace(",", "")
    frac = m.group("frac") or ""
    scale = m.group("scale") or m.group("cnscale")
    value = int(digits)
    if frac.strip(".0"):
        if scale:
            scaled = (value + float("0" + frac)) * _SCALE[scale]
            out.append(_fmt(scaled))
        else:
            out.append(f"{value}{frac.rstrip('0')}")
        return
    if scale:
        value *= _SCALE[scale]
    out.append(str(value))


def _emit_alnum(m, out):
    out.append(m.group("alnum"))


def _emit_word(m, out):
    word = m.group("word").replace("’", "'")
    if "'" in word:
        head, _, tail = word.partition("'")
        # possessive or contraction: keep the head ("caroline's" -> caroline,
        # "don't" -> don -> stop word)
        word = head if tail in {"s", "t", "re", "ve", "ll", "d", "m"} else head + tail
    if word in STOP_WORDS:
        return
    if word in NUMBER_WORDS:
        out.append(NUMBER_WORDS[word])
        return
    if word in _ABBR_REWRITE:
        out.append(_ABBR_REWRITE[word])
        return
    if word in _UNSTEMMED:  # months and weekdays meet the dates read from digits
        out.append(word)
        return
    out.append(stem(word))


def _emit_cjk(m, out):
    # Function words split a run: "Zenith 什么时候 launch" asks about Zenith and
    # launch, and "我的日历" is about 日历; their n-grams would only add noise.
    for run in CN_FUNCTION_WORDS.split(m.group("cjk")):
        _ngrams(run, out)


def _ngrams(run: str, out: list[str]) -> None:
    for i, ch in enumerate(run):
        if ch not in _CJK_STOP_CHARS:
            out.append(ch)
        if i + 1 < len(run) and ch not in _CJK_PRONOUNS and run[i + 1] not in _CJK_PRONOUNS:
            out.append(run[i : i + 2])


_EMIT = {
    "iso": _emit_iso,
    "cndate": _emit_cndate,
    "cnweek": _emit_cnweek,
    "cnclock": _emit_cnclock,
    "clock": _emit_clock,
    "hour": _emit_hour,
    "slash": _emit_slash,
    "num": _emit_num,
    "alnum": _emit_alnum,
    "word": _emit_word,
    "cjk": _emit_cjk,
}


def _date(out: list[str], year: str | None, month: int | None, day: int | None) -> None:
    if year:
        out.append(str(int(year)))
    if month and 1 <= month <= 12:
        out.append(MONTHS[month - 1])
    if day:
        out.append(str(day))


def _meridiem(hour: int, marker: str | None) -> int:
    if not marker:
        return hour
    if marker.startswith("p") and hour < 12:
        return hour + 12
    if marker.startswith("a") and hour == 12:
        return 0
    return hour


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


@lru_cache(maxsize=1)
def _snowball():
    import Stemmer  # PyStemmer: the Snowball project's own C stemmers (~1 ms to load)

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """The Snowball (Porter 2) English stem of the word's lemma: "meetings", "meeting" and
    "meet" meet, "scheduled" and "schedule" meet, "emailing" meets "email", and irregular
    forms meet their base ("paid" and "pays", "bought" and "buy": simplemma's lexicon).

    A published algorithm instead of hand suffix rules, and no list of agent
    nouns: "who owns Harbor" and "the Harbor owner" meet on the name (see
    memory.recall). Words with digits ("q3", "v2") are left as they are.
    """
    if len(word) <= 2 or not word.isalpha():
        return word
    return _snowball().stemWord(_lemma(word))


@lru_cache(maxsize=200_000)
def _lemma(word: str) -> str:
    # simplemma's English lexicon gives the base of irregular forms the stemmer cannot see
    # ("paid" -> pay, "went" -> go, "children" -> child); its lexicon loads on first use (~1 s).
    import simplemma

    return simplemma.lemmatize(word, lang="en")
