"""memory.text.acts: requests read by grammar and a lexicon of parts of speech, on anybody's wording.

Cases of their own (no eval item): a verb with an object written small, verbs joined by "and",
a request joined to a sentence as a clause of its own, Chinese requests without 请 at the start,
and the statements the same forms must leave alone.
"""

from __future__ import annotations

import pytest

from memory.text.acts import asks_leave, asks_to_act, is_question, is_request


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


@pytest.mark.parametrize(
    "text",
    [
        "Friday at noon I'm having lunch with Ines, the buyer, she's in 义乌 for the fair.",
        "She's in town for the fair.",
        "Ines is flying in tonight, she'll be at the Hilton.",
        "Dana's flight moved to Thursday.",
        "we'll need two more pallets by Friday",
    ],
)
def test_a_word_with_a_contracted_auxiliary_or_a_possessive_opens_no_order(text):
    # English attaches 's, 're, 'll, 've, 'd, 'm to a noun phrase, never to a verb's base form.
    assert not asks_to_act(text)


@pytest.mark.parametrize(
    "text, asks",
    [
        ("While the roof is being fixed, the team works from the annex.", False),
        ("Although Marek agreed, the board said no.", False),
        ("Since you have the figures, could you send them to Marek?", True),
        ("Because the van is late, push the delivery to Monday.", True),
        ("Unless Marek objects, send the contract on Friday.", True),
    ],
)
def test_after_a_subordinate_clause_the_main_clause_gives_the_mood(text, asks):
    assert asks_to_act(text) is asks


@pytest.mark.parametrize(
    "text", ["wat did i tell u about the kiln", "wen did we last pay the vat", "hw do we ship to oslo"]
)
def test_an_auxiliary_before_a_subject_after_a_word_the_lexicon_lacks_asks(text):
    # The inversion only a question has, after a question word spelt as in chat.
    assert is_question(text) and not asks_to_act(text)


@pytest.mark.parametrize("text", ["Marek will call the bank", "Ines has the keys", "Nor did we.", "Neither have they"])
def test_a_name_before_an_auxiliary_or_an_inverting_negative_still_states(text):
    assert not is_question(text)


@pytest.mark.parametrize(
    "text, asks",
    [
        ("Bogdan should look after the boiler service - by noon the day after tomorrow.", False),
        ("Bogdan should take it, by noon the day after tomorrow.", True),
        ("Ines should probably handle the customs forms. They're due by 5pm tomorrow.", True),
        ("Ines can handle the customs forms.", False),  # who is able, with no time it is due by
    ],
)
def test_work_handed_to_a_named_person_with_a_time_it_is_due_asks_for_a_task(text, asks):
    assert asks_to_act(text) is asks


@pytest.mark.parametrize(
    "text, asks",
    [
        ("给仓库的老周带句话：周五的货已经发了。", True),  # the 了 is the message's
        ("给小林说一声，会议室已经订好了。", True),
        ("跟你说一声，新车今天到了。", False),  # telling kept
        ("跟老周吃了个饭，聊得挺好。", False),  # done: a report
    ],
)
def test_a_chinese_coverb_and_a_verb_with_its_measure_word_conveys_what_follows(text, asks):
    assert asks_to_act(text) is asks


@pytest.mark.parametrize(
    "text, asks",
    [
        ("Heard back from Marek - push the call to Monday, he's stuck in Gdansk.", False),
        ("Email from the landlord: fix the gutter before the inspection.", False),
        ("Tell Dana from the warehouse: the van is late.", True),  # a verb and its addressee order
        ("Collect the samples from the lab: they close at five.", True),  # the head orders
        ("Aside from Dana, invite the whole team to the review.", True),  # "from" before a comma: no source
    ],
)
def test_an_order_inside_what_a_named_source_said_is_passed_on_not_given(text, asks):
    assert asks_to_act(text) is asks


@pytest.mark.parametrize(
    "text",
    ["以后跟我说话别用那么多术语，听着累。", "和我聊天的时候用短句就行，我在工地上看手机。"],
)
def test_a_chinese_wish_about_how_kept_talks_to_the_person_asks_no_act(text):
    # 跟我/和我 + a verb of talking, then how: the frame of "when you talk to me".
    from memory.text.acts import about_talk

    assert about_talk(text) and not asks_to_act(text)


@pytest.mark.parametrize(
    "text, asks",
    [
        ("Ravi said: ship it once the invoice clears.", False),
        ("Per the landlord: fix the gutter before May.", False),
        ("Tell Ravi: ship it once the invoice clears.", True),
    ],
)
def test_an_order_someone_is_quoted_as_giving_is_passed_on(text, asks):
    assert asks_to_act(text) is asks


@pytest.mark.parametrize(
    "text, asks",
    [
        ("News from the depot: the forklift is fixed.", False),
        ("Note to self: I still owe Petra the slides.", False),
        ("Reply to Petra about the slides: they are late.", True),  # a verb of conveying to someone
        ("Update the team on the move: we start Monday.", True),  # a verb and its object
    ],
)
def test_a_noun_and_a_preposition_before_a_colon_label_what_follows(text, asks):
    assert asks_to_act(text) is asks


def test_have_someone_do_something_is_the_causative_not_a_perfect():
    assert asks_to_act("Have Bruno collect the keys from reception.")
    assert is_question("Have Bruno collected the keys?") and not asks_to_act("Have Bruno collected the keys?")


@pytest.mark.parametrize(
    "text, tool",
    [
        ("I need you to text my brother that the flight lands at 6.", "tell"),
        ("Could you hand the supplier audit to Femi?", "assign"),  # work given to someone: the dative of transfer
        ("Could you hand the signed contract file to Femi?", None),  # a file given: no work, the model picks
        ("Please 把周报交给小王写，周五之前。", "assign"),  # the English lead-in of a Chinese clause
        ("帮我跟老陈说一声，样品下午寄出。", "tell"),  # what 帮我 asks done
    ],
)
def test_what_a_frame_of_asking_asks_done_is_read_for_its_tool(text, tool):
    from memory.text.acts import asks_to_assign, asks_to_tell

    assert asks_to_act(text)
    assert (asks_to_tell(text), asks_to_assign(text)) == (tool == "tell", tool == "assign")


@pytest.mark.parametrize("text", ["Don't let me drift on that.", "Don't let me slack on it, ok?"])
def test_a_wish_to_be_kept_to_ones_own_word_with_a_bare_verb_after_let_me_asks_no_act(text):
    assert not asks_to_act(text)
    assert asks_to_act("Don't let me book the Lisbon flight without checking with Ines.")


def test_a_thing_acted_on_before_for_me_is_still_a_request():
    # A preposition is passed over only after the speaker ("let me drift on that").
    assert asks_to_act("Book it for me") and asks_to_act("Send that for me now")


@pytest.mark.parametrize("text", ["Delivery to the north yard is set for 7am.", "Shipment out of Busan left on time."])
def test_a_word_known_only_as_a_noun_then_a_preposition_is_a_noun_phrase(text):
    assert not asks_to_act(text)
    assert asks_to_act("Text me the address of the north yard.")  # a noun the lexicon has, used as a verb
