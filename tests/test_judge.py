"""The recall judge's wiring (memory/judge.py, agent/judging.py), with the scripted model.

Its quality is not tested here: no hosted model is reachable where kept is built.
"""

from __future__ import annotations

import logging
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from agent import config, context, judging
from agent.loop import Session, run_turn
from agent.memory_llm import ModelMemoryLLM
from agent.models.base import AUTH, ModelError
from agent.models.scripted import ScriptedModel, error, text, tool_call
from memory import facts as fact_log
from memory import messages as store
from memory.db import transaction
from memory.judge import PURPOSE, Judge

TZ = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 2, 9, 0, tzinfo=TZ)
QUESTION = "When is the Harbor launch, and who owns Harbor?"


def _facts(db):
    with transaction(db) as conn:
        for said_on, words in (
            ("2026-10-01", "The Harbor launch is on December 3."),
            ("2026-10-02", "Aisha owns Harbor."),
            ("2026-10-03", "The Harbor launch party owns the rooftop on December 4."),
        ):
            fact_log.add_fact(conn, words, said_on, [])


def _judge(*steps, provider="anthropic"):
    model = ScriptedModel(list(steps), provider=provider)
    return Judge(ModelMemoryLLM(model, None, sleep=lambda s: None), errors=(ModelError,)), model


def _build(db, judge):
    return context.build(db, store.get_chat(db, "me"), QUESTION, NOW, "Europe/Berlin", judge=judge)


def _fact_texts(ctx):
    return [i.text for i in ctx.items if i.kind == "fact"]


def test_the_judges_prompt_holds_the_turn_and_every_candidate_and_its_answer_filters_them(db):
    _facts(db)
    without = _fact_texts(_build(db, None))
    assert len(without) == 3
    judge, model = _judge(tool_call("judged", keep=[1, 3]))
    ctx = _build(db, judge)
    model.assert_complete()
    (request,) = model.requests
    prompt = request.messages[0].content
    assert QUESTION in prompt and all(t in prompt for t in without)
    assert request.require_tool and request.tools[0].name == "judged"
    kept = _fact_texts(ctx)
    assert kept == [without[0], without[2]] and without[1] not in ctx.system
    assert (judge.asked, judge.kept, judge.dropped, judge.failed) == (1, 2, 1, 0)


def test_none_leaves_no_memory_of_recall_in_the_prompt(db):
    _facts(db)
    judge, model = _judge(tool_call("judged", keep=[]))
    ctx = _build(db, judge)
    model.assert_complete()
    assert _fact_texts(ctx) == [] and '<memory kind="facts"' not in ctx.system and "Harbor launch" not in ctx.system


def test_the_judge_also_sifts_the_persons_quoted_messages(db):
    me = store.get_chat(db, "me")
    for day, words in ((1, "My Harbor launch date is December 3."), (2, "My Harbor owner is Aisha.")):
        store.add_message(db, me, "user", "me", words, datetime(2026, 10, day, 9, tzinfo=TZ))
    for i in range(20):
        store.add_message(db, me, "user", "me", f"printer note {i}", datetime(2026, 10, 20, 9, tzinfo=TZ))
    judge, model = _judge(tool_call("judged", keep=[2]))
    ctx = _build(db, judge)
    model.assert_complete()
    assert "My Harbor launch date is December 3." in model.requests[0].messages[0].content
    said = [i.text for i in ctx.items if i.kind == "said"]
    assert len(said) == 1 and said[0] in model.requests[0].messages[0].content.split("\n2. ", 1)[1]


@pytest.mark.parametrize(
    "step",
    [
        text("Facts 1 and 2 matter."),  # prose, not the one call
        tool_call("judged", keep="first two"),  # wrong shape
        tool_call("judged", keep=[1, 7]),  # a number that is no candidate's
        error(AUTH, "key refused"),  # a provider error (not retried)
    ],
    ids=["prose", "wrong-shape", "out-of-range", "provider-error"],
)
def test_an_unusable_reply_or_a_provider_error_keeps_the_matchers_list_counted_and_logged(db, step, caplog):
    _facts(db)
    without = _fact_texts(_build(db, None))
    judge, model = _judge(step)
    with caplog.at_level(logging.WARNING, logger="kept.memory"):
        ctx = _build(db, judge)
    model.assert_complete()
    assert _fact_texts(ctx) == without and len(without) == 3
    assert judge.failed == 1 and judge.kept == 0 and judge.failures
    assert any("recall judge failed" in r.getMessage() for r in caplog.records)


def test_a_turn_with_nothing_recalled_asks_nothing(db):
    judge, model = _judge()  # an empty script: any call fails the test
    ctx = _build(db, judge)
    assert judge.asked == 0 and not model.requests and not _fact_texts(ctx)


def test_the_embedded_model_never_gets_a_judge_and_a_hosted_one_only_when_switched_on(db):
    me = store.get_chat(db, "me")

    def session(provider, memory_provider):
        s = Session(db=db, model=ScriptedModel([], provider=provider), tools=[], tz=TZ, chat=me)
        s.memory_model = ScriptedModel([], provider=memory_provider)  # background.memory_model reads it
        return s

    assert judging.for_session(session("local", "local"), True) is None
    assert judging.for_session(session("anthropic", "local"), True) is None
    assert judging.for_session(session("anthropic", "anthropic"), False) is None
    judge = judging.for_session(session("anthropic", "anthropic"), True)
    assert isinstance(judge, Judge) and judge.errors == (ModelError,) and judge.llm.db is db
    quiet = session("openai", "openai")
    quiet.incognito = True
    judge = judging.for_session(quiet, True)
    assert judge is not None and judge.llm.db is None  # an incognito chat logs no model call


def test_a_turn_through_the_loop_uses_the_sessions_judge_and_logs_its_call(db):
    _facts(db)
    without = _fact_texts(_build(db, None))
    me = store.get_chat(db, "me")
    memory_model = ScriptedModel([tool_call("judged", keep=[2])], provider="anthropic")
    chat_model = ScriptedModel([text("Aisha owns it.")])
    s = Session(db=db, model=chat_model, tools=[], tz=TZ, chat=me, clock=lambda: NOW)
    s.judge = Judge(ModelMemoryLLM(memory_model, db), errors=(ModelError,))
    result = run_turn(s, QUESTION)
    memory_model.assert_complete()
    chat_model.assert_complete()
    assert [i.text for i in result.memory_items if i.kind == "fact"] == [without[1]]
    assert without[0] not in chat_model.requests[0].system and without[1] in chat_model.requests[0].system
    purposes = [r[0] for r in db.conn.execute("SELECT purpose FROM model_calls")]
    assert PURPOSE in purposes


def test_the_setting_is_read_from_the_file_and_the_environment_and_a_wrong_value_refused(kept_home, monkeypatch):
    assert config.load().recall_judge is False
    kept_home.mkdir(parents=True, exist_ok=True)
    (kept_home / "config.toml").write_text("recall_judge = true\n")
    assert config.load().recall_judge is True
    monkeypatch.setenv("KEPT_RECALL_JUDGE", "0")
    assert config.load().recall_judge is False
    monkeypatch.setenv("KEPT_RECALL_JUDGE", "maybe")
    with pytest.raises(config.ConfigError, match="KEPT_RECALL_JUDGE: recall_judge = 'maybe' is not true or false"):
        config.load()
    monkeypatch.delenv("KEPT_RECALL_JUDGE")
    (kept_home / "config.toml").write_text('recall_judge = "yes"\n')
    with pytest.raises(config.ConfigError, match="is not true or false"):
        config.load()


def test_attach_follows_the_setting(db, kept_home):
    me = store.get_chat(db, "me")
    s = Session(db=db, model=ScriptedModel([], provider="anthropic"), tools=[], tz=TZ, chat=me)
    s.memory_model = ScriptedModel([], provider="anthropic")  # background.memory_model reads it
    judging.attach(s)
    assert s.judge is None  # off by default
    kept_home.mkdir(parents=True, exist_ok=True)
    (kept_home / "config.toml").write_text("recall_judge = true\n")
    judging.attach(s)
    assert isinstance(s.judge, Judge)
