"""memory.text.acts: requests, questions and statements, in English and Chinese.

The labelled sets are evals/data/acts_*.jsonl (`kept bench acts`);
these tests pin the mechanism (sentence shapes), not those items.
"""

from __future__ import annotations

import pytest

from evals.bench import acts as bench
from memory.text.acts import (
    QUESTION,
    REQUEST,
    STATEMENT,
    about_talk,
    about_the_person,
    act,
    asks_only,
    is_question,
    is_request,
    sentences,
    split,
)


@pytest.mark.parametrize(
    "text",
    [
        "Could you book a table for two?",
        "Would you kindly forward the notes to Ann?",
        "Are you able to call the vendor?",
        "Would it be possible to shift the demo to noon?",
        "Why don't we invite Kim as well?",
        "How about moving it to 5?",
        "Would you mind texting Bo that I'm late?",
        "Do you think you could file the expense report?",
        "I'd like you to add milk to my list.",
        "Email Ann the agenda, ok?",
        "Ok, ping the team.",
        "你能帮我订个会议室吗？",
        "可不可以帮我发一下周报？",
        "请把报告发给老板。",
        "把会议推迟半小时。",
    ],
)
def test_requests_are_requests_whatever_their_form(text):
    assert is_request(text)
    assert not is_question(text)
    assert not asks_only(text)


@pytest.mark.parametrize(
    "text",
    [
        "Did I reply to Ann?",
        "When does the train leave?",
        "Is Kim coming on Friday?",
        "Could Bo have sent it already?",
        "Can you tell me when the review is?",
        "Remind me what Ann said about the budget.",
        "The demo is at 3, right?",
        "How about the invoice, was it paid?",
        "我有没有回复Ann？",
        "报告发了吗？",
        "明天谁值班？",
    ],
)
def test_real_questions_only_ask(text):
    assert is_question(text)
    assert not is_request(text)
    assert asks_only(text)


@pytest.mark.parametrize(
    "text", ["Kim moved to Lisbon.", "Ann Lee joined the team.", "Thanks a lot!", "我下午在家。", "好的。"]
)
def test_statements_are_neither(text):
    assert act(text) == STATEMENT


def test_a_turn_can_ask_and_request():
    text = "Did I pay the bill? If not, pay it now."
    assert is_question(text) and is_request(text)
    assert not asks_only(text)


def test_sentences_keep_numbers_and_abbreviations_whole():
    text = "Meet at 10.30 a.m. tomorrow. Then call Dr. Lee!  好的。谢谢"
    assert split(text) == ["Meet at 10.30 a.m. tomorrow.", "Then call Dr. Lee!", "好的。", "谢谢"]
    assert [text[a:b] for a, b in sentences(text)] == split(text)


@pytest.mark.parametrize(
    "text",
    [
        "where's the spare key",
        "who signed off on the refund",
        "how long is the flight to Porto",
        "what the landlord said about the deposit",
        "did kim pay the invoice",
        "have the movers confirmed",
        "下午几点开会",
    ],
)
def test_unmarked_lowercase_questions_are_questions(text):
    assert act(text) == QUESTION


@pytest.mark.parametrize(
    "text",
    [
        "When the parcel arrives, I'll let you know.",
        "where we stayed last year we'll stay again",
        "What a week!",
        "Had fun today!",
        "Has been a long day.",
    ],
)
def test_clauses_of_time_and_exclamations_are_statements(text):
    assert act(text) == STATEMENT


@pytest.mark.parametrize(
    "text",
    [
        "Please call me Bea.",
        "Just call me by my first name.",
        "You can refer to me as Professor Lind.",
        "Reply in Spanish, please.",
        "Always answer with a short summary first.",
        "Keep it short, I'm on mobile.",
        "Be more direct with me.",
        "Never use jargon when you write to me.",
        "以后请叫我阿明。",
        "请用英文回复。",
        "回复简洁一点。",
    ],
)
def test_wishes_about_how_kept_talks_are_not_requests_to_act(text):
    assert not is_request(text)
    assert act(text) == STATEMENT


@pytest.mark.parametrize(
    "text",
    [
        "Call me a taxi for 6.",
        "Call me back after lunch.",
        "Reply to the landlord today.",
        "Write Bo a thank-you note.",
    ],
)
def test_acting_verbs_with_something_to_act_on_stay_requests(text):
    assert is_request(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Update: the courier came early.", STATEMENT),
        ("Heads up, the printer is broken again.", STATEMENT),
        ("Note: Kim starts on Monday.", STATEMENT),
        ("Bo, send me the receipts.", REQUEST),
        ("Quick one: is the lab open on Sunday?", QUESTION),
    ],
)
def test_a_label_before_a_colon_or_comma_lets_the_rest_decide(text, expected):
    assert act(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Do you mind emailing Ann the slides?",
        "Could I ask you to cancel my 4pm?",
        "Can I get you to order more paper?",
        "是否可以帮我订明早的车？",
        "您方便帮我改一下时间吗？",
    ],
)
def test_polite_questions_that_ask_for_an_action_are_requests(text):
    assert is_request(text)
    assert not asks_only(text)


def test_acts_are_the_three_labels():
    assert {act("Send it."), act("Did I?"), act("Fine.")} == {REQUEST, QUESTION, STATEMENT}


@pytest.mark.parametrize("split_name", bench.available())
def test_labelled_sets_are_well_formed(split_name):
    items = bench.load(split_name)
    assert len(items) >= 30
    assert {i["label"] for i in items} == {REQUEST, QUESTION, STATEMENT}
    assert any("\u4e00" <= ch <= "\u9fff" for i in items for ch in i["text"])


@pytest.mark.parametrize(
    "text", ["以后就叫我阿杰吧。", "请用英文回复我。", "回答尽量简洁。", "Call me 阿杰 from now on."]
)
def test_about_talk_reads_chinese_wishes_as_the_sentence_reading_does(text):
    # SOUL takes what about_talk reads; it must agree with act(), which calls these statements.
    assert about_talk(text)
    assert act(text) == STATEMENT


@pytest.mark.parametrize("text", ["叫我起床。", "帮我用英文写一封邮件给房东。", "明天叫我去开会。"])
def test_about_talk_leaves_chinese_requests_to_act(text):
    assert not about_talk(text)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Where does my sister work?", True),
        ("did i ever pay the plumber", True),
        ("我的车停在哪里？", True),
        ("Have we sent the contract yet?", True),
        ("What is a VAT number?", False),
        ("Did Priya sign it?", False),
        ("Is mine the blue one?", True),
    ],
)
def test_about_the_person_reads_possessives_and_the_person_as_subject(text, expected):
    assert about_the_person(text) is expected
