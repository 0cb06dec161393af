"""SOUL holds only what the person asked for; the default persona lives in code."""

from __future__ import annotations

import pytest

from memory import soul


@pytest.fixture
def quiet_recall(monkeypatch):
    # These tests are about SOUL in the prompt; other memory blocks stay out of the way.
    monkeypatch.setattr("memory.recall.recall_facts", lambda *a, **k: [])
    monkeypatch.setattr("memory.promises.relevant_open", lambda *a, **k: [])
    monkeypatch.setattr("memory.series.counts_for", lambda *a, **k: [])


def test_soul_is_empty_until_asked_and_then_rendered(db):
    assert soul.render(db) == ""
    assert soul.set_text(db, "  Call me Mo. No bullet points.  ") is True
    assert soul.render(db) == "Call me Mo. No bullet points."


def test_every_version_is_kept_and_an_unchanged_save_adds_none(db):
    soul.set_text(db, "Call me Mo.")
    soul.set_text(db, "Call me Mo. Answer in German.")
    assert soul.set_text(db, "Call me Mo. Answer in German.") is False
    assert [v.text for v in soul.history(db)] == ["Call me Mo.", "Call me Mo. Answer in German."]


def test_default_persona_is_not_in_the_note_and_survives_an_empty_soul(db, quiet_recall):
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from agent.context import PERSONA, build
    from memory import messages as store

    soul.set_text(db, "")
    assert PERSONA not in soul.render(db)
    chat = store.get_chat(db)
    ctx = build(db, chat, "hello", datetime(2026, 10, 7, 9, tzinfo=ZoneInfo("Europe/Berlin")), "Europe/Berlin")
    assert ctx.system.startswith(PERSONA)


def test_soul_reaches_the_prompt_in_a_private_chat_only(db, quiet_recall):
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from agent.context import build
    from memory import messages as store

    soul.set_text(db, "Call me Mo.")
    now = datetime(2026, 10, 7, 9, tzinfo=ZoneInfo("Europe/Berlin"))
    assert "Call me Mo." in build(db, store.get_chat(db), "hi", now, "Europe/Berlin").system
    team = store.get_chat(db, "ops", store.TEAM)
    assert "Call me Mo." not in build(db, team, "hi", now, "Europe/Berlin").system


def test_secrets_are_redacted_and_long_souls_refused(db):
    soul.set_text(db, "Call me Mo. My password: correcthorse99")
    assert "correcthorse99" not in soul.render(db)
    with pytest.raises(soul.SoulTooLong):
        soul.set_text(db, "x" * (soul.MAX_CHARS + 1))


@pytest.mark.parametrize(
    "sentence",
    [
        "Please call me Dee from now on.",
        "My friends call me Jojo, so you can too.",
        "I go by Sam.",
        "Never use headings with me.",
        "I really hate emoji.",
        "When you answer me, keep it to two lines.",
        "And no tables in your replies, please.",
        "同事都叫我小美，你也这样叫我吧。",
        "回复别用表格，用短句就行。",
    ],
)
def test_wishes_about_treatment_are_read_however_phrased(sentence):
    assert soul.wished_treatment(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "My kids call me Mum.",  # how others address them, not asked of kept
        "我妈叫我小宝。",
        "I wrote three paragraphs of the grant today.",  # a unit of text, no wish about kept's
        "The production line is down again, no idea why.",
        "Tables are booked for 8 at the restaurant, no need to confirm.",
        "Please format this as a bullet list.",  # a task on a particular text
        "用要点总结一下这篇文章。",
        "Could you book a table for two at 7?",  # a request to act
        "What do people call me at work?",  # a question
    ],
)
def test_other_sentences_are_not_wishes_about_treatment(sentence):
    assert not soul.wished_treatment(sentence)


def test_a_wish_in_the_english_of_a_mixed_sentence_is_read_as_english():
    from memory.soul import wished_treatment

    assert wished_treatment("回复keep it under three sentences, 我开车的时候看。")
    assert wished_treatment("以后都no tables please, 手机上看不清。")
    # English inside a Chinese statement of the person's own doings is no wish.
    assert not wished_treatment("我今天写了three paragraphs给老板。")


@pytest.mark.parametrize(
    "sentence, wish",
    [
        ("Could you call me Fitz from now on?", True),
        ("Would you mind keeping your summaries to one paragraph?", True),  # -ing read as its base form
        ("Can you answer me in Dutch?", True),
        ("Will you skip the emoji?", True),
        ("Could you call the plumber about the leak?", False),  # a request to act on someone else
        ("Could you call me when the report is ready?", False),  # no name after "call me"
        ("Can you keep Friday afternoon free?", False),  # keep, but no reply or unit of form
        ("Would you mind forwarding the invoice to Kees?", False),
    ],
)
def test_a_wish_asked_as_a_modal_question_is_read_as_the_directive_it_asks_for(sentence, wish):
    assert soul.wished_treatment(sentence) is wish
