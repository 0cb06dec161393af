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

What is not done here: Cantonese grammar (同我約咗, 聽日 for 明天) is a dialect, not a script;
the converter leaves it as it is.
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


@functools.lru_cache(maxsize=4096)
def simplified(text: str) -> str:
    """``text`` with its Chinese written in Simplified characters, every character where it was."""
    if _CJK_RUN.search(text) is None:
        return text
    convert = _converter().convert
    out = convert(text)
    return out if len(out) == len(text) else "".join(convert(c) for c in text)


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
