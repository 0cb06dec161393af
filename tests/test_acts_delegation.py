"""memory.text.acts: indirect requests read by their argument structure (who is to act, on what,
by when), and the tool that structure calls for.

A check set of sentences of our own (no eval item), written before the reading: requests of each
kind in English, Chinese and a mix of both, put indirectly (a wish about another person's doing,
a handing-over, a verb of telling without "that"), and statements of the same shape (the same
people, times and verbs, reported) that must ask nothing.
"""

from __future__ import annotations

import pytest

from memory.text.acts import asked_kind, asks_to_act

TASK, MESSAGE, MEETING = "task", "message", "meeting"

REQUESTS = [
    # Another person as the agent of a wished or obliged doing, with a deadline: a task.
    ("It would be great if Priyanka had the seating chart finished by noon on Friday.", TASK),
    ("Marek should have the invoices reconciled before 5pm tomorrow.", TASK),
    ("老周做事细，这个盘点就交给他吧，周五下午三点前弄完。", TASK),
    ("这批样品的检测得有人跟一下，小蔡最熟，就她吧，明天中午前出结果。", TASK),
    ("发票核对让阿梅负责，周四下班前弄好。", TASK),
    # A verb of telling, its addressee and what to tell, with no "that" or colon: a message.
    ("tell Greta the venue is closed on Monday, not Tuesday", MESSAGE),
    ("跟仓库的刘姐讲一声，周三的货改到下午到。", MESSAGE),
    ("ping 一下 Sophie, 跟她说 slides 今晚前发我", MESSAGE),
    ("通知一下前台小林，明早九点有访客。", MESSAGE),
    # Another person and a start (no deadline): a meeting.
    ("I need a catch-up with Ramona Diaz on Thursday at 11 - can you sort it?", MEETING),
    ("帮我 arrange 一个 call, 跟 Marcus Lee, 周五上午 10 点。", MEETING),
]

STATEMENTS = [
    "Priyanka finished the seating chart by noon yesterday.",
    "Marek said he'd have the invoices done by 5pm tomorrow.",
    "老周昨天下午三点前就把盘点交给我了。",
    "刘姐跟我说周三的货改到下午到了。",
    "Greta told me the venue is closed on Monday.",
    "Ramona is flying in on Thursday at 11.",
    "小蔡说她明天中午前能出结果。",
    "Dana's after sorting the van herself, so that's done by Friday.",
]


@pytest.mark.parametrize(("text", "kind"), REQUESTS)
def test_an_indirect_request_is_read_with_the_tool_its_structure_calls_for(text, kind):
    assert asks_to_act(text)
    assert asked_kind(text) == kind


@pytest.mark.parametrize("text", STATEMENTS)
def test_a_statement_of_the_same_shape_asks_nothing(text):
    assert not asks_to_act(text)
    assert asked_kind(text) is None


def _tools():
    from agent.models.base import ToolSpec

    meeting = ToolSpec("schedule_meeting", "Book.", {"required": ["title", "start"]}, kinds={"start": "moment"})
    message = ToolSpec("send_message", "Send.", {"required": ["to", "body"]})
    task = ToolSpec("assign_task", "Assign.", {"required": ["assignee", "title"]}, kinds={"due": "deadline"})
    return meeting, message, task


@pytest.mark.parametrize(("text", "kind"), REQUESTS)
def test_the_forced_tool_follows_the_structure(text, kind):
    from agent.models.base import Message
    from agent.models.local import LocalModel

    meeting, message, task = _tools()
    model = LocalModel(path="unused")
    picked = model._forced_tool([Message("user", text)], [meeting, message, task])
    # A meeting is left to the model first (it may be a move or a cancel); words instead of a
    # call are then written as the call (``fallback_tool``).
    want = {TASK: task, MESSAGE: message, MEETING: None}[kind]
    assert picked is want
    if kind == MEETING:
        assert model.fallback_tool([Message("user", text)], [meeting, message, task]) is meeting


@pytest.mark.parametrize("text", STATEMENTS)
def test_no_tool_is_forced_or_fallen_back_on_for_a_statement(text):
    from agent.models.base import Message
    from agent.models.local import LocalModel

    model = LocalModel(path="unused")
    tools = list(_tools())
    assert model._forced_tool([Message("user", text)], tools) is None
    assert model.fallback_tool([Message("user", text)], tools) is None


def test_a_time_after_a_deadlines_time_is_the_same_deadline():
    from memory.text.acts import deadline_spans, names_deadline

    assert names_deadline("Have it on my desk by 9am, Wednesday")
    assert names_deadline("before noon on Friday")
    assert not names_deadline("Lunch with Bea on Friday at noon")
    assert deadline_spans("周五下午三点前弄完") == [True]


@pytest.mark.parametrize(
    "text",
    [
        "Cancel my meeting with Odile tomorrow at 3pm.",
        "Move the call with Sam to Thursday at 10.",
        "把那个跟王总的会改到周五下午三点。",
    ],
)
def test_an_existing_meeting_is_no_meeting_to_book(text):
    # A definite meeting ("my meeting with…", 那个会) is one already there: no booking is written
    # in its place when the model answers in words.
    assert asked_kind(text) != MEETING


def test_what_follows_a_chinese_verb_of_saying_is_the_message_not_its_people():
    from memory.text import people

    text = "跟前台的周姐讲一声，3 楼的李叔明天要换房。"
    assert people.material(text) == "3 楼的李叔明天要换房。"
    assert "李叔" not in people.named(text)
    assert people.material("刘姐跟我说周三的货到了。") == ""  # told to the speaker: no message


def test_the_day_after_tomorrow_is_read_without_its_article():
    from datetime import date

    from memory.text import dates

    found = dates.find("can you have it done by noon, day after tomorrow", date(2026, 12, 3))
    assert [span for _, _, _, span in found] and "day after tomorrow" in found[0][2]
