"""The kind of act and its values read from a request's structure, for a model that cannot be
trusted with either: a verb of telling with its addressee and the told clause is a message whose
body is that clause (memory.text.people.telling); work handed to someone by the task tool's own
nouns and verbs is a task (memory.text.acts.asks_to_assign); the embedded model then writes that
tool's call; the screen replaces a body that is not the dictated message and drops an end before
the start. Cases of their own, not eval items; no model is loaded."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from agent import screen
from agent.loop import Session, run_turn
from agent.models.base import Message, ToolCall, ToolSpec
from agent.models.local import LocalModel
from agent.models.scripted import ScriptedModel, text, tool_call
from memory import messages as store
from memory.text import acts, people
from tools import all_tools

TZ = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 30, 9, 0, tzinfo=TZ)  # a Monday
SPECS = [ToolSpec(t.name, t.description, t.parameters, kinds=t.kinds) for t in all_tools()]


# ---------------------------------------------------------------- telling


def test_a_chinese_name_as_the_subject_of_an_english_modal_is_someone_named():
    # The tagger calls two characters alone a place; before "should" they are someone who can act.
    assert people.named("The 装箱单 still isn't done... 郑浩 should take it, by 5 tomorrow.") == ["郑浩"]
    assert people.named("I'm flying to 义乌 tomorrow") == []


def test_a_message_noun_with_whom_it_goes_to_then_a_dash_dictates_what_follows():
    request_ = "can u get a note to Odile at the front desk - the kiln room is shut friday, ring the potters"
    assert people.material(request_) == "the kiln room is shut friday, ring the potters"
    assert acts.asks_to_tell(request_) and people.named(request_) == ["Odile"]


@pytest.mark.parametrize(
    "request_, said, who",
    [
        ("tell Rhea the cold room is locked until Monday", "the cold room is locked until Monday", "Rhea"),
        ("Could you tell Bram Visser the van is back on Thursday?", "the van is back on Thursday?", "Bram Visser"),
        ("let the night crew know, the gate code changes at 6pm", "the gate code changes at 6pm", ""),
        ("let Odile know nobody opens the kiln before noon", "nobody opens the kiln before noon", "Odile"),
        ("麻烦跟保安老陈说一声，东门明天下午开始封闭。", "东门明天下午开始封闭。", "老陈"),
        ("告诉她周四的复查改到下午两点。", "周四的复查改到下午两点。", ""),
    ],
)
def test_a_verb_of_telling_with_its_addressee_dictates_the_clause_after_it(request_, said, who):
    assert people.material(request_) == said
    assert acts.asks_to_tell(request_)
    if who:
        assert people.named(request_) == [who]  # the request's people are read before the message


@pytest.mark.parametrize(
    "said",
    [
        "Tell me what Rhea said about the van.",  # the speaker is told: a question
        "let me know when the van is back",
        "tell Rhea about the cold room",  # a topic, no dictated clause
        "我跟老陈说好了，东门明天封闭。",  # a telling that happened
        "I told Rhea the cold room is locked.",  # a report
        "Rhea says the cold room is locked until Monday.",
    ],
)
def test_no_telling_is_read_where_nobody_is_to_be_told(said):
    assert not acts.asks_to_tell(said)
    assert people.telling(said) is None or not acts.asks_to_act(said)


# ---------------------------------------------------------------- handing work to someone


@pytest.mark.parametrize(
    "request_",
    [
        "Give Bram the job of restocking the first-aid kits.",
        "Put a task on Odile's list: renew the kiln insurance.",
        "Could you hand Rhea the task of booking the coach?",
        "Assign Lea the supplier audit.",
        "把对账的活儿交给小孙，周五前弄完。",
        "给小孙派个任务：盘点二号仓。",
    ],
)
def test_work_handed_to_someone_is_a_task(request_):
    assert acts.asks_to_assign(request_)
    model = LocalModel(path="unused")
    assert model._forced_tool([Message("user", request_)], SPECS).name == "assign_task"


@pytest.mark.parametrize(
    "said",
    [
        "Bram did the job of restocking the kits yesterday.",
        "The task list for the kiln is getting long.",
        "我把报告交给他了。",
        "小孙把对账的活儿交给了老陈。",
        "Remind me to give Bram the job of restocking the kits.",
    ],
)
def test_no_task_is_read_from_a_report_or_a_reminder(said):
    assert not acts.asks_to_assign(said)
    model = LocalModel(path="unused")
    assert model._forced_tool([Message("user", said)], SPECS) is None


def test_a_telling_request_is_written_as_the_message_tool():
    model = LocalModel(path="unused")
    forced = model._forced_tool([Message("user", "tell Rhea the cold room is locked until Monday")], SPECS)
    assert forced is not None and forced.name == "send_message"


# ---------------------------------------------------------------- the values the screen repairs


def _screen(request: str, name: str, **arguments) -> screen.Screened:
    return screen.screen([ToolCall("c", name, arguments)], SPECS, screen.Request(request, NOW, TZ, [], []))


def test_a_body_that_keeps_none_of_the_dictated_words_becomes_the_requests_words():
    out = _screen(
        "let Odile know nobody opens the kiln before noon", "send_message", to="Odile", body="Sorry, I can't do that."
    )
    assert out.calls[0].arguments["body"] == "Nobody opens the kiln before noon"
    kept = {"to": "Odile", "body": "Hi Odile, nobody should open the kiln before noon."}
    assert (
        _screen("let Odile know nobody opens the kiln before noon", "send_message", **kept).calls[0].arguments == kept
    )


def test_a_body_whose_day_moved_becomes_the_requests_words():
    # 明天 and 今天 share every other word: the day memory.text.dates reads tells them apart.
    out = _screen(
        "给小孙发个消息，跟他说明天上午的盘点改到二号仓。", "send_message", to="小孙", body="今天上午的盘点改到二号仓。"
    )
    assert out.calls[0].arguments["body"] == "明天上午的盘点改到二号仓。"
    same = _screen(
        "给小孙发个消息，跟他说明天上午的盘点改到二号仓。", "send_message", to="小孙", body="明天上午盘点改到二号仓。"
    )
    assert same.notes == []


def test_a_dated_end_before_the_start_is_dropped_and_a_later_one_stays():
    request = "Book a call with Bram Visser the day after tomorrow at 3pm."
    out = _screen(
        request,
        "schedule_meeting",
        title="Call with Bram",
        start="the day after tomorrow at 3pm",
        attendees=["Bram Visser"],
        end="tomorrow at 3pm",
    )
    assert "end" not in out.calls[0].arguments and not out.held
    later = _screen(
        "Book a call with Bram Visser tomorrow at 3pm, until 4:30pm.",
        "schedule_meeting",
        title="Call with Bram",
        start="tomorrow at 3pm",
        attendees=["Bram Visser"],
        end="4:30pm",
    )
    assert later.calls[0].arguments["end"] == "4:30pm"  # a time of day alone is on the start's day


# ---------------------------------------------------------------- in the turn


class _Screened(ScriptedModel):
    wants_screen = True


def test_the_repaired_message_is_what_is_sent_and_what_the_confirmation_says(db):
    model = _Screened([tool_call("send_message", to="Odile", body="Sorry, I can't do that."), text("ok")])
    chat = store.get_chat(db, store.DEFAULT_CHAT, store.PRIVATE)
    s = Session(db=db, model=model, tools=all_tools(), tz=TZ, chat=chat, clock=lambda: NOW)
    result = run_turn(s, "let Odile know nobody opens the kiln before noon")
    (call,) = result.calls
    assert not call.is_error and call.arguments["body"] == "Nobody opens the kiln before noon"
    assert "kiln" in str(call.result)


def test_a_statement_naming_a_telling_or_a_task_offers_no_acting_tool():
    from agent.models.choices import EMBEDDED
    from agent.models.local import cut_prompt

    for said in ("I told Rhea the cold room is locked.", "Bram did the job of restocking the kits yesterday."):
        _, offered = cut_prompt([Message("user", said)], SPECS, EMBEDDED)
        assert not offered or all(t.name.startswith(screen.READING) for t in offered)


@pytest.mark.parametrize(
    "said, told",
    [
        ("pls tell 阿杰 from 灯光组 the rig has to be down by ten", "the rig has to be down by ten"),
        ("tell Wren in payroll the overtime sheet is signed", "the overtime sheet is signed"),
        ("Tell 李姐 the samples are on their way.", "the samples are on their way."),
    ],
)
def test_an_addressee_in_chinese_characters_or_with_where_they_are_is_told_the_rest(said, told):
    from memory.text import acts, people

    assert acts.asks_to_tell(said)
    assert people.material(said) == told


@pytest.mark.parametrize(
    "said, who, told",
    [
        (
            "msg Hamish who does the boats - the Loch Shin launch is off tomorrow",
            "Hamish",
            "the Loch Shin launch is off tomorrow",
        ),
        ("text Ailsa - the ferry leaves at 7 now", "Ailsa", "the ferry leaves at 7 now"),
    ],
)
def test_a_dash_after_the_addressee_of_a_message_opens_what_it_says(said, who, told):
    from memory.text import acts, people

    assert acts.asks_to_tell(said)
    assert people.named(said) == [who] and people.material(said) == told


@pytest.mark.parametrize("said, who", [("给后厨的小韩递个话儿：今晚的鱼不够了，先别上酸菜鱼。", "小韩")])
def test_a_word_passed_on_names_whom_it_goes_to(said, who):
    from memory.text import acts, people

    assert acts.asks_to_tell(said) and people.named(said) == [who]


@pytest.mark.parametrize(
    ("request_", "who"),
    [
        ("给会计婷婷发条消息：发票到了。", "婷婷"),
        ("给老板秘书丹丹捎句话：合同签好了。", "丹丹"),
        ("跟隔壁店的龙哥约个饭，后天晚上七点。", "龙哥"),
        ("盘点表交给实习生乐乐，周五前交。", "乐乐"),
    ],
)
def test_a_chinese_request_names_the_object_of_its_coverb_whatever_the_tagger_reads(request_, who):
    # The coverb's object before a verb with a measure (给…发条, 跟…约个, 跟…讲一声), or the one work is
    # handed to (交给…): the person, its head after the last 的.
    assert any(who in name for name in people.named(request_))


def test_a_coverb_that_is_a_verbs_first_character_names_no_one():
    assert people.named("帮我跟进一下这个单，看看到哪了") == []
