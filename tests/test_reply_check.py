"""The reply check (agent/reply_check.py): no invented actions, no parroting,
acting calls only from requests, confirmations built from tool results,
failed replies kept out of the model's history, /clear."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from agent import context, reply_check
from agent.loop import Session, run_turn
from agent.models.choices import EMBEDDED
from agent.models.scripted import ScriptedModel, text, tool_call
from memory import messages as store
from memory.text import acts
from tools import all_tools, lists

TZ = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 30, 9, 0, tzinfo=TZ)
INTRO = (
    "Hi! I'm Alexandra Novak, product manager at Northwind. Please call me Sasha, "
    "and please never use bullet points with me."
)


class EmbeddedLike(ScriptedModel):
    """A scripted model with the embedded model's choices, counting resamples."""

    choices = EMBEDDED

    def __init__(self, steps):
        super().__init__(steps)
        self.resamples = 0

    def resample(self) -> None:
        self.resamples += 1


def session(db, model, tools=None):
    chat = store.get_chat(db, "me", store.PRIVATE)
    tools = tools if tools is not None else all_tools()
    return Session(db=db, model=model, tools=tools, tz=TZ, chat=chat, clock=lambda: NOW)


# ---- what counts as a claim, a parrot, a request


@pytest.mark.parametrize(
    "reply, tools",
    [
        ("schedule_meeting done: event id: 2; title: Atlas Launch Plan", {"schedule_meeting"}),
        ("I have booked the meeting with Marco for 2pm.", {"schedule_meeting"}),
        ("The invite has been sent to Priya.", {"send_message"}),
        ("I've assigned the slides to Sam.", {"assign_task"}),
        ("已为你预订了明天下午两点的会议。", {"schedule_meeting"}),
    ],
)
def test_a_reply_that_says_kept_acted_is_a_claim(reply, tools):
    assert tools <= reply_check.claimed_actions(reply)


@pytest.mark.parametrize(
    "reply",
    [
        "Shall I book it for 2pm?",
        "I have not sent anything to Priya.",
        "Priya said she sent the report on Monday.",
        "You have a meeting booked on Tuesday.",
        "我没有发送任何消息。",
    ],
)
def test_questions_negations_and_reports_about_others_are_not_claims(reply):
    assert reply_check.claimed_actions(reply) == set()


@pytest.mark.parametrize(
    "reply, tools",
    [
        ("Sure, I'll send Odette the new gate code now.", {"send_message"}),
        ("I will schedule the walkthrough for Thursday at 10.", {"schedule_meeting"}),
        ("好的，我会帮您发送这条消息。", {"send_message"}),
        ("好的，我这就帮你安排。", {"schedule_meeting"}),
    ],
)
def test_a_promise_to_act_is_a_claim_as_a_report_is(reply, tools):
    # kept acts within the turn or not at all: a promise with no call is an action never done.
    assert tools <= reply_check.claimed_actions(reply)


@pytest.mark.parametrize(
    "reply",
    ["I'll book it once you confirm the time.", "I'll remember that.", "明天的会安排在三点。", "我会发现问题在哪的。"],
)
def test_a_promise_on_a_condition_or_a_future_that_is_no_act_is_no_claim(reply):
    assert reply_check.claimed_actions(reply) == set()


def test_an_echo_with_a_name_swapped_is_a_parrot_and_an_answer_is_not():
    echo = "Hello, Marco Rossi! I'm Alexandra Novak, product manager at Northwind. Please call me Marco Rossi."
    assert reply_check.containment(echo, INTRO) >= reply_check.PARROT_CONTAINMENT
    answer = "Nice to meet you, Sasha. I will write in plain sentences."
    assert reply_check.containment(answer, INTRO) < reply_check.PARROT_CONTAINMENT


def test_a_short_reply_that_repeats_an_earlier_one_is_a_parrot():
    verdict = reply_check.check(
        "No events found.", request="Some context: I run Atlas.", earlier=["No events found."], done=[]
    )
    assert not verdict.ok and verdict.reason.startswith("parrot")
    assert reply_check.check("Noted.", request="The launch is Friday.", earlier=["Got it."], done=[]).ok


@pytest.mark.parametrize(
    "reply",
    [
        '{"name": "schedule_meeting", "arguments": {"title": "核对发票活儿交给阿强',
        '```json\n[{"name": "assign_task", "arguments": {"assignee": "Sam"}}]\n```',
        '<tool_call>\n{"name": "send_message", "arguments": {"to": "Priya"',
    ],
)
def test_a_tool_call_written_as_text_is_never_shown(reply):
    verdict = reply_check.check(reply, request="把核对发票的活儿交给阿强。", earlier=[], done=[])
    assert not verdict.ok and "written as text" in verdict.reason
    assert reply_check.check('The file holds {"name": "x"}.', request="What is in it?", earlier=[], done=[]).ok


def test_an_answer_naming_what_was_never_said_is_not_shown(db):
    model = EmbeddedLike([text("Your manager is Tom Baker."), text("It is Rex Miller.")])
    s = session(db, model)
    run_turn(s, "My manager is on leave this week.")
    result = run_turn(s, "Who is my manager?")
    model.assert_complete()  # the chat spoke of the manager: the model answers, and its invented name is not shown
    assert result.reply == reply_check.HONEST_DONT_KNOW
    assert store.get(db, result.reply_message_id).meta["failed"].startswith("ungrounded")


def test_a_chinese_answer_naming_what_was_never_said_is_not_shown(db):
    # The chat spoke of the daughter and of 刘佳; the name the model gives blends their characters.
    model = EmbeddedLike([text("你女儿叫李佳发。"), text("她的名字是李佳发。")])
    s = session(db, model)
    run_turn(s, "我女儿下个月上小学。店长刘佳发来的消息我看过了。")  # statements: acknowledged in code
    result = run_turn(s, "我女儿叫什么名字？")
    model.assert_complete()
    assert result.reply == reply_check.HONEST_DONT_KNOW_ZH
    assert store.get(db, result.reply_message_id).meta["failed"].startswith("ungrounded")


def test_a_chinese_answer_from_what_was_said_is_shown(db):
    model = EmbeddedLike([text("她叫李佳。"), text("新店开在春熙路，装修预算是95万。")])
    s = session(db, model)
    run_turn(s, "我女儿李佳下个月上小学。我们下个月在春熙路开第八家分店，装修预算现在是95万。")
    assert run_turn(s, "我女儿叫什么名字？").reply == "她叫李佳。"
    assert run_turn(s, "新店开在哪条街？").reply == "新店开在春熙路，装修预算是95万。"


@pytest.mark.parametrize(
    "question, reply, invented",
    [
        ("Who is my dentist?", "Your dentist is Dr Kowalski.", ["Kowalski"]),
        ("我的牙医是谁？", "您的牙医是张伟医生。", ["张伟"]),
        ("我的车牌号是多少？", "您的车牌号是粤B12345。", ["b12345"]),
        ("Who is my dentist?", "Your dentist is the one you mentioned.", []),
        ("我的牙医是谁？", "您的牙医是王磊。", []),
    ],
)
def test_names_and_numbers_never_shown_are_ungrounded_in_either_script(question, reply, invented):
    shown = f"王磊下周来。 {question}"
    assert reply_check.ungrounded(reply, shown, question) == invented


def test_a_question_nothing_kept_holds_is_answered_i_dont_know_without_the_model(db):
    model = EmbeddedLike([])
    s = session(db, model)
    run_turn(s, "The Atlas budget is 40,000 euros.")  # a statement: acknowledged in code
    for question in ("What's my dog's name?", "我的车牌号是多少？", "What did I promise Tom?"):
        result = run_turn(s, question)
        assert result.reply == reply_check.dont_know(question) and result.calls == []
    model.assert_complete()  # no generation for any of them
    hosted = ScriptedModel([text("I don't have that.")])  # the choice is the embedded model's only
    assert run_turn(session(db, hosted), "What's my dog's name?").reply == "I don't have that."


@pytest.mark.parametrize(
    "question",
    [
        "What is the Atlas budget now?",  # the chat holds it
        "What are my open tasks?",  # a look-up lists tasks
        "What's on my calendar tomorrow?",  # names a time: a look-up
        "What is a mutex?",  # not about the person
    ],
)
def test_a_question_the_chat_or_a_look_up_can_answer_goes_to_the_model(question):
    known = ["2026-12-01: The Atlas budget is 40,000 euros."]
    assert not reply_check.unknown_to_kept(question, known, _specs())


@pytest.mark.parametrize(
    "question, known",
    [
        # A name the chat holds: whether anything was said of it is judged by what bears on it.
        ("remind me what I promised Dr Okonjo?", ["I told Dr Okonjo I'd send the ward rota by Friday."]),
        # Half the words held (the rota), the promise said in other words ("I told Dev I'd…").
        ("who did I promise the rota to?", ["I told him I'd get the staff rota out by Monday."]),
    ],
)
def test_a_question_half_of_whose_words_or_whose_names_are_held_is_not_unknown(question, known):
    assert not reply_check.unknown_to_kept(question, known, _specs())


def test_how_kept_addresses_the_person_is_never_i_dont_know_in_code(db):
    model = EmbeddedLike([text("我不知道你希望我怎么称呼你。")])
    s = session(db, model)
    run_turn(s, "我哥哥住在青岛。")  # a statement: acknowledged in code
    # 我的 makes it a question about the person's world, which nothing in the chat speaks of.
    assert run_turn(s, "你平常是怎么称呼我的？").reply == "我不知道你希望我怎么称呼你。"
    model.assert_complete()


def test_a_request_is_shown_to_the_embedded_model_alone(db):
    model = EmbeddedLike(
        [tool_call("schedule_meeting", title="Atlas plan", start="tomorrow 14:00", attendees=["Marco"])]
    )
    s = session(db, model)
    run_turn(s, "Some context: I'm running Project Atlas.")
    result = run_turn(s, "Book a meeting with Marco tomorrow at 2pm about the Atlas plan.")
    assert [m.content for m in model.requests[-1].messages] == [
        "Book a meeting with Marco tomorrow at 2pm about the Atlas plan."
    ]
    assert [c.name for c in result.calls] == ["schedule_meeting"]


def test_a_question_after_acknowledged_statements_is_shown_last_as_a_message_of_its_own(db):
    # kept's "Noted." replies are left out of the history, so the statements before a question
    # would join it as one message: the embedded model read a request among them as the question's.
    model = EmbeddedLike([text("Harbourside Labs.")])
    s = session(db, model)
    run_turn(s, "Our bloods now go to Harbourside Labs.")
    run_turn(s, "The courier comes at 3.")
    result = run_turn(s, "Which lab are our bloods going to?")
    sent = model.requests[-1]
    assert [m.content for m in sent.messages] == [
        "Our bloods now go to Harbourside Labs.",
        "The courier comes at 3.",
        "Which lab are our bloods going to?",
    ]
    assert result.reply == "Harbourside Labs."


# ---- through the turn


def test_an_invented_confirmation_is_rerun_once_then_replaced_by_an_honest_line(db):
    fake = "schedule_meeting done: event id: 2; title: Atlas Launch Plan; start: 2026-12-01T14:00"
    model = EmbeddedLike([text(fake), text("I have booked it for 2pm.")])
    result = run_turn(session(db, model), "Book a meeting with Marco Rossi tomorrow at 2pm about the launch plan")
    model.assert_complete()
    assert model.resamples == 1 and result.calls == []  # rerun once; nothing left set for the next turn
    assert result.reply == reply_check.HONEST_NO_ACTION
    stored = store.get(db, result.reply_message_id)
    assert stored.meta["failed"].startswith("invented action")


def test_a_rerun_that_passes_is_shown(db):
    model = EmbeddedLike([text("I've booked it."), text("Which day should the meeting be?")])
    result = run_turn(session(db, model), "Book a meeting with Marco")
    assert result.reply == "Which day should the meeting be?"
    assert not store.get(db, result.reply_message_id).meta


def test_a_parroted_reply_never_reaches_the_screen_or_the_models_history(db):
    asked = "Hi! I'm Alexandra Novak from Northwind. What should I call the launch plan?"
    echo = "Hello! I'm Alexandra Novak from Northwind. What should I call the launch plan?"
    model = EmbeddedLike([text(echo), text(echo), text("I do not know when the launch is.")])
    shown: list[str] = []
    s = session(db, model)
    first = run_turn(s, asked, on_text=shown.append)
    assert first.reply == reply_check.HONEST_NO_ANSWER and shown == [first.reply]
    assert store.get(db, first.reply_message_id).meta["failed"].startswith("parrot")
    # A question the model answers, shown with the chat's history ("When is the launch?" is answered
    # "I don't know" in code now: the launch was spoken of, never with a day).
    run_turn(s, "What did I ask you about the launch plan?")
    sent = model.requests[-1]
    history = sent.messages
    assert all(m.content != first.reply and m.content != echo for m in history)
    assert first.reply not in sent.system and echo not in sent.system
    # The person's two messages, each on its own: nothing of the failed reply.
    assert [m.content for m in history] == [asked, "What did I ask you about the launch plan?"]


def test_a_tool_call_the_model_writes_as_its_answer_never_reaches_the_screen(db):
    written = '{"name": "schedule_meeting", "arguments": {"title": "Harbor review", "start": "2026-12-01T14:'
    model = EmbeddedLike([text(written), text(written)])
    shown: list[str] = []
    s = session(db, model)
    run_turn(s, "The Harbor review is on Friday with Aisha.")  # acknowledged in code
    result = run_turn(s, "What did we decide about the Harbor review?", on_text=shown.append)
    model.assert_complete()  # rerun once, then an honest line
    assert result.reply == reply_check.HONEST_NO_ANSWER and shown == [result.reply] and result.calls == []
    assert store.get(db, result.reply_message_id).meta["failed"].startswith("a tool call written as text")


def test_a_statement_is_acknowledged_by_kept_with_its_days_worked_out(db):
    model = EmbeddedLike([])
    s = session(db, model)
    said = "Some context: I'm running Project Atlas, and the public launch is planned for next Thursday."
    result = run_turn(s, said)
    assert result.reply == "Noted (next Thursday: Thu 10 Dec)."  # NOW is Monday 30 Nov 2026
    assert run_turn(s, "我们和Acme的合同下周三到期。").reply == "好的，记下了（下周三：12月9日）。"
    model.assert_complete()  # the model was not asked
    assert store.get(db, result.reply_message_id).meta == {"from_code": "a statement"}
    assert context.build(db, s.chat, "When is the launch?", NOW, "Europe/Berlin").messages[0].content.startswith(said)
    hosted = ScriptedModel([text("Good luck with the launch!")])
    assert run_turn(session(db, hosted), said).reply == "Good luck with the launch!"


def test_kept_answers_in_the_language_a_message_is_written_in_not_the_script_of_a_name_in_it(db):
    model = EmbeddedLike([])
    s = session(db, model)
    # English naming Chinese people and a Chinese term: English, as the person writes
    assert run_turn(s, "Heads up: 王芳 from the 设计院 team joins the site visit tomorrow.").reply == (
        "Noted (tomorrow: Tue 1 Dec)."
    )
    # Chinese with English terms in it: Chinese
    assert run_turn(s, "明天的 kickoff 改到下午了，PM 是李雷。").reply.startswith("好的")
    assert reply_check.dont_know("Who is 王芳's manager at the 设计院?") == reply_check.HONEST_DONT_KNOW
    assert reply_check.dont_know("王芳的 manager 是谁？") == reply_check.HONEST_DONT_KNOW_ZH
    model.assert_complete()


@pytest.mark.parametrize(
    "message",
    [
        "I could use some advice on the pitch deck before Thursday.",
        "I'm completely stuck on the quarterly forecast.",
        "Not sure how to tell the team about the reorg.",
        "We need fresh ideas for the customer day.",
        "季度预算超支了，不知道该怎么跟老板说。",
    ],
)
def test_a_statement_that_wishes_for_help_is_answered_by_the_model(db, message):
    model = EmbeddedLike([text("Start with the one number they care about, then the plan.")])
    result = run_turn(session(db, model), message)
    model.assert_complete()  # the model was asked: no "Noted." for a wish for help
    assert result.reply == "Start with the one number they care about, then the plan."
    assert not store.get(db, result.reply_message_id).meta  # neither failed nor written by kept


def test_statements_of_the_acts_dev_sets_ask_for_no_help():
    import json
    from pathlib import Path

    for split in ("acts_dev.jsonl", "acts_dev2.jsonl"):
        path = Path(__file__).parent.parent / "evals" / "data" / split
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        statements = [r["text"] for r in rows if r.get("label") == "statement"]
        assert statements and not [t for t in statements if acts.asks_for_help(t)]


@pytest.mark.parametrize(
    "request_text, tells",
    [
        ("Tell Noor that the supplier audit moved to the Leeds site.", True),
        ("Could you let the night shift know that the boiler is fixed?", True),
        ("Write to Mr Abara that we'll pay the invoice on Monday.", True),
        ("Remind our landlord that the lease ends in June.", True),
        ("Give Bashir that ticket, due Friday.", False),  # "that" opens no clause
        ("Book a room with Noor that seats twelve.", False),  # no person right after the verb
        ("I told Noor that the audit moved.", False),  # a statement
        ("Tell me what Noor said about the audit.", False),  # a question
    ],
)
def test_a_request_to_tell_someone_something_is_read_by_its_shape(request_text, tells):
    assert acts.asks_to_tell(request_text) is tells


def test_kepts_confirmation_is_not_shown_to_the_model_and_a_copy_of_one_is_a_claim(db):
    model = EmbeddedLike(
        [
            tool_call("send_message", to="Fiona", body="The chronology is on its way."),
            text("Sent to Fiona by chat: “The chronology is on its way.”"),
            text("You said you would send Fiona the chronology."),
        ]
    )
    s = session(db, model)
    sent = run_turn(s, "Message Fiona that the chronology is on its way.")
    assert sent.reply.startswith("Sent to Fiona") and store.get(db, sent.reply_message_id).meta["from_code"]
    asked = run_turn(s, "What did I say I'd send Fiona?")  # the model copies kept's line: withdrawn, rerun
    assert asked.reply == "You said you would send Fiona the chronology."
    assert all(not m.content.startswith("Sent to") for m in model.requests[-1].messages)


def test_a_copy_of_a_message_merged_into_the_question_is_a_parrot(db):
    # kept's "Noted." replies are left out of the history, so the person's messages join the question.
    model = EmbeddedLike([text(INTRO + " The Atlas budget."), text("The Atlas budget is 55,000 euros.")])
    s = session(db, model)
    run_turn(s, INTRO)
    run_turn(s, "Change of plan: the Atlas budget is now 55,000 euros.")
    result = run_turn(s, "What is the Atlas budget now?")
    model.assert_complete()  # the copy of the introduction was withdrawn and generated again
    assert result.reply == "The Atlas budget is 55,000 euros."


def test_a_copy_after_a_look_up_is_a_parrot_too(db):
    model = EmbeddedLike([tool_call("search_memory", query="Atlas budget"), text(INTRO), text("It is 55,000 euros.")])
    s = session(db, model)
    run_turn(s, INTRO)
    run_turn(s, "The Atlas budget is 55,000 euros.")
    result = run_turn(s, "What is the Atlas budget now?")
    model.assert_complete()
    assert [c.name for c in result.calls] == ["search_memory"] and result.reply == "It is 55,000 euros."


def test_the_same_short_answer_to_a_question_asked_again_is_no_parrot():
    earlier = ["The Atlas budget is now 55,000 euros."]
    assert reply_check.check(earlier[0], request="What is the Atlas budget now?", earlier=earlier, done=[]).ok
    assert not reply_check.check(earlier[0], request="Thanks, that's all.", earlier=earlier, done=[]).ok


def test_a_statement_never_books(db):
    said = "Some context: I'm running Project Atlas and the launch is next Thursday."
    model = EmbeddedLike([])  # the embedded model is not asked at all
    assert run_turn(session(db, model), said).calls == []
    hosted = ScriptedModel(
        [tool_call("schedule_meeting", title="Project Atlas", start="today 09:00"), text("Noted, Project Atlas.")]
    )
    hosted.choices = replace(EMBEDDED, statements_in_code=False)  # the model asked, with acting calls needing a request
    result = run_turn(session(db, hosted), said)
    hosted.assert_complete()
    assert result.calls == [] and result.reply == "Noted, Project Atlas."
    assert hosted.requests[1].tools is None


@pytest.mark.parametrize(
    "said",
    [
        "Remind me to renew the gym membership on Friday.",
        "I promised Ola the quote by Thursday. Don't let me forget to send it.",
        "我答应了物业周五前交停车费，你帮我记着，到时候催我一下。",
    ],
)
def test_a_request_only_to_be_reminded_never_acts(db, said):
    # kept has no reminder tool: the embedded model is not asked, kept says so in its own words.
    model = EmbeddedLike([])
    result = run_turn(session(db, model), said)
    model.assert_complete()
    assert result.calls == []
    assert reply_check.NO_REMINDERS in result.reply or reply_check.NO_REMINDERS_ZH in result.reply
    assert store.get(db, result.reply_message_id).meta == {"from_code": "a request only to be reminded"}
    # A model asked anyway (statements not answered in code) has its acting calls dropped.
    asked = ScriptedModel([tool_call("assign_task", assignee="me", title="Renew the gym"), text("Will do.")])
    asked.choices = replace(EMBEDDED, statements_in_code=False)
    result = run_turn(session(db, asked), said)
    asked.assert_complete()
    assert result.calls == [] and result.reply == "Will do."


@pytest.mark.parametrize(
    "said",
    [
        "Hi, I'm Rosalind Achebe from the front desk at a clinic in Leeds. Give me every answer as a short numbered list.",
        "我是孟晓帆，在成都做会计。给我回复的时候分条列出来。",
    ],
)
def test_a_wish_about_treatment_is_noted_with_no_word_of_reminders(db, said):
    model = EmbeddedLike([])
    result = run_turn(session(db, model), said)
    model.assert_complete()  # no generation
    assert result.calls == []
    assert reply_check.NO_REMINDERS not in result.reply and reply_check.NO_REMINDERS_ZH not in result.reply
    assert store.get(db, result.reply_message_id).meta == {"from_code": "a wish about treatment"}


def test_a_request_only_to_be_reminded_is_offered_no_tool():
    from agent.models.base import Message
    from agent.models.local import cut_prompt

    _, tools = cut_prompt([Message("user", "Remind me to send the deck to Rui by Friday.")], _specs(), EMBEDDED)
    assert tools is None
    _, tools = cut_prompt([Message("user", "Remind Rui to send the deck by Friday.")], _specs(), EMBEDDED)
    assert tools and any(not t.name.startswith(reply_check.READING) for t in tools)


def test_after_an_action_the_confirmation_is_built_from_the_result(db):
    model = EmbeddedLike(
        [tool_call("schedule_meeting", title="Atlas launch plan", attendees=["Marco Rossi"], start="tomorrow 14:00")]
    )
    result = run_turn(session(db, model), "Book a meeting with Marco Rossi tomorrow at 2pm: Atlas launch plan")
    model.assert_complete()  # no second generation: kept writes the confirmation
    (call,) = result.calls
    assert not call.is_error
    reply = result.reply
    assert "Atlas launch plan" in reply and "14:00" in reply and "Marco Rossi" in reply and "Dec" in reply
    assert reply_check.claimed_actions(reply) <= {"schedule_meeting"}  # a confirmation its own check accepts


def test_a_hosted_model_streams_and_writes_its_own_confirmation(db):
    model = ScriptedModel(
        [
            tool_call("schedule_meeting", title="Sync", start="tomorrow 10:00"),
            text("Booked your sync for tomorrow at 10:00."),
        ]
    )
    shown: list[str] = []
    result = run_turn(session(db, model), "Book a sync tomorrow at 10:00", on_text=shown.append)
    model.assert_complete()
    assert result.reply == "Booked your sync for tomorrow at 10:00."


def test_clear_starts_a_fresh_context_and_keeps_the_chat(db):
    model = EmbeddedLike([text("Noted, the launch is Thursday."), text("I don't know.")])
    s = session(db, model)
    run_turn(s, "The launch is on Thursday.")
    context.clear(db, s.chat)
    run_turn(s, "When is the launch?")
    assert [m.content for m in model.requests[-1].messages] == ["When is the launch?"]
    assert len(store.history(db)) == 4  # nothing deleted


# ---- the embedded model's prompt cuts (agent/models/local.py cut_prompt)


def _specs():
    from agent.models.base import ToolSpec

    return [ToolSpec(t.name, t.description, t.parameters) for t in all_tools()]


def test_a_question_is_offered_only_the_tools_that_look_things_up_and_a_statement_none():
    from agent.models.base import Message
    from agent.models.local import cut_prompt

    _, tools = cut_prompt([Message("user", "What is on my calendar on Friday?")], _specs(), EMBEDDED)
    assert tools and all(t.name.startswith(reply_check.READING) for t in tools)
    _, tools = cut_prompt([Message("user", "Some context: I'm running Project Atlas.")], _specs(), EMBEDDED)
    assert tools is None


def test_a_request_without_a_time_is_not_offered_booking():
    from agent.models.base import Message
    from agent.models.local import cut_prompt

    _, tools = cut_prompt([Message("user", "Please call me Sasha and send Priya the notes.")], _specs(), EMBEDDED)
    names = {t.name for t in tools}
    assert "schedule_meeting" not in names and "send_message" in names
    _, tools = cut_prompt([Message("user", "Book a meeting with Marco tomorrow at 2pm.")], _specs(), EMBEDDED)
    assert "schedule_meeting" in {t.name for t in tools}


def test_fewer_recent_messages_start_at_a_message_of_the_person():
    from agent.models.base import Message
    from agent.models.local import cut_prompt

    history = [Message("user" if i % 2 == 0 else "assistant", f"m{i}") for i in range(11)]
    kept, _ = cut_prompt(history, None, EMBEDDED)
    assert len(kept) <= EMBEDDED.recent_limit and kept[0].role == "user" and kept[-1].content == "m10"


def test_every_tool_list_the_cut_offers_is_one_kept_model_warm_prepares():
    from agent.models.base import Message
    from agent.models.local import cut_prompt, tool_lists

    prepared = tool_lists(_specs(), EMBEDDED)
    for turn in (
        "Book a meeting with Marco tomorrow at 2pm.",
        "Send Priya the notes.",
        "What is on my calendar on Friday?",
    ):
        _, offered = cut_prompt([Message("user", turn)], _specs(), EMBEDDED)
        assert offered in prepared, turn
    assert len(prepared) == 3


@pytest.mark.parametrize(
    "question, known",
    [
        ("What's Imke's phone number?", ["Imke Vos runs our payroll and signs off anything over 5k."]),
        ("How many rooms does the venue have?", ["The retreat is at Elm Hall in the second week of June."]),
        ("What's my landlord's name?", ["The flat's boiler was fixed on Monday."]),
        ("老周的邮箱是多少？", ["老周负责我们的报销，每月底对一次账。"]),
        # Whose thing is asked (my son) was never spoken of, though a school was.
        ("我儿子在哪个幼儿园？", ["我在苏州一所小学当老师，每周五开会。"]),
        # A count asks for its noun: honey and Austria were spoken of, never kilos of it.
        (
            "How many kilos of honey did we sell to Austria this season?",
            ["Our co-op sells wildflower honey to shops in Austria and Slovenia, three pallets a month at most."],
        ),
    ],
)
def test_a_question_no_line_speaks_to_is_unknown_even_when_its_names_are_known(question, known):
    assert reply_check.nothing_bears_on(question, known)


@pytest.mark.parametrize(
    "question, known",
    [
        ("What's Imke's day rate?", ["Imke charges 600 euros a day until March."]),  # a word of what is asked
        ("Which nights is choir?", ["Choir practice is on Tuesdays and Thursdays."]),  # a day for "which nights"
        ("Who is my landlord?", ["My landlord, Piet Smit, fixed the boiler on Monday."]),
        ("老周的手机号是多少？", ["老周的手机号是 138 0000 1234。"]),
        ("我儿子在哪个幼儿园？", ["我儿子上个月转到了阳光幼儿园。"]),
        ("What is the capital of Peru?", []),  # not about the person's world: not judged here
        ("How many kilos of honey did we sell to Austria?", ["We sold 800 kilos to Austria in the spring."]),
    ],
)
def test_a_question_a_line_speaks_to_goes_on(question, known):
    assert not reply_check.nothing_bears_on(question, known)


def test_what_a_count_asks_is_its_noun_in_either_language():
    from memory import asked

    assert asked.asked_thing("How many kilos of honey did we sell?") == "kilos"
    assert asked.asked_thing("我们仓库一共有多少个货架？") == "货架"
    assert asked.asked_thing("What's Imke's phone number?") == asked.asked_for("What's Imke's phone number?")


def test_a_chinese_term_is_not_spoken_of_by_one_of_its_characters():
    # 货架 ("shelves") against a line with 货 ("goods") only: no line says shelves.
    assert reply_check.asked_thing_unheld("我们仓库一共有多少个货架？", ["这批货下周三到，司机是老陈。"])
    assert not reply_check.asked_thing_unheld("我们仓库一共有多少个货架？", ["仓库里的货架上个月刚换过。"])
    assert "架" not in reply_check.term_words("货架") and "货架" in reply_check.term_words("货架")


def test_a_known_name_does_not_stop_i_dont_know_for_what_was_never_said_of_it(db):
    model = EmbeddedLike([])
    s = session(db, model)
    run_turn(s, "Imke Vos runs our payroll and signs off anything over 5k.")  # a statement: acknowledged in code
    result = run_turn(s, "What's Imke's phone number?")
    assert result.reply == reply_check.HONEST_DONT_KNOW and result.calls == []
    model.assert_complete()  # no generation


@pytest.mark.parametrize(
    "question, reply",
    [
        ("How many seats does the minibus have?", "I am Tanya, everyone does."),
        ("When is the audit?", "Sure, sounds good."),
        ("Who signs off the invoices?", "yes, that is right."),
        ("下周的培训要多少钱？", "好的，没问题。"),
    ],
)
def test_a_reply_beside_the_question_is_off_it(question, reply):
    assert reply_check.off_question(reply, question)
    assert not reply_check.check(reply, request=question, earlier=[], done=[]).ok


@pytest.mark.parametrize(
    "question, reply",
    [
        ("How many seats does the minibus have?", "Fourteen."),  # a value of the asked kind
        ("When is the audit?", "On 3 March."),
        ("Who signs off the invoices?", "Marta Lind."),
        ("Who signs off the invoices?", "The invoices go to finance."),  # a word of the question
        ("下周的培训要多少钱？", "八千块。"),
        ("谁负责报销？", "老周。"),  # a Chinese name may be all dictionary characters: not judged
        ("What did I promise Tom?", "ok"),  # "what" asks for no kind of value: not judged here
        ("Who signs off the invoices?", reply_check.HONEST_DONT_KNOW),
    ],
)
def test_an_answer_or_an_honest_line_is_not_off_the_question(question, reply):
    assert reply_check.off_question(reply, question) == ""


@pytest.mark.parametrize(
    "question, known",
    [
        # The bakery was spoken of, never with a time; the one time known is a meeting's.
        (
            "What time does the bakery open on Sundays?",
            ["I run a bakery on Mill Lane with two ovens.", "Book a meeting with Karl tomorrow at 9am."],
        ),
        ("How many seats does the noodle bar have?", ["We opened a noodle bar in Leeds last spring."]),
        # Read by its English senses (a word the dictionary lacks, 面馆, is not read: left to the model).
        ("那家餐厅一共有多少个座位？", ["我在苏州开了一家餐厅，生意还不错。", "帮我约一下王总，明天下午三点。"]),
        ("仓库每个月的租金是多少钱？", ["我们的仓库在城东，离高速很近。", "车队现在有30辆车。"]),
    ],
)
def test_a_question_for_a_kind_of_value_nothing_known_holds_for_its_thing_is_unknown(question, known):
    assert reply_check.no_value_of_kind(question, known, _specs())


@pytest.mark.parametrize(
    "question, known",
    [
        ("What time does the bakery open on Sundays?", ["On Sundays the bakery opens at 8am."]),
        ("那家餐厅一共有多少个座位？", ["我在苏州开了一家餐厅，一共有40个座位。"]),
        # The value in the next sentence of the same message, of the thing the one before named.
        ("How many seats does the noodle bar have?", ["We opened a noodle bar in Leeds. It has room for 45 diners."]),
        # Never spoken of: a value may be known in other words, so not judged by kind.
        ("What time does the gym open?", ["I run a bakery on Mill Lane.", "Book a meeting with Karl at 9am."]),
        ("What time is my meeting with Karl?", ["Karl is our miller."]),  # the calendar's to answer
        ("How big is the noodle bar?", ["We opened a noodle bar in Leeds last spring."]),  # no kind read surely
        ("Who runs the noodle bar?", ["We opened a noodle bar in Leeds last spring."]),  # a person: any words
        ("How many seats does the noodle bar have?", []),  # nothing shown: the model may look it up
        ("How many forklifts does the depot run?", ["Our depot in Tilburg runs 6 forklifts on two shifts."]),
    ],
)
def test_a_question_whose_kind_of_value_may_be_known_goes_on(question, known):
    assert not reply_check.no_value_of_kind(question, known, _specs())


def test_a_question_that_says_back_the_value_asked_for_is_no_parrot():
    assert not reply_check.repeats("厨房现在有8台冷藏柜。", "厨房现在有多少台冷藏柜？", [])
    assert not reply_check.repeats("诊所现在有6位牙科医生。", "诊所现在有多少位牙科医生？", [])
    assert reply_check.repeats("厨房现在有多少台冷藏柜", "厨房现在有多少台冷藏柜？", [])  # no value added: a copy


def test_what_kept_calls_the_person_may_be_answered_in_souls_words():
    soul = "Call them Bea. Never use bullet points with them."
    assert not reply_check.repeats("I call you Bea.", "What do you call me?", [], memory=[soul])


def test_an_introduction_beyond_the_recent_messages_still_counts_as_known(db):
    model = EmbeddedLike([])
    s = session(db, model)
    run_turn(s, "I run a bakery on Mill Lane with two ovens.")  # a statement: acknowledged in code
    for i in range(12):  # more statements than the embedded model is shown
        run_turn(s, f"The flour for week {i} arrived dry.")
    result = run_turn(s, "What time does the bakery open on Sundays?")
    assert result.reply == reply_check.HONEST_DONT_KNOW
    model.assert_complete()


def test_a_value_the_calendar_holds_is_not_answered_i_dont_know(db):
    model = EmbeddedLike([text("The launch party is on your calendar.")])
    s = session(db, model)
    start = datetime(2026, 12, 4, 18, 0, tzinfo=TZ)
    lists.add_event(db, title="Launch party", start=start, end=start + timedelta(hours=2), now=NOW)
    run_turn(s, "The launch party is for the whole street.")  # a statement: acknowledged in code
    assert run_turn(s, "What time is the launch party?").reply == "The launch party is on your calendar."
    model.assert_complete()


def test_a_time_never_given_for_a_thing_spoken_of_is_answered_i_dont_know_without_the_model(db):
    model = EmbeddedLike([])
    s = session(db, model)
    run_turn(s, "I run a bakery on Mill Lane with two ovens.")  # a statement: acknowledged in code
    result = run_turn(s, "What time does the bakery open on Sundays?")
    assert result.reply == reply_check.HONEST_DONT_KNOW and result.calls == []
    model.assert_complete()  # no generation


def test_with_nothing_shown_nothing_is_judged():
    # A one-shot `kept ask` before any fact is stored: the model may still look it up.
    assert not reply_check.nothing_bears_on("Who is our contact at the IT company?", [])


def test_an_answer_may_quote_the_persons_earlier_sentence_but_a_copy_beside_the_question_may_not():
    said = ["Our depot in Gdansk opens on the 14th of March, and Ola Nowak runs it."]
    answer = "Our depot in Gdansk opens on the 14th of March."
    assert reply_check.check(answer, request="When does the Gdansk depot open?", earlier=[], done=[], said=said).ok
    # The same sentence to a question it does not answer, or as an earlier reply of kept's: a copy.
    assert not reply_check.check(answer, request="Book me a taxi.", earlier=[], done=[], said=said).ok
    copied = reply_check.check(answer, request="Who is Ola's deputy?", earlier=[answer], done=[], said=said)
    assert not copied.ok and "an earlier reply" in copied.reason
    # The person's introduction, copied with a name swapped, shares no word with the question: refused.
    intro = ["Hi, I'm Jan Kowal, I run logistics at Vistula. Call me Janek."]
    echo = "Hi, I'm Ola Nowak, I run logistics at Vistula. Call me Ola Nowak."
    assert not reply_check.check(echo, request="When does the depot open?", earlier=[], done=[], said=intro).ok


def test_a_copy_of_a_reply_from_another_chat_is_a_parrot_and_kepts_own_lines_are_not_sources(db):
    # A new chat (or a `kept ask`) shows the model none of the last chat's replies, but a copy of
    # one is still a copy: the check reads kept's earlier generated replies from the store.
    earlier = "The vendor call is booked and the contract draft is with legal now, waiting for their notes."
    model = EmbeddedLike([text(earlier), text("I do not know more than that the contract is with legal.")])
    old = store.get_chat(db, "before", store.PRIVATE)
    store.add_message(db, old, "user", "me", "Where are we with the vendor?", NOW)
    store.add_message(db, old, "assistant", "kept", earlier, NOW)
    store.add_message(db, old, "assistant", "kept", "Noted (the 14th).", NOW, meta={"from_code": "a statement"})
    assert store.generated_replies(db) == [earlier]
    result = run_turn(session(db, model), "What is happening with the vendor contract?")
    model.assert_complete()  # the copy was generated again once
    assert result.reply == "I do not know more than that the contract is with legal."


def test_a_reply_that_copies_kepts_own_prompt_is_a_parrot_and_an_answer_is_not(db):
    # The prompt as built for a turn, and as the embedded model is shown it: a reply made of
    # either (its clock line, a memory block's heading) copied the prompt, whatever it asked.
    from agent.context import plain_memory
    from memory import soul

    soul.set_text(db, "Call me Wenna. No tables, plain text only.")
    system = context.build(db, store.get_chat(db, "me"), "What's our App Store rating?", NOW, "Europe/Berlin").system
    start = system.index("Now:")
    for shown in (system, plain_memory(system)):
        copy = shown[start : start + 160]
        verdict = reply_check.check(copy, request="What's our App Store rating?", earlier=[], done=[])
        assert not verdict.ok and "prompt" in verdict.reason, copy
    soul_heading = plain_memory(system)[plain_memory(system).index("Stored soul") :].split("\n")[0]
    assert not reply_check.check(soul_heading, request="How should you write to me?", earlier=[], done=[]).ok
    # The heading put in another language keeps its note: still a copy of the prompt.
    translated = "存储的 " + soul_heading.removeprefix("Stored ")
    assert not reply_check.check(translated, request="你平常管我叫啥？", earlier=[], done=[]).ok
    answer = "I don't know our App Store rating: you haven't told me, Wenna. It's Monday 30 Nov now."
    assert reply_check.check(answer, request="What's our App Store rating?", earlier=[], done=[]).ok
    assert reply_check.check(copy, request="What's our App Store rating?", earlier=[], done=[], parrot=False).ok


# ---- answers from the person's own words (issue 18, session 11)


def test_what_was_promised_is_answered_with_the_persons_own_sentence():
    from agent.reply_check import promised_answer

    said = [
        "Hiya, I look after production.",
        "I've told Rosalind that I'll have the spring seasonal costed up by the end of next week. Nag me if I slip.",
        "我跟财务的孙丽娟说好了，这周五下班前把十一月的油费报销单交给她。",
        "帮我 set up 一个 meeting with Ravi Menon, 明天下午 4:30",
    ]
    assert "spring seasonal" in promised_answer("what was it I said I'd do for Rosalind again?", said)
    assert "油费" in promised_answer("我答应孙丽娟什么事来着？", said)
    # No sentence of a promise to them: no answer from code (the other tests or the model decide).
    assert promised_answer("What did I promise Ravi?", said) == ""
    assert promised_answer("What did I promise?", said) == ""  # names no one
    assert promised_answer("Tell Rosalind I'm late", said) == ""  # no question


def test_how_kept_addresses_the_person_is_answered_from_souls_naming_wish():
    from agent.reply_check import address_answer

    soul = "- 店里的小年轻都叫我萍姐，你也这么叫就好.\n- 回答请先给结论."
    assert address_answer("你平时都叫我什么？", soul) == "我叫你萍姐。"
    assert address_answer("What do you have me down as, name-wise?", "- Everyone calls me Teddie.") == (
        "I call you Teddie."
    )
    # A negated naming names what not to use; no naming wish, no answer from code.
    assert address_answer("What do you call me?", "- Nobody has called me Marguerite since my christening.") == ""
    assert address_answer("What do you call me?", "- no emojis, ever") == ""


def test_a_day_does_not_send_a_question_about_an_unlisted_thing_to_a_look_up():
    from agent.models.base import ToolSpec
    from agent.reply_check import undated_unless_listed

    tools = [ToolSpec("list_events", "List calendar events in a date range.", {}), ToolSpec("list_tasks", "", {})]
    assert undated_unless_listed("How many barrels did we brew last month?", tools) == "How many barrels did we brew?"
    assert undated_unless_listed("What events do I have tomorrow?", tools) == "What events do I have tomorrow?"
    assert undated_unless_listed("What's on tomorrow?", tools) == "What's on tomorrow?"
    assert undated_unless_listed("How many barrels did we brew last month?", None).endswith("last month?")


def test_a_request_whose_times_are_all_deadlines_is_not_offered_a_tool_that_needs_a_start():
    from agent.models.base import Message, ToolSpec
    from agent.models.local import cut_prompt, deadline_only, tool_lists

    meeting = ToolSpec("schedule_meeting", "Book.", {"required": ["title", "start"]}, kinds={"start": "moment"})
    task = ToolSpec("assign_task", "Assign.", {"required": ["assignee", "title"]}, kinds={"due": "deadline"})
    for deadline in (
        "给杨志刚派个活：冷库里的温湿度计全部换成新的，后天下午五点前搞定。",
        "Give Hannah a task, due the day after tomorrow at 4pm.",
    ):
        assert deadline_only(deadline)
        _, offered = cut_prompt([Message("user", deadline)], [meeting, task], EMBEDDED)
        assert [t.name for t in offered] == ["assign_task"]
    # The deadline's preposition governs the whole time phrase, an hour before its day included,
    # and a bare hour may stand between them.
    assert deadline_only("Hand Priya the fridge audit, finished by eleven a.m. on Thursday.")
    assert deadline_only("the hedge along the lane is Owen's, trimmed by four tmrw afternoon")
    # A deadline and a time to meet in one request: not every time is a deadline.
    assert not deadline_only("The audit is due Friday, and set up a call with Priya at 3pm.")
    booking = "Book a meeting with Marco Rossi tomorrow at 2pm about the launch."
    assert not deadline_only(booking)
    _, offered = cut_prompt([Message("user", booking)], [meeting, task], EMBEDDED)
    assert {t.name for t in offered} == {"schedule_meeting", "assign_task"}
    assert [task] in tool_lists([meeting, task], EMBEDDED)  # its prefix is saved with the others


def test_the_same_number_again_to_the_same_question_is_no_parrot_when_memory_holds_it():
    block = ["- 2026-12-03: 这周 close 掉了一大批, open 的 CAPA 现在只剩 23 个了。"]
    assert reply_check.repeats("23", "open CAPA 还剩几个来着?", ["23"], block, []) == ""
    # A number no line about the question's thing holds is still a copy.
    assert reply_check.repeats("Budget: 40,000 euros", "How many people attend?", ["Budget: 40,000 euros"], [], [])


def test_a_question_the_model_could_not_answer_is_i_dont_know_when_nothing_held_says_its_thing(db):
    model = EmbeddedLike([text("Leeds is lovely in spring."), text("Kirkstall is a fine place.")])
    s = session(db, model)
    run_turn(s, "I look after production at Kirkstall Bridge Brewing in Leeds.")  # acknowledged in code
    # "last month" once sent the question to the model; its replies were off the question, and
    # no line kept holds says "barrels": kept does not know, rather than "could not work that out".
    assert run_turn(s, "How many barrels did we brew last month?").reply == reply_check.HONEST_DONT_KNOW


def test_the_one_promised_to_by_surname_and_title_or_as_a_topic():
    from agent.reply_check import promised_answer

    said = [
        "我答应了刘芳老师，周四之前把新的课表发给她。",
        "我答应了Oriole的老板Grace, 这周五前给她三套material board的选项。",
    ]
    assert "课表" in promised_answer("我答应刘老师什么事来着？", said)
    assert "material" in promised_answer("Grace那边我答应了什么?", said)


def test_a_number_asked_is_answered_with_the_persons_latest_sentence_holding_it():
    from agent.reply_check import number_answer

    said = [
        "目前 open 的 CAPA 一共 37 个, 老板看了报表脸都黑了。",
        "这周 close 掉了一大批, open 的 CAPA 现在只剩 23 个了。",
    ]
    assert "23" in number_answer("现在还有多少个 open CAPA?", said)
    assert number_answer("现在还有多少个 open CAPA?", said[:1]).count("37") == 1
    assert number_answer("How many barrels did we brew?", said) == ""  # nothing said of barrels


def test_how_kept_addresses_the_person_falls_back_to_their_own_naming_words():
    from agent.reply_check import address_answer

    said = ["Hiya. Honestly nobody's called me Marguerite since my christening, it's Mags.", "What do you call me?"]
    assert address_answer("what name have you got me down as?", "- no emojis, ever", said) == "I call you Mags."


def test_a_request_whose_every_time_is_a_deadline_is_written_as_the_deadline_tool():
    from agent.models.base import Message, ToolSpec
    from agent.models.local import LocalModel

    meeting = ToolSpec("schedule_meeting", "Book.", {"required": ["title", "start"]}, kinds={"start": "moment"})
    task = ToolSpec("assign_task", "Assign.", {"required": ["assignee", "title"]}, kinds={"due": "deadline"})
    listing = ToolSpec("list_events", "List.", {})
    model = LocalModel(path="unused")
    deadline = [Message("user", "给杨志刚派个活：冷库里的温湿度计全部换成新的，后天下午五点前搞定。")]
    assert model._forced_tool(deadline, [listing, task]) is task
    from memory import meaning

    with meaning.words_only():
        # Someone to be with at a time that is no deadline: a meeting by its grammar.
        booking = [Message("user", "Book a meeting with Marco Rossi tomorrow at 2pm about the launch.")]
        assert model._forced_tool(booking, [listing, meeting, task]) is meeting
        # No shape decides this one: without the meaning model the model chooses.
        booking = [Message("user", "Put the launch review in the diary for tomorrow at 2pm.")]
        assert model._forced_tool(booking, [listing, meeting, task]) is None


def test_what_the_person_said_they_would_do_is_asked_with_the_base_form_after_did_too():
    said = ["Told Mrs Kiely I'd ring her back before Thursday about a payment plan."]
    for question in ("what did I say I'd do for Mrs Kiely?", "wat did i say id do for mrs kiely"):
        assert "payment plan" in reply_check.promised_answer(question, said), question


# An introduction whose only imperative says how to treat the person (names and wishes written
# for this test): no tool does what it asks.
INTRODUCTIONS_WITH_A_WISH = [
    "Hello, Dorota Wiśniewska, I manage the stores at Hatfield Lane depot. Everyone calls me Dot. "
    "One thing: give me dates as day-month, never month-day.",
    "你好，我是冯建军，在成都开了三家火锅店。大家都叫我军哥。跟我说话直接点儿，别整那些花里胡哨的格式。",
]


@pytest.mark.parametrize("said", INTRODUCTIONS_WITH_A_WISH)
def test_an_introduction_whose_only_order_is_a_wish_about_treatment_licenses_no_tool(said):
    from agent.models.base import Message
    from agent.models.local import cut_prompt
    from memory.text import acts as text_acts

    assert text_acts.asks_to_act(said)  # the grammar alone reads an order in it
    assert not reply_check.asks_to_act(said)
    _, tools = cut_prompt([Message("user", said)], _specs(), EMBEDDED)
    assert tools is None


@pytest.mark.parametrize(
    "said",
    [
        "Send Ana the notes as bullet points.",
        "Call me Dot, and book the stores audit with Kasia for Friday at 10.",
        "Would you add 'order more pallets' to my tasks?",
    ],
)
def test_a_request_to_act_beside_or_shaped_like_a_wish_still_licenses_tools(said):
    assert reply_check.asks_to_act(said)


def test_a_rule_for_the_form_of_every_reply_licenses_no_tool():
    said = "Hey, Ines Duarte, I run the night desk at a Lisbon hotel. One thing: give every date in day-month format."
    assert not reply_check.asks_to_act(said)


@pytest.mark.parametrize(
    "question, said",
    [
        ("我们仓库现在一共有多少个员工？", "我在大连开了家物流公司，干了十二年了。"),
        ("How many learners are in Grade 10 this year?", "The Grade 10 camp moved to March."),
        ("How many floors will the new depot have?", "The new depot opens in 2027 with 3 loading bays."),
    ],
)
def test_a_number_of_something_else_does_not_answer_a_count(question, said):
    assert reply_check.number_answer(question, [said]) == ""


@pytest.mark.parametrize(
    "question, said, number",
    [
        ("车队现在有多少辆冷藏车？", "新订的六辆车今天到了，车队现在是52辆冷藏车。", "52"),
        ("How many guests are we planning for at the gala?", "RSVPs closed and the gala guest count is 240.", "240"),
        ("仓库还剩几个托盘来着？", "托盘 quota 被砍到 90 个了。", "90"),
        ("How many people are coming on Friday?", "We are expecting 35 for Friday's tasting.", "35"),
    ],
)
def test_a_number_of_the_counted_thing_answers_a_count(question, said, number):
    assert number in reply_check.number_answer(question, [said])


def test_the_latest_count_the_person_gave_answers_however_the_number_is_put():
    said = [
        "Our render farm runs on 40 machines for now.",
        "Upgrade done: the render farm is at 64 machines as of this week.",  # "at 64" is no time of day
    ]
    assert "64 machines" in reply_check.number_answer("How many machines in the render farm now?", said)
