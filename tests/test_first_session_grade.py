"""The first-session grader (evals/first_session.py) on made-up results: no model needed."""

from __future__ import annotations

from datetime import date, datetime

from evals import first_session
from evals.first_session import SessionResult, StepResult, grade

INTRO = "Hi! I'm Alexandra Novak, product manager at Northwind. Please call me Sasha."


def _graded(reply: str, calls: list[dict]) -> dict:
    steps = [StepResult({"say": INTRO}, reply="Noted.", from_code="a statement")]
    steps.append(StepResult({"say": "What is the Atlas budget now?"}, reply=reply, calls=calls))
    return grade(SessionResult("s", steps=steps), {"steps": []}, date(2026, 12, 1))


def test_a_copy_after_a_look_up_is_graded_a_parrot_and_a_confirmation_is_not():
    look_up = [{"name": "search_memory", "arguments": {}, "result": {}, "is_error": False}]
    # A copy of the person's earlier message: not the issue's parrot, but the strict count's.
    assert (_graded(INTRO, look_up)["parrots"], _graded(INTRO, look_up)["parrots_strict"]) == (0, 1)
    booked = [{"name": "schedule_meeting", "arguments": {}, "result": {}, "is_error": False}]
    assert _graded(INTRO, booked)["parrots_strict"] == 0
    assert _graded("The Atlas budget is 55,000 euros.", look_up)["parrots_strict"] == 0


def test_parrots_are_the_issues_the_message_or_an_earlier_reply_and_the_strict_count_is_shown_beside():
    said = "Our depot in Gdansk opens on the 14th of March, and Ola Nowak runs it."
    answer = "Our depot in Gdansk opens on the 14th of March."
    steps = [
        StepResult({"say": said}, reply="Noted.", from_code="a statement"),
        StepResult({"say": "When does the Gdansk depot open?"}, reply=answer),
    ]
    graded = grade(SessionResult("s", steps=steps), {"steps": []}, date(2026, 12, 1))
    assert (graded["parrots"], graded["parrots_strict"]) == (0, 1)  # it quotes the person: an answer
    steps.append(StepResult({"say": "Who runs it?"}, reply=answer))  # the earlier reply again, beside the question
    graded = grade(SessionResult("s", steps=steps), {"steps": []}, date(2026, 12, 1))
    assert (graded["parrots"], graded["parrots_strict"]) == (1, 2)
    steps = [StepResult({"say": said}, reply=said)]  # the message itself
    assert grade(SessionResult("s", steps=steps), {"steps": []}, date(2026, 12, 1))["parrots"] == 1


def test_a_fact_naming_the_old_value_beside_the_new_is_no_stale_one():
    session = {"steps": [], "facts": [{"right": ["Elm Hall"], "stale": ["Pinecrest"]}]}
    change = "2026-12-01: Pinecrest fell through, so the retreat is now at Elm Hall."
    graded = grade(SessionResult("s", facts=[change]), session, date(2026, 12, 1))
    assert graded["facts_right"] == 1 and graded["facts_stale"] == 0
    old = "2026-12-01: The retreat is at the Pinecrest Lodge."
    graded = grade(SessionResult("s", facts=[old, change]), session, date(2026, 12, 1))
    assert graded["facts_stale"] == 1  # the old fact still active


def test_a_reply_beside_a_typed_question_is_counted_off_the_question():
    steps = [StepResult({"say": "How many rooms does Elm Hall have?"}, reply="I am Robin, everyone does.")]
    assert grade(SessionResult("s", steps=steps), {"steps": []}, date(2026, 12, 1))["off_question"] == 1
    steps = [StepResult({"say": "How many rooms does Elm Hall have?"}, reply="Forty rooms.")]
    assert grade(SessionResult("s", steps=steps), {"steps": []}, date(2026, 12, 1))["off_question"] == 0


def test_a_due_day_without_a_time_checks_the_date_alone():
    from evals.first_session import _check_values

    call = {"arguments": {"due": "2026-12-04T17:00"}, "result": {"id": 3}}
    assert _check_values(call, {"due": {"day": 3}}, date(2026, 12, 1)) == []
    assert _check_values(call, {"due": {"day": 2}}, date(2026, 12, 1)) == [
        "due is '2026-12-04T17:00', expected 2026-12-03"
    ]
    assert _check_values(call, {"due": {"day": 3, "time": "09:00"}}, date(2026, 12, 1))


def test_the_session_day_is_read_in_kepts_zone_not_the_hosts(monkeypatch):
    # Kiritimati (UTC+14) and Etc/GMT+12 (UTC-12) are 26 hours apart: their dates always differ,
    # so grading "tomorrow" from the host's day instead of kept's fails under one of them.
    from zoneinfo import ZoneInfo

    for zone in ("Pacific/Kiritimati", "Etc/GMT+12"):
        monkeypatch.setenv("KEPT_TZ", zone)
        before = datetime.now(ZoneInfo(zone)).date()
        day = first_session.session_day()
        assert day in (before, datetime.now(ZoneInfo(zone)).date())
    monkeypatch.setenv("KEPT_TZ", "Pacific/Kiritimati")
    east = first_session.session_day()
    monkeypatch.setenv("KEPT_TZ", "Etc/GMT+12")
    assert first_session.session_day() < east


def test_a_step_that_failed_for_infrastructure_is_shown_apart_and_counts_as_a_failure_of_what_it_asks():
    error = "no reply: the model's reply could not be understood"
    steps = [
        StepResult({"say": "Book Aoife tomorrow at 2", "act": "schedule_meeting"}, infra=error),
        StepResult({"say": "How many cats did we neuter?", "act": None, "never_said": True}, infra=error),
        StepResult({"say": "Which lab do we use?", "act": None, "answer_has": ["harbourside"]}, infra=error),
    ]
    graded = grade(SessionResult("s", steps=steps), {"steps": []}, date(2026, 12, 1))
    assert graded["infrastructure_failures"] == 3 and graded["turns"] == 0
    assert (graded["actions_asked"], graded["actions_right_values"]) == (1, 0)
    assert (graded["never_said"], graded["never_said_dont_know"]) == (1, 0)
    assert (graded["answers_checked"], graded["answers_with_expected_words"]) == (1, 0)


def test_a_turn_that_stored_no_reply_is_an_infrastructure_failure_named_by_its_screen():
    screen = (
        "(malformed_reply; retrying in 0.3s)\n"
        "the model's reply could not be understood (the call was cut off). Your message is saved; try again.\n"
        "memory: 1 earlier message · /why\n"
    )
    failed = first_session._no_reply(StepResult({"say": "Which lab?"}), screen)
    assert failed.startswith("no reply: the model's reply could not be understood")
    assert first_session._no_reply(StepResult({"say": "Which lab?"}, reply="Harbourside."), screen) == ""
