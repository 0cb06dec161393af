"""Content words for overlap tests: do two texts talk about the same thing?

Not ranking (that is memory.recall): a yes/no test of shared content, used
where a promise is matched to a message or a tool call's value to the
request. Built on ``words.tokens``, so stop words, stems, numbers, times and
Chinese n-grams are read the one way kept reads them everywhere.
"""

from __future__ import annotations

from memory.text.words import tokens


def content_words(text: str) -> set[str]:
    """The distinct tokens of ``text`` longer than one character.

    Single characters (CJK unigrams, lone digits) match too much to count as
    shared content."""
    return {w for w in tokens(text) if len(w) > 1}
