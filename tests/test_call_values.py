"""An acting call carries the values the request states (agent/screen.py ``fill`` and the deadline
repair, memory/text/people.py): the embedded model drops an attendee, swaps a recipient or loses a
deadline's time of day; the request's own reading puts them back, and nothing it did not say."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from agent import screen
from agent.loop import Session, run_turn
from agent.models.base import Message, ToolCall, ToolSpec
from agent.models.scripted import ScriptedModel, text, tool_call
from memory import messages as store
from memory.text import people
from tools import all_tools

TZ = ZoneInfo("America/Toronto")
NOW = datetime(2027, 3, 8, 8, 30, tzinfo=TZ)  # a Monday
SPECS = [ToolSpec(t.name, t.description, t.parameters, kinds=t.kinds) for t in all_tools()]


def _screen(request: str, name: str, memory: str = "", **arguments) -> screen.Screened:
    req = screen.Request(request, NOW, TZ, [memory] if memory else [], [Message("user", request)])
    return screen.screen([ToolCall("c1", name, arguments)], SPECS, req)


# ---------------------------------------------------------------- who the request names


@pytest.mark.parametrize(
    ("request_text", "names"),
    [
        ("Tell Ana Ruiz that the launch moved to Lisbon.", ["Ana Ruiz"]),
        ("Set up a sync with Omar and Bea at the Dockside office tomorrow at 3pm.", ["Omar", "Bea"]),
        ("Book the Quartz review with Leo van Dijk on Friday.", ["Leo van Dijk"]),
        ("Give Noor a task to call Hassan about the invoice.", ["Noor"]),
        ("Remind me to ring the Pearson account tomorrow.", []),
        ("请帮我跟孙丽约个会，周四下午三点，谈预算。", ["孙丽"]),
        ("把周报交给老陈，周五之前。", ["老陈"]),
        # the one handed to, said again by a pronoun (Cantonese 交俾佢, read as 交给他): no second name
        ("叫阿芬听日之前执好货仓，交俾佢我最放心。", ["阿芬"]),
        ("帮我给 Marta Kowalski 发个消息：合同签好了。", ["Marta Kowalski"]),
    ],
)
def test_the_people_a_request_names_in_its_head(request_text, names):
    assert people.named(request_text) == names


def test_whom_a_message_goes_to_is_read_in_its_slot_whatever_its_case():
    # Between the verb and the message's noun, or before the colon: a name in lower case is read there.
    assert people.named("drop odile a note - the courier comes at 4") == ["odile"]
    assert people.named("text ravi: the forklift battery is flat") == ["ravi"]
    # A word the lexicon knows is nobody's name.
    assert people.named("drop everyone a quick note - lunch is at 1") == []
    assert people.named("send the team a note: lunch is at 1") == []


def test_a_name_the_store_knows_is_read_in_any_casing():
    from memory.recall import store_names

    known = frozenset(store_names(["Our landlord is Bruno Costa."]))
    assert people.named("message bruno that the lease is signed", known) == ["bruno"]
    assert people.named("message bruno that the lease is signed") == []  # unknown and lower case: not a name


# ---------------------------------------------------------------- the call's values


def test_a_dropped_attendee_is_added():
    out = _screen(
        "Set up a review with Keiko Tanaka on Thursday at 11am about the rollout.",
        "schedule_meeting",
        title="Rollout review",
        start="Thursday at 11am",
    )
    assert out.calls[0].arguments["attendees"] == ["Keiko Tanaka"]
    assert any("Keiko Tanaka" in n.detail for n in out.notes)


def test_a_dropped_chinese_attendee_is_added_beside_the_ones_kept():
    out = _screen(
        "请帮我跟孙丽和 Dev Patel 约个会，周四下午三点，谈预算。",
        "schedule_meeting",
        title="预算",
        start="周四下午三点",
        attendees=["dev patel"],
    )
    assert out.calls[0].arguments["attendees"] == ["dev patel", "孙丽"]


def test_the_person_the_opening_verb_brings_in_attends_though_the_title_names_them():
    # The model put the name in the title only; the request's verb acts on that person.
    out = _screen(
        "Get Odile Marchand from facilities in for a meeting on Thursday at 10am.",
        "schedule_meeting",
        title="Odile Marchand's meeting",
        start="Thursday at 10am",
    )
    assert out.calls[0].arguments["attendees"] == ["Odile Marchand"]
    # A name a noun follows names what the meeting is about, not who comes.
    about = _screen(
        "Schedule Kestrel sync with Bea on Thursday at 10am.",
        "schedule_meeting",
        title="Kestrel sync",
        start="Thursday at 10am",
        attendees=["Bea"],
    )
    assert about.calls[0].arguments["attendees"] == ["Bea"]


def test_a_swapped_recipient_is_the_one_the_request_names():
    out = _screen(
        "Email Bruno Costa that the lease for the Maple Street unit is signed.",
        "send_message",
        memory="- 2027-03-01: Call me Vee.",
        to="Vee",
        body="The lease for the Maple Street unit is signed.",
    )
    assert out.calls[0].arguments["to"] == "Bruno Costa"


def test_a_dropped_deadline_time_is_restored():
    out = _screen(
        "Assign Omar the visa forms, due Friday at 4pm.",
        "assign_task",
        assignee="Omar",
        title="File the visa forms",
        due="Friday",
    )
    assert out.calls[0].arguments["due"] == "Friday at 4pm"
    zh = _screen("把周报交给老陈，周五下午五点前交。", "assign_task", assignee="老陈", title="周报")
    assert zh.calls[0].arguments["due"].startswith("周五下午五点")


def test_a_left_out_start_is_filled_so_the_booking_is_not_dropped():
    out = _screen("Book a call with Ines tomorrow at 9:30.", "schedule_meeting", title="Call with Ines")
    assert out.calls and out.calls[0].arguments["start"] == "tomorrow at 9:30"
    assert out.calls[0].arguments["attendees"] == ["Ines"]


def test_a_right_call_is_left_alone():
    arguments = {
        "title": "Rollout review",
        "start": "Thursday at 11am",
        "attendees": ["Keiko Tanaka"],
    }
    out = _screen(
        "Set up a review with Keiko Tanaka on Thursday at 11am about the rollout.", "schedule_meeting", **arguments
    )
    assert out.calls[0].arguments == arguments and out.notes == []
    task = {"assignee": "me", "title": "Ring the Pearson account", "due": "tomorrow"}
    out = _screen("Add a task for me to ring the Pearson account tomorrow.", "assign_task", **task)
    assert out.calls[0].arguments == task and out.notes == []


@pytest.mark.parametrize(
    "request_text",
    [
        "Remind me to ring the Pearson account tomorrow.",
        "Could you nudge me about it on Friday?",
        "周四记得提醒我给 Pearson 打电话。",
        "这事你帮我记着，到时候催我一下。",
    ],
)
def test_a_call_on_a_request_only_to_be_reminded_is_dropped(request_text):
    # kept has no reminder tool: a task or a message for "remind me…" is no act the person asked for.
    task = {"assignee": "me", "title": "Ring the Pearson account", "due": "tomorrow"}
    out = _screen(request_text, "assign_task", **task)
    assert out.calls == [] and [n.action for n in out.notes] == ["dropped"]


def test_a_value_the_person_did_not_say_is_not_invented():
    out = _screen(
        "Book a slot tomorrow at 10am to plan the roadmap.",
        "schedule_meeting",
        title="Roadmap",
        start="tomorrow at 10am",
    )
    assert "attendees" not in out.calls[0].arguments
    out = _screen(
        "Add a task for me to tidy the shared drive.", "assign_task", assignee="me", title="Tidy the shared drive"
    )
    assert out.calls[0].arguments == {"assignee": "me", "title": "Tidy the shared drive"}
    # Two people and one recipient slot: the model's one of them stays, the other is not forced in.
    out = _screen(
        "Message Ana and Leo that the demo is at noon.", "send_message", to="ana", body="The demo is at noon."
    )
    assert out.calls[0].arguments["to"] == "ana" and out.notes == []


def test_a_question_gets_nothing_filled():
    out = _screen(
        "Did I book anything with Keiko on Thursday?", "schedule_meeting", title="Keiko", start="Thursday 10:00"
    )
    assert out.calls == []


# ---------------------------------------------------------------- in the turn


class _Screened(ScriptedModel):
    wants_screen = True


def test_the_turn_books_with_the_attendee_the_model_dropped(db):
    model = _Screened([tool_call("schedule_meeting", title="Budget talk", start="Wednesday at 2pm"), text("ok")])
    chat = store.get_chat(db, store.DEFAULT_CHAT, store.PRIVATE)
    s = Session(db=db, model=model, tools=all_tools(), tz=TZ, chat=chat, clock=lambda: NOW)
    result = run_turn(s, "Schedule a budget talk with Priya Nair on Wednesday at 2pm.")
    (call,) = result.calls
    assert not call.is_error and call.arguments["attendees"] == ["Priya Nair"]
    assert "Priya Nair" in str(call.result)  # the tool booked it with her
    stored = [m for m in store.history(db) if m.role == "tool"]
    assert "Priya Nair" in stored[-1].text


def test_a_message_that_lost_the_time_it_was_to_carry_gets_the_requests_words():
    out = _screen(
        "Text Ana Ruiz that the depot tour starts at 8am on Thursday.",
        "send_message",
        to="Ana Ruiz",
        body="The depot tour starts soon.",
    )
    assert out.calls[0].arguments["body"] == "The depot tour starts at 8am on Thursday."
    kept = {"to": "Ana Ruiz", "body": "Hi Ana, the depot tour starts at 8:00 on Thursday."}
    out = _screen("Text Ana Ruiz that the depot tour starts at 8am on Thursday.", "send_message", **kept)
    assert out.calls[0].arguments == kept  # the same values in the model's own words stay
    zh = _screen("给孙丽发个消息：样品周三下午两点到。", "send_message", to="孙丽", body="样品到了。")
    assert zh.calls[0].arguments["body"] == "样品周三下午两点到。"


def test_a_message_dictated_after_a_verb_of_saying_keeps_its_values():
    # "…发个消息，跟她说 X", "…message, 说 X", "message Bo and tell her X": X is the message, as after a colon.
    out = _screen("给仓库的吴敏发个消息，跟她说货车周四早上八点到。", "send_message", to="吴敏", body="你好，谢谢你！")
    assert out.calls[0].arguments["body"] == "货车周四早上八点到。"
    out = _screen("发个 message 给 Dara, 说 demo 改到周五下午 4 点。", "send_message", to="Dara", body="Hi Dara!")
    assert out.calls[0].arguments["body"] == "Demo 改到周五下午 4 点。"
    out = _screen(
        "Message Bo Lind and tell her the scaffold comes down on Monday at 7am.",
        "send_message",
        to="Bo Lind",
        body="Hi!",
    )
    assert out.calls[0].arguments["body"] == "The scaffold comes down on Monday at 7am."
    kept = {"to": "吴敏", "body": "货车周四上午8点到。"}
    out = _screen("给仓库的吴敏发个消息，跟她说货车周四早上八点到。", "send_message", **kept)
    assert out.calls[0].arguments == kept  # the same values in other words stay


def test_a_chinese_name_cut_with_its_neighbour_is_the_name():
    out = _screen("给孙丽发个消息：样品周三下午两点到。", "send_message", to="孙丽发", body="样品周三下午两点到。")
    assert out.calls[0].arguments["to"] == "孙丽"
    assert (
        _screen("给孙丽发个消息：样品周三下午两点到。", "send_message", to="孙丽", body="样品周三下午两点到。").notes
        == []
    )


def test_a_name_the_model_made_the_subject_is_no_attendee_unless_the_request_joins_it():
    out = _screen(
        "Schedule Quartz sync with Ines tomorrow at 3pm.",
        "schedule_meeting",
        title="Quartz sync",
        start="tomorrow at 3pm",
        attendees=["Ines"],
    )
    assert out.calls[0].arguments["attendees"] == ["Ines"] and out.notes == []
    out = _screen(
        "Schedule a call with Ines Duarte tomorrow at 3pm.",
        "schedule_meeting",
        title="Call with Ines",
        start="tomorrow at 3pm",
    )
    assert out.calls[0].arguments["attendees"] == ["Ines Duarte"]


@pytest.mark.parametrize(
    ("sentence", "asks"),
    [
        ("我们的 app 新版本定在6月2号上线。", False),  # a Latin term inside a Chinese statement
        ("好消息，demo 改到周四下午了。", False),
        ("帮我 book the room for Friday.", True),
        ("book the big room 明天下午三点", True),  # English opens the sentence as a phrase of its own
    ],
)
def test_a_latin_word_inside_a_chinese_statement_is_no_request(sentence, asks):
    from memory.text import acts

    assert acts.is_request(sentence) is asks


def test_a_call_on_an_introduction_whose_only_order_is_a_wish_is_dropped():
    said = "Hi, Tomasz here, I run the night shift at the bakery. Just Tom is fine. Keep your answers short and skip the emoji."
    out = _screen(said, "schedule_meeting", title="Night shift", start="today 22:00")
    assert out.calls == [] and [n.action for n in out.notes] == ["dropped"]
    assert "how to treat the person" in out.notes[0].detail


@pytest.mark.parametrize(
    "request_text, start, expected",
    [
        # NOW is 2027-03-08 08:30: the model's day keeps, at the time of day the request names.
        ("Set up a call with Omar at 3pm.", "2027-03-08T08:30", "2027-03-08 15:00"),
        ("上午十点半我想跟车管所的刘建华碰个面，你给安排一下。", "2027-03-10T04:00", "2027-03-10 10:30"),  # title: 碰面
        # Passed already today: the next such time.
        ("Set up a call with Omar at 7am.", "2027-03-08T08:30", "2027-03-09 07:00"),
    ],
)
def test_a_time_of_day_without_a_day_sets_the_start_time_of_the_models_day(request_text, start, expected):
    out = _screen(request_text, "schedule_meeting", title="碰面" if "碰" in request_text else "Call", start=start)
    assert [c.arguments["start"] for c in out.calls] == [expected]
    assert any(n.action == "changed" for n in out.notes)


def test_a_start_at_the_time_of_day_the_request_names_is_left_alone():
    out = _screen("Set up a call with Omar at 3pm.", "schedule_meeting", title="Call", start="2027-03-09T15:00")
    assert out.calls[0].arguments["start"] == "2027-03-09T15:00"
    assert not [n for n in out.notes if "start" in n.detail]
