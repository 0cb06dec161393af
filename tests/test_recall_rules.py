"""Standing rules reach the requests they govern (memory.recall, rule 4), on cases of their own.

A request to act on the person's world gets the person's standing rules, as an instruction: all
of them while they are few, else the nearest by what links them (a shared word, the facts the
request's names bring, the kind of value a rule bounds: a day or time, an amount of money).
Work on text for the person alone, a question, a statement get none.
"""

from __future__ import annotations

import pytest

from memory import recall
from memory.text.numbers import money

STORE = [
    "Refunds above €250 need Okonkwo's sign-off first.",
    "Sunday mornings are off-limits for calls.",
    "Nothing goes to the press until Ilse has read it.",
    "Ilse Brandt runs communications at the foundation.",
    "The foundation's office is at Kade 14 in Groningen.",
    "User's bike is a blue Gazelle.",
]
RULES = [STORE[0], STORE[1], STORE[2]]


def _got(text: str, docs: list[str] = STORE) -> list[str]:
    return [docs[m.index] for m in recall.match(text, docs)]


def test_the_deontic_forms_of_a_rule_are_read():
    assert all(recall.is_rule(r) for r in RULES)
    for text in [
        "Any leave over five days has to be approved by HR.",
        "Guests are not allowed in the lab.",
        "The server room is off-limits to visitors.",
        "Nobody signs for deliveries but Tom.",
        "合同必须先给法务看。",
        "报销需要经理批准。",
    ]:
        assert recall.is_rule(text), text
    for text in STORE[3:]:
        assert not recall.is_rule(text), text


@pytest.mark.parametrize(
    "request_text",
    [
        "Give Mr Haddad back the €400 he paid",  # a title and an amount
        "ring the Vossens first thing tomorrow",  # a day
        "Send their invoice to accounts",  # a third person
        "Book room 4 for the handover",  # an identifier
        "帮我给王先生退三百块",  # Chinese: a title, an amount
        "Book a table for Friday",  # a day of the calendar, after a noun phrase with "a"
    ],
)
def test_a_request_acting_on_the_persons_world_gets_all_their_few_rules(request_text):
    got = _got(request_text)
    assert all(r in got for r in RULES), (request_text, got)
    assert STORE[5] not in got  # a fact about nothing the request names stays out


def test_the_rule_bounding_a_value_the_request_holds_comes_first():
    got = recall.match("Knock 300 euros off the Brinks' bill", STORE)
    first = STORE[got[0].index]
    assert first == STORE[0] and "an amount" in got[0].reason
    got = recall.match("Set up a call with Jonna for Sunday at 9", STORE)
    assert STORE[got[0].index] == STORE[1]


@pytest.mark.parametrize(
    "text",
    [
        "Write a haiku about a bike in the rain",  # work for the person alone
        "Give me three names for a newsletter",
        "Tell me a joke about florists",
        "Translate 'the office is closed' into Dutch",  # the material it carries
        "给我讲个关于自行车的笑话",
        "The weather was lovely yesterday.",  # a statement
        "Write a toast for a Friday leaving do",  # a kind of day (the indefinite article), none of the calendar
        "Suggest a playlist for an August barbecue",
    ],
)
def test_work_for_the_person_alone_and_statements_get_no_rules(text):
    got = _got(text)
    assert not any(r in got for r in RULES), (text, got)


def test_a_day_named_by_its_number_alone_makes_a_request_act_on_the_calendar():
    # "on the 14th" is a day of the calendar, so the day's rule comes; "the 3rd floor" is no day.
    assert STORE[1] in _got("Order the flowers for the reception on the 14th")
    assert not any(r in _got("Draft a sign for the lift on the 3rd floor") for r in RULES)


def test_asking_leave_to_act_gets_the_rules_as_a_request_does():
    got = _got("ok for Jonna to call me sunday 8am?")
    assert STORE[1] in got


def test_with_many_rules_only_the_nearest_come():
    places = [f"Hall {n}" for n in range(recall.RULES_ALL)]
    many = [f"User never books {p} on weekdays." for p in places] + [
        "Purchases of lamps must be approved by Ana first.",
        "Anything above €900 needs Ana's approval.",
    ]
    assert len([d for d in many if recall.is_rule(d)]) > recall.RULES_ALL
    got = [many[m.index] for m in recall.match("Order lamps from the usual shop for €1,200", many)]
    assert len(got) == recall.RULES_ALL
    # The rule sharing a word and the one bounding an amount the request holds come first.
    assert got[:2] == ["Purchases of lamps must be approved by Ana first.", "Anything above €900 needs Ana's approval."]


def test_money_is_read_in_running_text():
    assert sorted(money("Take $120 off, it's like 300 bucks, A$80 at most")) == [80.0, 120.0, 300.0]
    assert money("两千欧的沙发，退三百块") == [2000.0, 300.0]
    assert money("Convert 38.5 degrees to Fahrenheit; 10 mg twice a day") == []


# --- what a task needs: whom it is for, and how to reach them --------------------

TASK_STORE = [
    "User's dentist is Dr Amal Rahimi at the Kade clinic.",
    "The foundation's biggest donor is Harrow Trust; their contact is Piet Smeets.",
    "Piet Smeets prefers short emails; his address is piet@harrow.example.",
    "Ilse Brandt runs communications at the foundation.",
]


def test_what_the_person_calls_theirs_ends_before_a_word_of_when():
    got = _got("Book a check-up with my dentist next Thursday at 10", TASK_STORE)
    assert TASK_STORE[0] in got
    got = _got("跟我们的 dentist 约个时间，下周四上午。", TASK_STORE)
    assert TASK_STORE[0] in got


def test_a_request_gets_the_address_of_whom_its_facts_name():
    got = recall.match("Write to our biggest donor letting them know the report is out on Friday", TASK_STORE)
    reasons = {TASK_STORE[m.index]: m.reason for m in got}
    assert TASK_STORE[1] in reasons
    assert reasons.get(TASK_STORE[2]) == "how to reach someone the request acts on"
    assert TASK_STORE[3] not in reasons
    # A question about the donor asks who, not how to reach them.
    assert TASK_STORE[2] not in _got("Who is our biggest donor?", TASK_STORE)


def test_a_chinese_coverb_marks_someone_taking_part_but_not_the_person_helped():
    assert all(r in _got("给物业公司写封信，说楼道的灯坏了。") for r in RULES)
    assert not any(r in _got("给我讲个关于会计的笑话。") for r in RULES)


def test_the_persons_own_things_alone_do_not_make_a_request_act_on_the_world():
    assert not any(r in _got("Check my grammar in this paragraph") for r in RULES)
    assert not any(r in _got("Suggest a title for my newsletter") for r in RULES)


def test_negative_modals_and_a_duty_to_be_done_are_rules():
    for text in [
        "User can't take calls during school pick-up.",
        "Invoices are to be signed by Rosa.",
        "Contractors mustn't get the alarm code.",
    ]:
        assert recall.is_rule(text), text


def test_a_date_is_no_address():
    store = [
        "The gallery's main lender is Voss Collection; their contact is Mira Voss.",
        "Mira Voss signed the loan on 2026-03-14 for the spring show.",
    ]
    got = recall.match("Write to our main lender that the crates arrive on Friday", store)
    assert [store[m.index] for m in got] == [store[0]]


def test_a_request_naming_by_description_what_the_store_speaks_of_acts_on_the_world():
    docs = [
        "The piano tuner the user books before every recital is Aurelio Vance.",
        "Rehearsals for the spring recital run in the parish hall.",
        "User's cat is called Pim.",
        "User's sister lives in Tromsø.",
        "User's dentist is on Elm Row.",
        "User takes the 7:40 train to work.",
    ]
    got = [docs[m.index] for m in recall.match("book the tuner for the recital", docs, fill=recall.FILL_N)]
    assert docs[0] in got
    # A description the store does not hold, or work on the message's own text, is no action on the world.
    assert recall.match("summarise the paragraph below in plain words", docs, fill=recall.FILL_N) == []
    assert recall.match("tidy up the wording of this reply", docs, fill=recall.FILL_N) == []


@pytest.mark.parametrize(
    "text",
    [
        "let the volunteers know the shed is shut",
        "Tell the drivers they can go home early",
        "跟志愿者们说一声，棚子关了。",
    ],
)
def test_a_request_to_tell_someone_something_acts_on_the_world(text):
    # Whoever is told is someone of the person's world, named or not: the standing rules come.
    assert set(RULES) <= set(_got(text))


def test_telling_the_speaker_is_no_action_on_the_world():
    assert _got("tell me a fun fact about owls") == []
