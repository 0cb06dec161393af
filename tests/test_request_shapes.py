"""Requests and non-requests read by general structure (memory.text.acts), times read once per
phrase (agent.screen.read_request, memory.text.dates), and names offered in the frames of
memory.text.nicknames. Cases of their own, not eval items; no model is loaded."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from agent import screen
from memory.soul import wished_treatment
from memory.text import acts, nicknames

TZ = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 30, 9, 0, tzinfo=TZ)  # a Monday


# ---------------------------------------------------------------- requests by structure


@pytest.mark.parametrize(
    "request_",
    [
        # English opening a mixed sentence gives its mood: a polite request, not a question.
        "Could you get 财务 lead 王建国 and me on a call tomorrow at 3pm?",
        # the contracted subject of a wish for an outcome
        "Ravi can take over the window order - I'd like it sorted by Friday at 5pm.",
        # an ellipsis between clauses, as a dash
        "仓库的货架又歪了……交给老刘去修吧，后天中午之前弄好。",
        # 你 before a coverb whose object is a third party
        "你跟前台的小林说一声：明天上午九点有客户来。",
    ],
)
def test_requests_read_by_their_structure_ask_to_act(request_):
    assert acts.asks_to_act(request_)


@pytest.mark.parametrize(
    "request_",
    [
        "message Oksana that nobody parks in bay 4 until the paint is dry",
        "ping 阿伟 on the night shift: the loading dock closes at 6 today",
        "你给门卫老周带个话：今晚东门不开。",
        "麻烦给小何捎句话，周五的培训取消了。",
    ],
)
def test_a_message_dictated_in_these_frames_is_a_message(request_):
    assert acts.asks_to_tell(request_)


@pytest.mark.parametrize(
    "request_",
    [
        "Marta can take it - I'd like the supplier list done by Thursday noon.",
        "The stock count has no owner... Femi can handle it, I want it on my desk by 10am tomorrow.",
        "地毯的事……交给小吴去问吧，周三下午之前把价格发给我。",
    ],
)
def test_work_a_named_person_can_take_on_in_a_request_is_a_task(request_):
    assert acts.asks_to_assign(request_)


@pytest.mark.parametrize(
    "said",
    [
        # reported speech with the speaker as its subject, and attention asked for what was said
        "I told Ferreira, our landlord, that he would have the deposit by the 10th. Keep an eye on that for me.",
        "I said to Mia that the kiln would be ready by Friday.",
        "我跟她说了明天下午交报告。",
        "I promised Joel the slides before lunch - keep track of it for me.",
        # a wish set in kept's replies
        "我平时都用手机看，回复里千万别给我列表格，一段一段说就行。",
        # a label before a dash, then a question about how kept addresses the person
        "quick question - what do you call me?",
        # a named person who could do something, in a turn that asks nothing
        "Marta can take the early bus now that the timetable changed.",
    ],
)
def test_statements_and_wishes_about_talk_ask_no_act(said):
    assert not acts.asks_to_act(said)
    assert not acts.asks_to_assign(said)


def test_a_verb_of_attention_on_a_thing_in_the_world_still_asks():
    assert acts.asks_to_act("Book it for me")
    assert acts.asks_to_act("Dana - book the room for 3pm tomorrow")


# ---------------------------------------------------------------- times


def test_a_phrase_of_time_does_not_run_past_its_sentence():
    reading = screen.read_request(
        "Can you book Lena and me tomorrow at four in the afternoon? Their quote for next year is odd.", NOW, TZ
    )
    assert not reading.ambiguous
    assert reading.moments == [datetime(2026, 12, 1, 16, 0, tzinfo=TZ)]


@pytest.mark.parametrize(
    "request_, moment",
    [
        ("book the review the day after tomorrow at 10 in the morning", datetime(2026, 12, 2, 10, 0, tzinfo=TZ)),
        ("约老王大后天下午四点半之前把图纸给我", datetime(2026, 12, 3, 16, 30, tzinfo=TZ)),
    ],
)
def test_phrases_that_share_words_are_one_time(request_, moment):
    reading = screen.read_request(request_, NOW, TZ)
    assert reading.named is not None and reading.named.moment == moment
    assert reading.moments == [moment]


def test_two_times_said_apart_are_still_two():
    reading = screen.read_request("move the call from tomorrow at 10am to Thursday at 2pm", NOW, TZ)
    assert len(reading.moments) == 2


def test_an_hour_in_words_after_at_with_a_part_of_the_day():
    from memory.text import dates

    assert dates.read("tomorrow at four in the afternoon", NOW, TZ).clock.hour == 16
    assert dates.read("at seven in the evening", NOW, TZ).clock.hour == 19


# ---------------------------------------------------------------- names offered


@pytest.mark.parametrize(
    "sentence, message, name",
    [
        ("Lola is what I'd like from you.", "I'm Dolores Vidal. Lola is what I'd like from you.", "Lola"),
        ("so 阿珍 it is, please.", "Hi, Jane Tan here. At work they call me 阿珍, so 阿珍 it is, please.", "阿珍"),
    ],
)
def test_a_name_offered_as_the_persons_choice(sentence, message, name):
    assert nicknames.offered_name(sentence, message, bidden=True) == name
    assert wished_treatment(sentence, message)


def test_a_choice_of_a_day_or_anothers_name_is_no_name():
    assert not wished_treatment("Monday it is, then.")
    assert not wished_treatment("I met 老方 today, 老方 is fine.")


# ---------------------------------------------------------------- names the reading finds


@pytest.mark.parametrize(
    "request_, name",
    [
        ("Ravi can take over the window order - I'd like it sorted by Friday at 5pm.", ["Ravi"]),
        ("Marta should handle the supplier list, by Thursday noon please.", ["Marta"]),
        ("Someone can take it, I want it done by Friday.", []),
    ],
)
def test_a_sentences_first_word_before_a_modal_is_its_subject_a_name(request_, name):
    from memory.text import people

    assert people.named(request_) == name
