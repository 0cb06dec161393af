"""The turn's before-call screen (agent/screen.py): the guard, the argument repair,
and what the turn records and shows. No model needed: calls are written here the way
the 0.5B model wrote them in evals/local_accuracy.py (its dev split)."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from agent import screen
from agent.loop import Session, run_turn
from agent.models.base import Message, ToolCall, ToolSpec
from agent.models.scripted import ScriptedModel, text, tool_call
from memory import messages as store
from tools import all_tools

TZ = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 30, 9, 0, tzinfo=TZ)  # a Monday
SPECS = [ToolSpec(t.name, t.description, t.parameters) for t in all_tools()]
SCHEDULE = next(s for s in SPECS if s.name == "schedule_meeting")
SEARCH = next(s for s in SPECS if s.name == "search_memory")
SEND = next(s for s in SPECS if s.name == "send_message")


def _request(text_: str, memory: str = "", history: list[Message] | None = None) -> screen.Request:
    messages = (history or []) + ([] if history else [Message("user", text_)])
    return screen.Request(text_, NOW, TZ, [memory] if memory else [], messages)


def _screen(request: str, call: ToolCall, memory: str = "") -> screen.Screened:
    return screen.screen([call], SPECS, _request(request, memory))


def _guard(calls, tools, request: str, memory: str = "", history=None):
    req = _request(request, memory, history)
    return screen.guard(calls, tools, screen.evidence(req))


# ---------------------------------------------------------------- the guard


def test_a_plain_question_does_not_book_a_meeting():
    invented = ToolCall("c", "schedule_meeting", {"title": "Weekly team meeting", "start": "2026-12-01T10:00"})
    kept, notes = _guard([invented], [SCHEDULE], "What's a good way to structure a weekly team meeting?")
    assert kept == [] and notes
    # Not phrased as a question, it still names no time: the start is not grounded.
    kept, notes = _guard([invented], [SCHEDULE], "Tell me a good way to structure a weekly team meeting.")
    assert kept == [] and "start" in notes[0].detail


def test_values_from_memory_are_grounded_and_nothing_else_of_the_prompt_is():
    call = ToolCall("c", "schedule_meeting", {"title": "Sync with Priya", "start": "Wednesday 11:30"})
    memory = "- 2026-11-16: The sync with Priya is Wednesdays at 11:30."
    assert _guard([call], [SCHEDULE], "Book the weekly sync with my manager at the usual time", memory)[0] == [call]
    assert _guard([call], [SCHEDULE], "Book the weekly sync with my manager")[0] == []


def test_a_time_from_an_earlier_request_does_not_license_a_new_booking():
    history = [
        Message("user", "Schedule a meeting with Anna tomorrow at 3pm"),
        Message("assistant", "Booked for 15:00."),
        Message("user", "What's a good way to structure a weekly team meeting?"),
    ]
    invented = ToolCall("c", "schedule_meeting", {"title": "Weekly team meeting", "start": "tomorrow 15:00"})
    assert _guard([invented], [SCHEDULE], history[-1].content, history=history)[0] == []
    follow_up = [
        Message("user", "Set up a sync with Anna"),
        Message("assistant", "Shall I book tomorrow at 3pm?"),
        Message("user", "yes, the sync"),
    ]
    call = ToolCall("c", "schedule_meeting", {"title": "Sync with Anna", "start": "tomorrow 15:00"})
    assert _guard([call], [SCHEDULE], "yes, the sync", history=follow_up)[0] == [call]


def test_missing_required_arguments_and_unknown_tools_are_dropped():
    missing = ToolCall("a", "schedule_meeting", {"title": "Lunch"})
    unknown = ToolCall("b", "book_flight", {"to": "Paris"})
    aliased = ToolCall("c", "schedule_meeting", {"title": "Lunch with Sam", "time": "Friday noon"})
    kept, notes = _guard([missing, unknown, aliased], [SCHEDULE], "Lunch with Sam on Friday at noon")
    assert kept == [aliased]
    assert [n.tool for n in notes] == ["schedule_meeting", "book_flight"]


@pytest.mark.parametrize(
    "request_text",
    ["Did I send anything to Priya about the Q3 budget?", "我给Priya发过Q3预算吗？", "When did I last write to Priya?"],
)
def test_a_real_question_never_acts(request_text):
    send = ToolCall("c", "send_message", {"to": "Priya", "body": "the Q3 budget"})
    kept, notes = _guard([send], [SEND], request_text)
    assert kept == [] and "only asks a question" in notes[0].detail
    look = ToolCall("c", "search_memory", {"query": "Q3 budget Priya"})
    assert _guard([look], [SEARCH], request_text)[0] == [look]


@pytest.mark.parametrize(
    "request_text",
    [
        "Can you send Priya the Q3 budget?",
        "How about sending Priya the Q3 budget?",
        "Is it possible to send Priya the Q3 budget?",
        "Are you able to send Priya the Q3 budget?",
        "Why don't you send Priya the Q3 budget?",
        "Send Priya the Q3 budget, ok?",
        "你能把Q3 budget发给Priya吗？",
    ],
)
def test_a_polite_request_in_question_form_acts(request_text):
    send = ToolCall("c", "send_message", {"to": "Priya", "body": "the Q3 budget"})
    assert _guard([send], [SEND], request_text)[0] == [send]


# ---------------------------------------------------------------- times


@pytest.mark.parametrize(
    "request_text, phrase, day, has_clock",
    [
        (
            "Schedule a meeting with Anna tomorrow at 3pm about the Q3 budget.",
            "tomorrow at 3pm",
            date(2026, 12, 1),
            True,
        ),
        (
            "Set up a kickoff on Dec 9 at 14:00 with Lena and Omar, 60 minutes.",
            "Dec 9 at 14:00",
            date(2026, 12, 9),
            True,
        ),
        ("明天下午三点和王伟开会讨论预算", "明天下午三点", date(2026, 12, 1), True),
        # nine characters: a window of eight Latin-word units cut the minutes to 四十 (21:40)
        ("后天晚上九点四十五前要交给小周", "后天晚上九点四十五", date(2026, 12, 2), True),
        ("Do I have anything on Friday?", "Friday", date(2026, 12, 4), False),
        ("Set up a follow-up at 4pm after the review tomorrow.", "tomorrow 4pm", date(2026, 12, 1), True),
    ],
)
def test_the_request_names_its_day_and_time(request_text, phrase, day, has_clock):
    named = screen.named_time(request_text, NOW, TZ)
    assert (named.phrase, named.day, named.has_clock) == (phrase, day, has_clock)


@pytest.mark.parametrize(
    "request_text", ["Cancel event 7.", "Tell Marco that I'll be 10 minutes late.", "What is a mutex?"]
)
def test_a_request_without_a_time_names_none(request_text):
    assert screen.named_time(request_text, NOW, TZ) is None


def test_a_copied_clock_becomes_the_requests_time_and_invented_fields_go():
    written = ToolCall(
        "c",
        "schedule_meeting",
        {
            "title": "Q3 budget meeting",
            "start": "2026-11-30 09:00",
            "attendees": ["Anna", "Sam"],
            "duration_minutes": 30,
            "end": "2026-11-30 14:30",
            "location": "Room 4",
            "notes": "Discuss the budget with Anna.",
        },
    )
    out = _screen("Schedule a meeting with Anna tomorrow at 3pm about the Q3 budget.", written)
    (call,) = out.calls
    assert call.arguments == {"title": "Q3 budget meeting", "start": "tomorrow at 3pm", "attendees": ["Anna"]}
    changed = [n for n in out.notes if n.action == "changed"]
    assert changed and "2026-11-30 09:00" in changed[0].detail and "2026-12-01 15:00" in changed[0].detail


def test_a_model_value_that_means_the_requests_moment_stays_as_written():
    for written in ("2026-12-01T15:00:00+01:00", "2026-12-01 15:00", "Tuesday 15:00"):
        call = ToolCall("c", "schedule_meeting", {"title": "Budget with Anna", "start": written})
        out = _screen("Schedule a meeting with Anna tomorrow at 3pm about the budget.", call)
        assert out.calls[0].arguments["start"] == written and out.notes == []


def test_values_the_request_gave_stay():
    written = ToolCall(
        "c",
        "schedule_meeting",
        {"title": "Design review", "start": "Wednesday at 11am", "location": "Room 2", "duration_minutes": 45},
    )
    out = _screen("Schedule a design review on Wednesday at 11am in Room 2 for 45 minutes.", written)
    assert out.calls[0].arguments == written.arguments and out.notes == []


def test_a_week_relative_phrase_is_read_as_said_not_as_this_week():
    written = ToolCall("c", "schedule_meeting", {"title": "Sync with Dana", "start": "2026-12-03 11:00"})
    out = _screen("Set up a sync with Dana on Thursday next week at 11.", written)
    assert out.calls[0].arguments["start"] == "Thursday next week at 11"
    assert "2026-12-10 11:00" in out.notes[0].detail


def test_an_ambiguous_time_in_the_request_holds_the_call_to_ask():
    written = ToolCall("c", "schedule_meeting", {"title": "Brunch with Kim", "start": "2026-12-05 10:00"})
    out = _screen("Book brunch with Kim this weekend at 10.", written)
    assert out.calls == [] and len(out.held) == 1
    assert "Saturday 2026-12-05" in out.held[0][1] and "Sunday 2026-12-06" in out.held[0][1]
    assert screen.held_result(out.held[0][1])["error"].startswith("not run:")


def test_a_time_of_day_nobody_gave_holds_the_booking_to_ask():
    # A task said with a due day was booked as a meeting at a time the model made up.
    invented = ToolCall("c", "schedule_meeting", {"title": "Draft the grant report", "start": "tomorrow 09:00"})
    out = _screen("Hand Ines the grant report draft, due tomorrow.", invented)
    assert out.calls == [] and "no time of day" in out.held[0][1]
    # Memory may give the time ("the usual time"); a request that names one gives it.
    usual = ToolCall("c", "schedule_meeting", {"title": "Choir rehearsal", "start": "Thursday 19:30"})
    memory = "- 2026-11-02: Choir rehearsal is always at 19:30."
    assert _screen("Book choir rehearsal for Thursday at the usual time.", usual, memory).calls == [usual]
    named = ToolCall("c", "schedule_meeting", {"title": "Lunch with Kim", "start": "tomorrow 12:00"})
    assert _screen("Book lunch with Kim tomorrow at noon.", named).calls[0].arguments["start"] == "tomorrow 12:00"


def test_two_times_in_the_request_keep_the_one_the_model_chose_or_ask():
    request = "Move my 1:1 with Sam from tomorrow at 10am to Thursday at 2pm."
    chosen = ToolCall("c", "schedule_meeting", {"title": "1:1 with Sam", "start": "Thursday 14:00"})
    assert _screen(request, chosen).calls[0].arguments["start"] == "Thursday 14:00"
    invented = ToolCall("c", "schedule_meeting", {"title": "1:1 with Sam", "start": "2026-11-30 09:00"})
    out = _screen(request, invented)
    assert out.calls == [] and "more than one time" in out.held[0][1]


def test_a_value_from_memory_is_grounded():
    written = ToolCall(
        "c", "send_message", {"to": "Jonas", "body": "The investor call moved to 4pm.", "subject": "Investor call"}
    )
    out = _screen(
        "Tell my co-founder the investor call moved to 4pm.",
        written,
        memory="- 2026-11-02: My co-founder is Jonas Berg.",
    )
    assert out.calls[0].arguments == written.arguments


def test_a_day_argument_takes_the_requests_day_and_an_invented_end_goes():
    written = ToolCall("c", "list_events", {"from_date": "Friday", "to_date": "2026-11-30"})
    out = _screen("Do I have anything on Friday?", written)
    assert out.calls[0].arguments == {"from_date": "Friday"}  # "Friday" already means 2026-12-04
    wrong = ToolCall("c", "list_events", {"from_date": "2026-11-30"})
    assert _screen("Do I have anything on Friday?", wrong).calls[0].arguments == {"from_date": "2026-12-04"}


def test_an_end_is_kept_only_when_the_request_says_it():
    copied = ToolCall(
        "c", "schedule_meeting", {"title": "1:1 with Sam", "start": "Thursday at 10:00", "end": "2026-11-10 10:30"}
    )
    out = _screen(
        "Book a 1:1 with Sam on Thursday at 10:00.", copied, memory="- 2026-11-10: I prefer meetings after 10am."
    )
    assert "end" not in out.calls[0].arguments
    said = ToolCall("c", "schedule_meeting", {"title": "Review", "start": "Thursday at 10:00", "end": "11:30"})
    assert _screen("Book a review on Thursday at 10:00 until 11:30.", said).calls[0].arguments["end"] == "11:30"


def test_an_end_copied_from_the_start_goes_so_the_default_length_applies():
    # The 0.5B model, in a session: start and end both "tomorrow at 2pm", which the tool refuses.
    copied = ToolCall(
        "c", "schedule_meeting", {"title": "Atlas plan", "start": "tomorrow at 2pm", "end": "tomorrow at 2pm"}
    )
    out = _screen("Book a meeting with Marco Rossi tomorrow at 2pm about the Atlas plan.", copied)
    assert out.calls[0].arguments == {"title": "Atlas plan", "start": "tomorrow at 2pm"}
    assert any("same moment as the start" in n.detail for n in out.notes)


def test_describe_is_one_line():
    notes = [
        screen.Note("send_message", "dropped", "it acts, and the request only asks a question"),
        screen.Note("schedule_meeting", "changed", "start 'x' -> 'tomorrow at 3pm'"),
    ]
    line = screen.describe(notes)
    assert "\n" not in line and line.startswith("screen: ") and "dropped send_message" in line
    assert screen.describe([]) == ""


# ---------------------------------------------------------------- in the turn


class _Screened(ScriptedModel):
    wants_screen = True


def _session(db, steps, tools=None):
    model = _Screened(list(steps))
    chat = store.get_chat(db, store.DEFAULT_CHAT, store.PRIVATE)
    return Session(db=db, model=model, tools=tools or all_tools(), tz=TZ, chat=chat, clock=lambda: NOW), model


def test_the_turn_screens_calls_records_it_and_asks_again_in_words(db):
    s, model = _session(
        db, [tool_call("send_message", to="Priya", body="hello"), text("No, nothing was sent to Priya.")]
    )
    result = run_turn(s, "Did I send anything to Priya?")
    model.assert_complete()
    assert result.calls == [] and result.reply == "No, nothing was sent to Priya."
    assert [(n.tool, n.action) for n in result.screened] == [("send_message", "dropped")]
    assert model.requests[1].tools is None  # asked again for words (a model may do that itself: below)
    assert store.history(db)[-1].text == "No, nothing was sent to Priya."


def test_a_model_that_answers_in_words_itself_keeps_its_tools_in_the_prompt(db):
    class WithWords(_Screened):
        asked: list = []

        def answer_in_words(self, messages, *, system="", tools=None, on_text=None, max_tokens=1024):
            self.asked.append(tools)
            return text("Nothing went to Priya.")

    model = WithWords([tool_call("send_message", to="Priya", body="hello")])
    chat = store.get_chat(db, store.DEFAULT_CHAT, store.PRIVATE)
    s = Session(db=db, model=model, tools=all_tools(), tz=TZ, chat=chat, clock=lambda: NOW)
    result = run_turn(s, "Did I send anything to Priya?")
    assert result.reply == "Nothing went to Priya." and model.asked and model.asked[0]


def test_the_turn_runs_the_repaired_call_and_a_held_call_asks(db):
    s, model = _session(
        db, [tool_call("schedule_meeting", title="Budget with Anna", start="2026-11-30 09:00"), text("Booked.")]
    )
    result = run_turn(s, "Schedule a meeting with Anna tomorrow at 3pm about the budget.")
    assert result.calls[0].arguments["start"] == "tomorrow at 3pm" and not result.calls[0].is_error
    assert result.calls[0].result["start"].startswith("2026-12-01T15:00")
    assert "changed" in screen.describe(result.screened) or "->" in screen.describe(result.screened)

    s, model = _session(
        db,
        [tool_call("schedule_meeting", title="Brunch with Kim", start="2026-12-05 10:00"), text("Saturday or Sunday?")],
    )
    result = run_turn(s, "Book brunch with Kim this weekend at 10.")
    assert result.calls[0].is_error and "Sunday" in result.calls[0].result["error"]
    assert result.reply == "Saturday or Sunday?" and result.screened[0].action == "held"


def test_a_model_that_does_not_ask_for_the_screen_is_not_screened(db):
    model = ScriptedModel([tool_call("schedule_meeting", title="Budget", start="2026-12-01 15:00"), text("Booked.")])
    chat = store.get_chat(db, store.DEFAULT_CHAT, store.PRIVATE)
    s = Session(db=db, model=model, tools=all_tools(), tz=TZ, chat=chat, clock=lambda: NOW)
    result = run_turn(s, "Book the budget talk tomorrow at 3pm")
    assert result.screened == [] and result.calls[0].arguments["start"] == "2026-12-01 15:00"


def test_kept_chat_shows_what_the_screen_did_in_one_line(db, capsys):
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from agent.repl import run_repl

    s, model = _session(db, [tool_call("send_message", to="Priya", body="hello"), text("Nothing was sent to Priya.")])
    with create_pipe_input() as inp:
        inp.send_text("Did I send anything to Priya?\r/quit\r")
        run_repl(session=s, input=inp, output=DummyOutput())
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "screen:" in line]
    assert len(lines) == 1 and "dropped send_message" in lines[0] and "only asks a question" in lines[0]


def test_a_time_inside_a_longer_phrase_is_not_a_second_time():
    # "Monday at 10am" sits inside "two weeks from Monday at 10am": the request names one moment, 2026-12-21 10:00.
    call = ToolCall("c", "schedule_meeting", {"title": "Review with Ada", "start": "Monday 10am"})
    out = _screen("Book a review with Ada two weeks from Monday at 10am.", call)
    assert out.calls[0].arguments["start"] == "two weeks from Monday at 10am"
    assert "2026-12-21 10:00" in out.notes[0].detail


KINDED = [ToolSpec(t.name, t.description, t.parameters, kinds=t.kinds) for t in all_tools()]


def test_a_meeting_title_in_no_words_of_the_request_is_written_from_its_people_not_dropped():
    # The model titles a Chinese request in English; the request gave the day, the time and the person.
    call = ToolCall(
        "c",
        "schedule_meeting",
        {"title": "Video call with Boss Tu", "start": "后天上午十点四十", "attendees": ["屠老板"]},
    )
    out = screen.screen([call], KINDED, _request("帮我跟供应商屠老板约个视频会，后天上午十点四十"))
    assert [c.arguments["title"] for c in out.calls] == ["和供应商屠老板的会"]


def test_a_meeting_whose_request_names_no_one_keeps_the_guard_on_its_invented_title():
    call = ToolCall("c", "schedule_meeting", {"title": "Atlas Launch Plan", "start": "tomorrow at 2pm"})
    out = screen.screen([call], KINDED, _request("Is tomorrow at 2pm free?"))
    assert out.calls == []


def test_a_meeting_whose_people_were_filled_in_gets_its_title_written_too():
    # The model left the attendees out and titled it in English: the screen fills both.
    call = ToolCall("c", "schedule_meeting", {"title": "Video call", "start": "后天上午十点四十"})
    out = screen.screen([call], KINDED, _request("帮我跟供应商屠老板约个视频会，后天上午十点四十"))
    assert [(c.arguments["title"], c.arguments.get("attendees")) for c in out.calls] == [
        ("和供应商屠老板的会", ["供应商屠老板"])
    ]
