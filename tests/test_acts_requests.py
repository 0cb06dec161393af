"""memory.text.acts: requests read by grammar and a lexicon of parts of speech, on anybody's wording.

Cases of their own (no eval item): a verb with an object written small, verbs joined by "and",
a request joined to a sentence as a clause of its own, Chinese requests without 请 at the start,
and the statements the same forms must leave alone.
"""

from __future__ import annotations

import pytest

from memory.text.acts import asks_leave, is_question, is_request


@pytest.mark.parametrize(
    "text",
    [
        # A verb the lexicon knows only as a verb: whatever follows but a verb of its own.
        "Arrange for the plumber to come round on Thursday",
        "Get forty more folders from the stationer",
        "Restock printer toner for room 4",
        # A verb that is also a noun, then a name written small and a closed-class word.
        "email kwame to check the quote",
        "ping anouk about the floor plan",
        "give yusuf a call about the lease",
        "share ines's slides with the board",
        # Verbs joined by "and".
        "Draft and send the Halvorsen team a summary",
        # A title after the verb: the verb is no part of the name.
        "Text Mrs Okafor that the parcel has arrived",
        # A clause of its own after a dash or a semicolon, or a verb-only clause after a comma.
        "The tenants upstairs want a quiet week - find them a slot for the repairs",
        "We are out of envelopes, order a box from the usual shop.",
        "Dana is away next week; can you ask Rui to cover her calls?",
        # Chinese: 帮 + someone, 帮我 after a time, a coverb with a light verb, a suggestion with 吧,
        # an opening verb with an indirect question inside, a request after a comma.
        "帮 Tomek 的团队订一个会议室。",
        "明天下午三点帮我约牙医。",
        "跟房东约个时间看房。",
        "这份合同今天发给 Ruth 吧",
        "通知大家年会在哪里、几点开始。",
        "墨盒快没了，帮我买两个。",
        "让小周看一下新的报价单",
        "叫小王下午把样品寄过来",
        "周五早上记得提醒我交房租",
        # A wish for an outcome: the wanted thing and the state it is to be in.
        "We need more toner on the way",
        "I want the slides sent to Odile before lunch",
        # Other frames: "make sure", "any chance of", "lets" for "let's".
        "Please make sure Odile gets the minutes",
        "Any chance of moving the fitting to Thursday?",
        "lets move the fitting to thursday",
    ],
)
def test_requests_in_anybodys_wording_are_requests(text):
    assert is_request(text), text


@pytest.mark.parametrize(
    "text",
    [
        # A subject and its verb, whatever the casing.
        "kwame moved the meeting to Friday",
        "Design reviews go to Lotte in the meantime.",
        "Staff lunches are usually at the canteen; nobody books them.",
        # A verbless note that opens with an adjective or a noun.
        "Long day.",
        "Rain again today",
        # A name of two words, a list, an apposition.
        "Ingrid Solberg from the bank called earlier.",
        "Our account number is HV-9912, sort code 20-11-03.",
        "Alder Lane, the new site, opens in May.",
        # Chinese reports: a subject of its own, the completed aspect, a tag question.
        "他帮我搬了家。",
        "跟房东约了时间。",
        "会议改到周五了，对吧",
        "就这样吧",
        "让我想想",
        # A wish with no state for the wanted thing, a past wish, a noun and a preposition.
        "I need a holiday",
        "We needed a plumber in March",
        "Rent of €900 is due on the 1st.",
        "Lunch with Odile was fun.",
    ],
)
def test_statements_that_look_like_the_new_forms_stay_statements(text):
    assert not is_request(text), text


def test_a_question_joined_to_a_request_stays_a_question_too():
    text = "Book the usual caterer for Friday - anything I should leave off the menu?"
    assert is_request(text) and is_question(text)


def test_a_wish_about_talk_joined_by_a_comma_is_no_request():
    assert not is_request("Please call me Bea, and please never use tables with me.")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("ok for Imre to call me sunday 8am?", True),
        ("is it alright to send the draft to the client tonight?", True),
        ("Would it be fine for Lars to book the van on Monday?", True),
        ("can I waive the late fee for the Moreaus?", True),
        ("可以让小陈周六早上给我打电话吗？", True),
        ("Is the van booked for Monday?", False),
        ("What time is it in Oslo?", False),
        ("ok, thanks", False),
    ],
)
def test_asking_leave_to_act_is_read(text, expected):
    assert asks_leave(text) is expected


@pytest.mark.parametrize(
    "text",
    [
        # A full name, then what the person is: an apposition, not an order to the named.
        "Good evening! Marta Lindqvist-Oyelaran, office manager at Kestrel Labs, a biotech firm in Turku.",
        "Ines Moreau, support manager at Quill, a print shop in Lyon.",
        # Chat abbreviations that stand for lead-ins ("for your information", "by the way").
        "fyi the printer we lease from Copyco, Printwise, bills us £40 a month",
        "btw the venue changed to Hall B.",
        "FYI: the landlord raised the rent to 900.",
        # A coverb or a verb of telling with the listener as its object: the speaker tells kept.
        "跟你说一声，新买的两台打印机今天到了。",
        "告诉你个好消息，合同签下来了。",
        "给你发个截图，这是上周的排班。",
        # A suggestion's 吧 is its own clause's: here it only asks how to be called.
        "同事们都叫我小满，你也这么叫我吧。",
    ],
)
def test_introductions_and_tellings_that_look_like_orders_are_no_requests(text):
    assert not is_request(text), text


@pytest.mark.parametrize(
    "text",
    [
        "Bo, send me the receipts.",
        "Dana, book the room for Friday.",
        "btw, can you send Ana the slides?",
        "fyi, email the slides to Ana.",
        "跟老王说一声，明天的会取消。",
        "给小李发个消息，说我晚点到。",
        "会议室我订不到，你帮我问问前台吧。",
        "大家都在等，退他三百块吧。",
    ],
)
def test_orders_after_a_name_a_lead_in_or_to_someone_else_stay_requests(text):
    assert is_request(text), text
