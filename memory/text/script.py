"""Chinese script: the readers read Simplified characters, whichever script a person writes.

People in Taiwan and Hong Kong write Traditional characters (幫我排一個會議, 給阿芳發個訊息,
這個案子交給阿傑負責), and a memory model may keep a fact in either script. kept's readers
(``acts``, ``dates``, ``people``, ``commitments``, ``numbers``) and the recall index
(``words.tokens``) are written against Simplified characters, so each reads a Traditional
text as its Simplified form. The conversion is OpenCC's ``t2s`` (the converter the Chinese-speaking
world uses, phrase-aware: 乾淨 -> 干净 but 乾隆 stays). It changes the script, not the words:
OpenCC's Taiwan-vocabulary table (``tw2sp``: 訊息 -> 消息) was tried and left out, because it
is made for computing terms and rewrites everyday words in either script (行程 -> 进程,
文件 -> 文档, 新增 -> 添加).

Offsets stay valid: a reader returns character positions into the text it was given
(``dates.find``), so the converted text must keep every character where it was. Script
conversion maps a phrase to one of the same length; should it ever not, the text is
converted character by character, which always does.

What a reader returns of the text itself to be shown or acted on (a name, a date's words, a
promise) is given back in the person's own script (``quotes_original``): a message for 阿傑
goes to 阿傑, not 阿杰. Words a reader returns to be compared with other readings stay
Simplified (``reads_simplified``), as those readings are.

Written Cantonese (Hong Kong chat: 佢話聽日會覆我, 我哋今晚搞掂佢) is read as Mandarin through its
function words, after the script: pronouns (佢 他, 我哋 我们), particles and aspect (嘅 的, 咗 了),
negation (唔 不, 冇 没), prepositions (喺 在, 俾 给), days (聽日 明天, 琴日 昨天), demonstratives
(呢個 这个, 嗰度 那里), the question words (邊度 哪里, 幾多 多少, 幾時 何时) and a few verbs that are
Cantonese only (睇 看, 諗 想, 搵 找, 搞掂 搞定). They are a closed class, each written only in
Cantonese, and each maps to Mandarin words of the same length, so offsets stay valid. Content words (飲, 食, 返) are shared with written Mandarin
and stay as they are; 係 (是, but 關係 in Mandarin) and 話 (说, but 電話) are read as verbs only
after a pronoun or a name in Latin letters (阿May話).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from typing import Any, TypeVar

_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")

F = TypeVar("F", bound=Callable[..., Any])


@functools.cache
def _converter() -> Any:
    import opencc  # a C++ library with its dictionaries: loads in milliseconds, only for Chinese text

    return opencc.OpenCC("t2s")


# Cantonese words read as the Mandarin of the same length (after t2s, so in Simplified): the
# longer first, so 唔该 ("thank you / please") is not read as 不该 ("should not").
_CANTONESE_WORDS = {
    "唔该": "谢谢",
    "听日": "明天",
    "听朝": "明早",
    "听晚": "明晚",
    "琴日": "昨天",
    "寻日": "昨天",
    "今朝": "今早",
    "下昼": "下午",
    "朝早": "早上",
    "嗰度": "那里",
    "\U00020bb6度": "那里",
    # The question words, a closed class of their own: 乜嘢 / 咩嘢 what, 边个 / 边位 who, 边度 / 边处 where,
    # 几时 when, 几多 how many / how much, 点解 why; 而家 / 宜家 "now".
    "乜嘢": "什么",
    "咩嘢": "什么",
    "边个": "哪个",
    "边位": "哪位",
    "边度": "哪里",
    "边处": "哪里",
    "几时": "何时",
    "几多": "多少",
    "点解": "为何",
    "而家": "现在",
    "宜家": "现在",
    "搞掂": "搞定",
    "食饭": "吃饭",
    "呢个": "这个",
    "今个": "这个",  # 今個禮拜五 "this Friday"
    "呢度": "这里",
    "呢单": "这单",
    "呢排": "最近",
    "我哋": "我们",
    "你哋": "你们",
    "佢哋": "他们",
    "系咪": "是不",
}
_CANTONESE_CHARS = str.maketrans(
    {
        "佢": "他",
        "嘅": "的",
        "咗": "了",
        "唔": "不",
        "冇": "没",
        "喺": "在",
        "俾": "给",
        "畀": "给",
        "啲": "些",
        "嚟": "来",
        "睇": "看",
        "谂": "想",
        "揾": "找",
        "嗰": "那",
        "\U00020bb6": "那",  # 𠮶, OpenCC's Simplified 嗰
    }
)
_CANTONESE = re.compile("|".join(sorted(_CANTONESE_WORDS, key=len, reverse=True)))
# 话 ("says") and 系 ("is") as verbs: after a pronoun, or a name in Latin letters (阿May话).
_CANTONESE_VERB = re.compile(r"(?<=[佢哋们我你他她A-Za-z])[话系]")


def _mandarin(text: str) -> str:
    """Written Cantonese read as Mandarin by its function words (the module's docstring), length kept."""
    out = _CANTONESE.sub(lambda m: _CANTONESE_WORDS[m.group(0)], text)
    out = _CANTONESE_VERB.sub(lambda m: "说" if m.group(0) == "话" else "是", out)
    return out.translate(_CANTONESE_CHARS)


@functools.lru_cache(maxsize=4096)
def simplified(text: str) -> str:
    """``text`` with its Chinese written in Simplified characters and its Cantonese function words
    read as Mandarin, every character where it was."""
    if _CJK_RUN.search(text) is None:
        return text
    convert = _converter().convert
    out = convert(text)
    out = out if len(out) == len(text) else "".join(convert(c) for c in text)
    return _mandarin(out)


def _restore(value: Any, original: str, converted: str) -> Any:
    """``value`` with every string that was cut from ``converted`` given back as the same stretch
    of ``original``; anything else as it was."""
    if isinstance(value, str):
        if value and value not in original and (at := converted.find(value)) >= 0:
            return original[at : at + len(value)]
        return value
    if isinstance(value, list):
        return [_restore(v, original, converted) for v in value]
    if isinstance(value, tuple):
        items = [_restore(v, original, converted) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            f.name: _restore(getattr(value, f.name), original, converted)
            for f in dataclasses.fields(value)
            if f.init and isinstance(getattr(value, f.name), (str, list, tuple))
        }
        return dataclasses.replace(value, **changes)
    return value


def reads_simplified(function: F) -> F:
    """A reader whose first argument is a text: it reads the text in Simplified characters and
    returns what it finds as it found it (a kind, a yes or no, words to compare with other
    readings, which are Simplified too)."""

    @functools.wraps(function)
    def read(text: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(text, str):  # numbers.to_int(None)
            return function(text, *args, **kwargs)
        return function(simplified(text), *args, **kwargs)

    return read  # type: ignore[return-value]


def quotes_original(function: F) -> F:
    """A reader whose first argument is a text and that returns pieces of it to be shown or acted
    on (a name, a date's words, a promise): it reads the text in Simplified characters, and what
    it returns of the text comes back in the writer's script."""

    @functools.wraps(function)
    def read(text: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(text, str):
            return function(text, *args, **kwargs)
        converted = simplified(text)
        result = function(converted, *args, **kwargs)
        return result if converted == text else _restore(result, text, converted)

    return read  # type: ignore[return-value]
