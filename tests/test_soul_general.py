"""SOUL's general reading of treatment wishes (memory.soul.treatment_kind, read_wishes): a
sentence said to kept about the person and near a kind of treatment in meaning, or naming the
person, is a candidate; the model, when given, confirms only candidates, never the rules' wishes;
SOUL takes the person's own sentence."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from memory import meaning, soul, writer
from memory import messages as store

needs_meaning = pytest.mark.skipif(not meaning.available(), reason="the meaning model is not installed")
TZ = ZoneInfo("Europe/Berlin")


class Sorter:
    """A memory model that sorts every sentence under one label and records what it was asked."""

    def __init__(self, label: str):
        self.label = label
        self.asked: list[str] = []

    def __call__(self, *, purpose, system, prompt, schema=None, schema_name="record", max_tokens=2048):
        self.asked.append(prompt)
        return {"what": self.label}


@needs_meaning
def test_a_wish_said_to_kept_near_a_kind_of_treatment_is_a_candidate_of_that_kind():
    assert soul.treatment_kind("Could you make your replies a bit less wordy for me?") == "length"
    assert soul.treatment_kind("I would love it if you answered me in Portuguese.") == "language"


@needs_meaning
def test_a_sentence_about_a_third_person_or_said_to_nobody_is_no_candidate():
    assert soul.treatment_kind("She prefers her answers in Portuguese.") == ""
    assert soul.treatment_kind("Send the board a shorter version of the memo.") == ""


def test_a_naming_verb_with_the_person_as_object_is_a_name_candidate_in_either_language():
    assert soul.treatment_kind("The whole crew calls me Skipper.") == "name"
    assert soul.treatment_kind("朋友们都叫我 Momo，你也可以这么叫。") == "name"
    assert soul.treatment_kind("The whole crew calls him Skipper.") == ""


@needs_meaning
def test_the_model_confirms_only_candidates_and_never_judges_what_the_rules_read():
    items = [(1, "Please call me Sasha.", ""), (2, "Could you make your replies a bit less wordy for me?", "")]
    task = Sorter("a task to do now")
    assert soul.read_wishes(items, task) == {1}  # the rules' wish stands whatever the model says
    assert task.asked == ["Sentence: Could you make your replies a bit less wordy for me?"]
    assert soul.read_wishes(items, Sorter(soul.TREATMENT)) == {1, 2}
    assert soul.read_wishes(items) == {1, 2}  # no model: the candidate is taken as read


def test_a_reply_that_cannot_be_used_confirms_nothing():
    from memory.llm import UnusableReply

    def broken(**kwargs):
        raise UnusableReply("no call")

    assert soul.confirmed(broken, [(1, "The whole crew calls me Skipper.", "name")]) == []
    assert soul.confirmed(lambda **kw: {"what": "a fact about their life"}, [(1, "x", "name")]) == []


def test_soul_takes_the_persons_sentence_not_the_models_text(db):
    chat = store.get_chat(db, "me")
    store.add_message(
        db, chat, "user", "me", "The whole crew calls me Skipper.", datetime(2026, 12, 1, 9, 0, tzinfo=TZ)
    )
    sorter = Sorter(soul.TREATMENT)
    writer.run_pass(
        db, sorter, cap=1500, max_active=200, force=True, in_code=True, now=datetime(2026, 12, 1, 10, tzinfo=TZ)
    )
    assert soul.current(db) == "- The whole crew calls me Skipper."
    assert sorter.asked == ["Sentence: The whole crew calls me Skipper."]


@needs_meaning
def test_a_clause_said_to_kept_by_its_mood_needs_no_pronoun():
    # The imperative, "please" and a standing rule address kept as "you" does.
    assert soul.treatment_kind("I read on a tiny screen, so keep it short.") == "length"
    assert soul.treatment_kind("ugh, enough with the walls of text, bullet points from here on") == "format"
    assert soul.bidden("请把日期写成年月日")
    assert not soul.bidden("short.")  # a lone word is an adjective as often as a verb


def test_a_clause_on_a_particular_text_or_person_is_no_candidate():
    assert soul.treatment_kind("Send Ana the notes as bullet points.") == ""
    assert soul.treatment_kind("Keep the commit message short, under 50 characters.") == ""
    assert soul.treatment_kind("Our VP hates bullet points, so rewrite slide 4 as prose.") == ""
    assert soul.treatment_kind("Could you please book a table for two at 7?") == ""  # a table, not a form


def test_a_form_given_as_the_manner_of_a_clause_said_to_kept_is_a_format_candidate():
    assert soul.treatment_kind("Anything with options, lay it out in a table for me.") == "format"


def test_a_form_worked_on_under_a_standing_rule_is_a_format_candidate_and_like_this_is_a_kind():
    assert soul.treatment_kind("For any recipe, number the steps.") == "format"
    assert soul.treatment_kind("From now on, tables for anything like this.") == "format"
    assert soul.treatment_kind("Number the steps in the install guide.") == ""  # one text, no rule


def test_said_to_kept_only_about_a_particular_person_or_text_is_a_task():
    assert soul.treatment_kind("Could you remind me to call Jo at five?") == ""
    assert not soul.wished_treatment("Would you reply to the Harlow email for me?")


@needs_meaning
def test_a_name_after_me_or_as_is_the_name_asked_for_not_someone_acted_on():
    assert soul.treatment_kind("I'd like you to address me as Dr. Haldane, please.") != ""


def test_the_naming_verb_and_please_are_read_as_typed_in_chat():
    assert soul.wished_treatment("cal me Rafa pls, evryone does")
    assert not soul.wished_treatment("The local meeting is at ten.")


def test_chinese_naming_reads_the_space_before_a_latin_name_and_everyone_as_subject():
    assert soul.wished_treatment("英文名 Gavin, 公司里都这么叫, 你也叫我 Gavin 吧。")
    assert soul.wished_treatment("大家都叫我 Howie。")
    assert not soul.wished_treatment("我妈叫我 Howie。")  # one person's usage is a fact


def test_a_chinese_self_introduction_after_a_greeting_is_no_name_candidate():
    assert soul.treatment_kind("你好，我叫陈一鸣，在成都做运营总监。") == ""


@needs_meaning
def test_an_adjective_before_a_noun_opens_no_imperative_and_one_answers_form_is_no_rule():
    assert not soul.bidden("Long day.")  # "long" is a verb too, but not before a noun
    assert soul.bidden("lay it out in a table")
    assert soul.treatment_kind("Long day.") == ""
    assert soul.treatment_kind("explain in two sentences what a courier does on a museum loan") == ""
    assert soul.treatment_kind("When you explain how to do something, number the steps.") == "format"


def test_a_task_repeated_in_time_or_one_text_given_a_form_is_no_rule_for_replies():
    # Written after the dev figures, as probes of the mood reading's look-alikes (none from an eval set).
    assert soul.treatment_kind("Print the list of attendees every morning.") == ""
    assert soul.treatment_kind("Update the table in the wiki every week.") == ""
    assert soul.treatment_kind("Book a table for four every Friday.") == ""
    assert soul.treatment_kind("Short answers please.") == "format"
    assert soul.treatment_kind("Quick replies to the vendor please.") == ""


def test_a_format_wish_read_by_its_form_is_taken_without_the_model():
    items = [(1, "Anything with options, lay it out in a table for me.", "")]
    task = Sorter("a task to do now")
    assert soul.read_wishes(items, task) == {1}
    assert task.asked == []  # only readings by meaning or a naming verb are put to the model


@needs_meaning
@pytest.mark.parametrize(
    "sentence",
    [
        "我这人最受不了客套话，直接讲重点。",
        "I hate small talk and pleasantries.",
        "Honestly I can't stand chirpy filler in a reply.",
        "I'd much rather have it blunt.",
    ],
)
def test_the_persons_own_taste_is_said_to_kept(sentence):
    # Told to their assistant, a taste of the person's is read for a kind (the meaning reading
    # decides whether it is near one; "chirpy filler" is not, for all-MiniLM).
    assert soul.treatment_reading(sentence)[1] != "not addressed", sentence


@needs_meaning
def test_the_persons_own_taste_about_talk_is_a_candidate():
    assert soul.treatment_kind("我这人最受不了客套话，直接讲重点。") == "tone"
    assert soul.treatment_kind("I hate small talk and pleasantries.") == "tone"


@pytest.mark.parametrize(
    "sentence",
    [
        "I prefer the aisle seat on long flights.",  # a particular thing
        "我不喜欢吃香菜。",  # far from every kind
        "他不喜欢客套话。",  # someone else's taste
        "How do I like meeting notes formatted?",  # a question about a taste
    ],
)
def test_a_taste_about_anything_else_is_no_candidate(sentence):
    assert soul.treatment_kind(sentence) == "", sentence
