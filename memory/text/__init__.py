"""Reading text: the one place that decides how kept reads English and Chinese.

Submodules, each the only owner of its concern:

- ``words``: tokens for recall and search (words, stems, Chinese n-grams,
  numbers, clock times and dates as index terms), stop words.
- ``numbers``: counts, amounts and Chinese numerals ("二十三", "5k", "twenty-five").
- ``dates``: relative and absolute dates in a message, resolved against the
  message's own day; the day a stored fact begins with.
- ``acts``: sentences, and whether a turn asks a question, asks kept to act
  (a polite request in question form is a request) or states something.
- ``overlap``: content words, for "do these two texts share content?".
- ``bilingual``: Chinese words read in English (CC-CEDICT), so recall meets a
  fact in one language from a turn in the other.

Import the public names from here (``from memory.text import tokens``) or from
the submodule that owns them.
"""

from memory.text.words import MONTHS, STOP_WORDS, has_cjk, query_terms, stem, tokens

__all__ = ["MONTHS", "STOP_WORDS", "has_cjk", "query_terms", "stem", "tokens"]
