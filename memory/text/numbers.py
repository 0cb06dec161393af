"""Numbers as people write them: digits, English number words, Chinese numerals, amounts.

The one parser of numbers in kept. Tokens (``words``), dates (``dates``) and
booking times (``tools.when``) all read counts and amounts here, so "三",
"3", "three" and "3k"/"3千" mean the same everywhere.

- ``cn_int``: Chinese numerals, positional ("二十三", "一百零五", "三万五千",
  "两万五" = 25000) or digit by digit ("二〇二六" = 2026); Arabic digits mixed
  in ("3万", "5千") are read too.
- ``en_int``: English number words up to the millions ("twenty-five",
  "one hundred and five", "a" / "an" = 1, "a couple of" = 2). Vague counts
  ("a few", "several") are not numbers; ``approx=True`` reads them as 3 for
  callers that annotate rather than book.
- ``to_int``: any of the above, or digits.
- ``amount``: money and magnitudes ("$5,000", "5k", "1.5 million", "5千", "三万").

Regex fragments (``CN_NUMERAL``, ``EN_NUMBER``, ``NUMBER``) let other readers
embed a number in their own patterns and hand the match to ``to_int``.
"""

from __future__ import annotations

import re
import unicodedata

from memory.text.script import reads_simplified

CN_DIGITS = {
    "零": 0,
    "〇": 0,
    "○": 0,
    "一": 1,
    "壹": 1,
    "二": 2,
    "贰": 2,
    "两": 2,
    "兩": 2,
    "三": 3,
    "叁": 3,
    "四": 4,
    "肆": 4,
    "五": 5,
    "伍": 5,
    "六": 6,
    "陆": 6,
    "七": 7,
    "柒": 7,
    "八": 8,
    "捌": 8,
    "九": 9,
    "玖": 9,
}
CN_UNITS = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1_000, "仟": 1_000}
CN_BIG = {"万": 10_000, "萬": 10_000, "亿": 100_000_000, "億": 100_000_000}

_CN_NUMERAL_CHARS = "".join(CN_DIGITS) + "".join(CN_UNITS) + "".join(CN_BIG)
# A run of Chinese numeral characters (digits may be mixed in: "3万").
CN_NUMERAL = "[" + _CN_NUMERAL_CHARS + "]+"
# 几 that asks "how many": not after a numeral (十几个, 二十几岁: "some"), a demonstrative (这几个,
# 那几天: "these few") or 好 (好几个: "several"), where it is an indefinite number of a statement.
CN_ASKING_JI = "(?<![0-9" + _CN_NUMERAL_CHARS + "这那好這])几"

EN_ONES = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
_EN_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_EN_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_EN_ARTICLE = {
    "a": 1,
    "an": 1,
    "a couple of": 2,
    "couple of": 2,
    "a couple": 2,
    "a pair of": 2,
    "a dozen": 12,
    "dozen": 12,
}
_EN_VAGUE = {"a few": 3, "few": 3, "several": 3}

_EN_WORD = "|".join(sorted([*EN_ONES, *_EN_TENS, *_EN_SCALES], key=len, reverse=True))
# English number words, hyphenated or spaced ("twenty-five", "one hundred and five"), or an article count.
EN_NUMBER = (
    r"(?:a couple of|couple of|a couple|a pair of|a dozen|an?(?= )|(?:"
    + _EN_WORD
    + r")(?:(?:[- ]|\s+and\s+)(?:"
    + _EN_WORD
    + r"))*)"
)
# Any count: digits, English words or Chinese numerals.
NUMBER = r"(?:\d+|" + EN_NUMBER + "|" + CN_NUMERAL + ")"

# Magnitudes written after a number: "5k", "2m", "1.5 million", "5千", "3万".
SCALE = {
    "k": 1_000,
    "m": 1_000_000,
    "mm": 1_000_000,
    "bn": 1_000_000_000,
    "b": 1_000_000_000,
    "thousand": 1_000,
    "million": 1_000_000,
    "billion": 1_000_000_000,
    "千": 1_000,
    "万": 10_000,
    "萬": 10_000,
    "亿": 100_000_000,
    "億": 100_000_000,
}


@reads_simplified
def cn_int(text: str | None) -> int | None:
    """The value of a Chinese numeral ("二十三" -> 23); None when ``text`` is not one."""
    if not text:
        return None
    text = text.strip()
    if text.isascii() and text.isdigit():
        return int(text)
    if not text or any(
        ch not in CN_DIGITS and ch not in CN_UNITS and ch not in CN_BIG and not ch.isdigit() for ch in text
    ):
        return None
    if not any(ch in CN_UNITS or ch in CN_BIG for ch in text):
        # Digit by digit: "二〇二六" is 2026, "三" is 3.
        return int("".join(str(CN_DIGITS[ch]) if ch in CN_DIGITS else ch for ch in text))
    return _positional(text)


def _positional(text: str) -> int | None:
    for big in ("亿", "億", "万", "萬"):
        if big in text:
            head, _, tail = text.partition(big)
            high = _positional(head) if head else 1
            if high is None:
                return None
            low = _below(tail, CN_BIG[big]) if tail else 0
            return None if low is None else high * CN_BIG[big] + low
    return _section(text)


def _below(tail: str, unit: int) -> int | None:
    """The part after 万/亿; a lone digit is the next unit down ("两万五" = 25000)."""
    if len(tail) == 1 and tail in CN_DIGITS and tail not in ("零", "〇", "○"):
        return CN_DIGITS[tail] * unit // 10
    return _positional(tail)


def _section(text: str) -> int | None:
    """A numeral below 万: "三千二百零五", "十二", "一百五" (= 150)."""
    total, current, last_unit = 0, None, None
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isdigit():
            j = i
            while j < len(text) and text[j].isdigit():
                j += 1
            current = int(text[i:j])
            i = j
            continue
        if ch in CN_DIGITS:
            current = CN_DIGITS[ch]
            if ch in ("零", "〇", "○"):
                last_unit = None  # "一百零五": after a zero the digit is ones
        elif ch in CN_UNITS:
            total += (1 if current is None else current) * CN_UNITS[ch]
            current, last_unit = None, CN_UNITS[ch]
        else:
            return None
        i += 1
    if current is not None:
        # "一百五" is 150 and "三千二" 3200: a last digit right after a unit is one unit down.
        total += current * last_unit // 10 if last_unit and last_unit >= 100 and text[-2] in CN_UNITS else current
    return total


def en_int(text: str | None, *, approx: bool = False) -> int | None:
    """The value of English number words ("twenty-five" -> 25, "a" -> 1); None when not a number.

    Vague counts ("a few", "several") are None unless ``approx``, which reads them as 3."""
    if not text:
        return None
    words = re.sub(r"\s+", " ", text.strip().lower())
    if words.isdigit():
        return int(words)
    if words in _EN_ARTICLE:
        return _EN_ARTICLE[words]
    if words in _EN_VAGUE:
        return _EN_VAGUE[words] if approx else None
    total, current, seen = 0, 0, False
    for word in re.split(r"[- ]+", words):
        if word == "and" and seen:
            continue
        if word in EN_ONES:
            current += EN_ONES[word]
        elif word in _EN_TENS:
            current += _EN_TENS[word]
        elif word == "hundred":
            current = (current or 1) * 100
        elif word in _EN_SCALES:
            total += (current or 1) * _EN_SCALES[word]
            current = 0
        else:
            return None
        seen = True
    return total + current if seen else None


@reads_simplified
def to_int(text: str | None, *, approx: bool = False) -> int | None:
    """A count in digits, English words or Chinese numerals; None when ``text`` is none of these."""
    if text is None:
        return None
    text = unicodedata.normalize("NFKC", text).strip()
    if text.isdigit():
        return int(text)
    value = cn_int(text)
    return value if value is not None else en_int(text, approx=approx)


_AMOUNT = re.compile(
    r"^[$€£¥]?\s*(?P<n>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d+)?\s*(?P<scale>k|mm|m|bn|b|thousand|million|billion|[千万萬亿億])?"
    r"\s*(?:dollars?|euros?|pounds?|usd|eur|gbp|rmb|cny|元|块|美元|欧元)?$",
    re.I,
)


@reads_simplified
def amount(text: str | None) -> float | None:
    """The value of an amount ("$5,000", "5k", "1.5 million", "5千", "三万块"); None when not one."""
    if not text:
        return None
    text = unicodedata.normalize("NFKC", text).strip()
    m = _AMOUNT.match(text)
    if m:
        value = float(m.group("n").replace(",", "") + (m.group("frac") or ""))
        scale = m.group("scale")
        return value * SCALE[scale.lower() if scale.isascii() else scale] if scale else value
    cn = re.sub("[元块]$", "", text)
    whole = cn_int(cn)
    if whole is None:
        whole = en_int(cn)
    return float(whole) if whole is not None else None


# Money in running text: a currency sign (with a country's letters before it: "NZ$", "US$", "R$")
# or code before a number, or a currency word, code or sign after one; digits or number words,
# and a magnitude ("5k", "1.5 million", "5千", "三万块"). The currency words are the closed class
# of money nouns (dollar, euro, pound, yen, buck, quid, grand; 元, 块, 欧, 镑…), not a topic list.
_CURRENCY_CODE = r"(?:usd|eur|gbp|nzd|aud|cad|chf|sek|nok|dkk|jpy|cny|rmb|hkd|sgd|inr|zar|brl|mxn|pln|czk)"
_CURRENCY_WORD = r"(?:dollars?|euros?|pounds?|yen|yuan|rupees?|francs?|krona|kronor|kroner|bucks?|quid|grand)"
_MONEY_EN = re.compile(
    r"(?:\b[a-z]{1,2})?[$€£¥₹]\s*(?P<a>\d[\d,]*(?:\.\d+)?)\s*(?P<sa>k|m|bn|thousand|million|billion)?\b"
    rf"|\b{_CURRENCY_CODE}\s*(?P<b>\d[\d,]*(?:\.\d+)?)\s*(?P<sb>k|m|bn|thousand|million|billion)?\b"
    rf"|\b(?P<c>\d[\d,]*(?:\.\d+)?|{EN_NUMBER})\s*(?P<sc>k|m|bn|thousand|million|billion)?\s*"
    rf"(?:{_CURRENCY_WORD}|{_CURRENCY_CODE}|[$€£¥])(?![a-z])"
    r"|\b(?P<d>\d{1,3}(?:[.,]\d{3})*|\d+)\s*(?P<sd>k)\b",
    re.I,
)
_MONEY_ZH = re.compile(
    rf"(?P<n>[\d.]+|{CN_NUMERAL})\s*(?P<s>[千万萬亿億])?\s*(?:块钱|块|元|美元|欧元|欧|英镑|镑|日元|港币|纽币|澳元|加元)"
)


@reads_simplified
def money(text: str) -> list[float]:
    """Every amount of money ``text`` names ("$120", "A$80", "300 bucks", "€2,000", "12k",
    "三百块", "两千欧"), as values; empty when it names none."""
    text = unicodedata.normalize("NFKC", text)
    out: list[float] = []
    for m in _MONEY_EN.finditer(text):
        number, scale = next((m.group(k), m.group("s" + k)) for k in "abcd" if m.group(k))
        digits = number.replace(",", "")
        value = float(digits) if re.fullmatch(r"\d+(?:\.\d+)?", digits) else en_int(number)
        if value is not None:
            out.append(float(value) * (SCALE[scale.lower()] if scale else 1))
    for m in _MONEY_ZH.finditer(text):
        value = to_int(m.group("n")) if not re.fullmatch(r"[\d.]+", m.group("n")) else float(m.group("n"))
        if value is not None:
            out.append(float(value) * (SCALE[m.group("s")] if m.group("s") else 1))
    return out
