"""Runs at the context and answer levels, resume, replay and the report."""

from __future__ import annotations

import json
import re

import pytest

from agent.models import scripted
from agent.models.base import TIMEOUT, ModelError
from evals.records import read_records
from evals.run import ANSWER, Settings, replay, run

EMAIL = "aisha.karim@northwind.example"


def reads_memory(request):
    """A fake model that acts on what its context holds, like a model that uses memory."""
    if request.messages[-1].role == "tool":
        return scripted.text("Sent.")
    seen = request.system
    if EMAIL in seen and re.search(r"December 10", seen):
        return scripted.tool_call("send_message", to=EMAIL, body="The Lighthouse launch is on December 10.")
    if EMAIL in seen:
        return scripted.tool_call("send_message", to=EMAIL, body="The Lighthouse launch is on December 3.")
    return scripted.text("I don't know who owns Lighthouse.")


def answer_settings(**kw):
    return Settings(
        level=ANSWER, designs=["none", "kept", "oracle"], personas=["tiny"], kinds=["task"], model="scripted", **kw
    )


def test_context_level_on_the_tiny_persona(tmp_path):
    run_dir = run(Settings(personas=["tiny"]), base=tmp_path)
    records = read_records(run_dir)
    assert {r["design"] for r in records} == {"none", "full", "summary", "raw", "kept", "oracle"}
    fp = json.loads((run_dir / "fingerprint.json").read_text())
    assert fp["personas"]["tiny"]["items"] == 8 and re.fullmatch(r"[0-9a-f]{40}(-dirty)?|unknown", fp["commit"])
    fairness = json.loads((run_dir / "fairness.json").read_text())
    assert fairness["ok"] and fairness["none_passing"] == [] and fairness["oracle_failing"] == []
    ordinary = [r for r in records if r["kind"] == "ordinary"]
    assert ordinary and all(r["passed"] is None for r in ordinary)
    full = [r for r in records if r["design"] == "full"]
    none = [r for r in records if r["design"] == "none"]
    assert min(r["context_tokens_est"] for r in full) > max(r["context_tokens_est"] for r in none)
    assert "| kind | none | full | summary | raw | kept | oracle |" in (run_dir / "context.md").read_text()


def test_answer_level_grades_the_stored_tool_effect(tmp_path):
    model = scripted.ScriptedModel([reads_memory] * 5)
    run_dir = run(answer_settings(), base=tmp_path, model=model)
    by = {r["design"]: r for r in read_records(run_dir)}
    oracle, none = by["oracle"], by["none"]
    assert oracle["passed"] is True and oracle["effects"]["outbox"][0]["to"] == EMAIL
    assert all(v["passed"] for v in oracle["checks"])
    assert none["passed"] is False and none["effects"]["outbox"] == []
    assert {v["type"]: v["observed"] for v in none["checks"]}["list_includes"] is None
    assert oracle["input_tokens"] == 20 and oracle["cost_usd"] == 0.0
    assert json.loads((run_dir / "fairness.json").read_text())["ok"]


def test_a_stale_value_in_the_tool_call_fails_with_what_was_observed(tmp_path):
    def stale(request):
        if request.messages[-1].role == "tool":
            return scripted.text("Sent.")
        return scripted.tool_call("send_message", to=EMAIL, body="The Lighthouse launch is on December 3.")

    run_dir = run(
        Settings(level=ANSWER, designs=["oracle"], personas=["tiny"], kinds=["task"], model="scripted"),
        base=tmp_path,
        model=scripted.ScriptedModel([stale] * 2),
    )
    (record,) = read_records(run_dir)
    assert record["passed"] is False
    pattern = next(v for v in record["checks"] if v["type"] == "pattern")
    assert not pattern["passed"] and "December 3" in pattern["observed"]


class Down:
    provider, name = "scripted", "down"

    def __init__(self):
        self.calls = 0

    def complete(self, messages, **kw):
        self.calls += 1
        raise ModelError(TIMEOUT, "no answer", retry_after=0)


def test_infrastructure_failures_are_counted_never_scored(tmp_path):
    model = Down()
    run_dir = run(
        Settings(level=ANSWER, designs=["oracle"], personas=["tiny"], kinds=["task"], model="scripted"),
        base=tmp_path,
        model=model,
    )
    (record,) = read_records(run_dir)
    assert record["infra"] == TIMEOUT and record["passed"] is None and record["attempts"] == 3
    assert model.calls > 3  # each attempt also retried inside call_model
    from evals.report import build_report

    assert "| oracle | not reported | not reported | – |" in build_report(run_dir, charts=False)


def test_resume_continues_where_the_run_stopped(tmp_path):
    run_dir = run(answer_settings(), base=tmp_path, model=scripted.ScriptedModel([reads_memory] * 5))
    path = run_dir / "records.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:20])  # the last record cut short
    model = scripted.ScriptedModel([reads_memory] * 2)  # only the oracle answer is redone
    run(answer_settings(), run_dir, resume=True, model=model)
    model.assert_complete()
    records = read_records(run_dir)
    assert sorted(r["design"] for r in records) == ["kept", "none", "oracle"]


def test_replay_regrades_without_a_model(tmp_path):
    run_dir = run(answer_settings(), base=tmp_path, model=scripted.ScriptedModel([reads_memory] * 5))
    again = replay(run_dir, base=tmp_path)
    old = {r["design"]: r["passed"] for r in read_records(run_dir)}
    new = {r["design"]: r["passed"] for r in read_records(again)}
    assert old == new and all(r["replayed"] for r in read_records(again))


def test_report_has_paired_differences_fairness_and_charts(tmp_path):
    from evals.report import build_report

    run_dir = run(answer_settings(repeats=2), base=tmp_path, model=scripted.ScriptedModel([reads_memory] * 10))
    text = build_report(run_dir)
    assert "## Paired differences" in text and "| oracle |" in text and "## Fairness checks" in text
    for name in ("tasks_vs_questions.png", "accuracy_by_kind.png", "accuracy_vs_cost.png"):
        assert (run_dir / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (run_dir / "report.md").exists()


def test_bootstrap_interval_brackets_the_paired_difference():
    from evals.report import bootstrap_diff

    a = {i: i % 4 != 0 for i in range(40)}
    b = {i: i % 2 == 0 for i in range(40)}
    mean, lo, hi, n = bootstrap_diff(a, b)
    assert n == 40 and lo <= mean <= hi and mean == pytest.approx(0.25)


def test_cli_run_and_report(tmp_path):
    from typer.testing import CliRunner

    from agent.cli import app

    runner = CliRunner()
    result = runner.invoke(
        app, ["eval", "run", "--personas", "tiny", "--designs", "none,oracle", "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert "fairness: none passes 0/6 memory items; oracle fails 0/6" in result.output
    run_dir = next(tmp_path.iterdir())
    result = runner.invoke(app, ["eval", "report", str(run_dir), "--no-charts", "--json"])
    assert result.exit_code == 0 and json.loads(result.output)["fairness"]["ok"]
    bad = runner.invoke(app, ["eval", "run", "--designs", "psychic", "--out", str(tmp_path)])
    assert bad.exit_code == 1 and "unknown design(s) psychic" in bad.output


def test_a_persona_file_of_ones_own_runs_the_same_way(tmp_path):
    import shutil

    from evals.run import PERSONAS_DIR

    mine = tmp_path / "me"
    mine.mkdir()
    shutil.copy(PERSONAS_DIR / "tiny.json", mine / "mine.json")
    shutil.copy(PERSONAS_DIR / "tiny.items.jsonl", mine / "mine.items.jsonl")
    run_dir = run(Settings(personas=[str(mine / "mine.json")], designs=["none", "oracle"]), base=tmp_path)
    assert {r["persona"] for r in read_records(run_dir)} == {"tiny"}
    (mine / "lonely.json").write_text((mine / "mine.json").read_text())
    from evals.run import RunError

    with pytest.raises(RunError, match="no items file"):
        run(Settings(personas=[str(mine / "lonely.json")]), base=tmp_path)


def test_a_persona_given_by_absolute_path_gets_a_fresh_store_each_run(tmp_path):
    """The store lives in the run's temporary folder, never beside the persona file (it was
    ``/abs/mine.json.db``, reused by the next run, so repeated runs drifted)."""
    import shutil

    from evals.run import PERSONAS_DIR

    mine = tmp_path / "me"
    mine.mkdir()
    shutil.copy(PERSONAS_DIR / "tiny.json", mine / "mine.json")
    shutil.copy(PERSONAS_DIR / "tiny.items.jsonl", mine / "mine.items.jsonl")
    path = str((mine / "mine.json").resolve())
    # A store left beside the persona by an earlier run, with a fact that answers nothing right.
    from memory import facts as fact_log
    from memory.db import open_db, transaction

    stale = open_db(path + ".db")
    with transaction(stale) as conn:
        fact_log.add_fact(conn, "The Lighthouse launch is on January 1; Robin owns Lighthouse.", "2026-01-01", [])
    stale.conn.close()
    left = sorted(p.name for p in mine.iterdir())

    def outcome(run_dir):
        return sorted((r["item"], r["design"], r["passed"], r.get("context_tokens_est")) for r in read_records(run_dir))

    first = outcome(run(Settings(personas=[path], designs=["kept", "oracle"]), base=tmp_path / "runs1"))
    assert sorted(p.name for p in mine.iterdir()) == left  # nothing new written beside the persona
    second = outcome(run(Settings(personas=[path], designs=["kept", "oracle"]), base=tmp_path / "runs2"))
    tiny = outcome(run(Settings(personas=["tiny"], designs=["kept", "oracle"]), base=tmp_path / "runs3"))
    assert first == second == tiny  # the stale store beside it was not read


class AddsEverything:
    """A memory model that extracts every line the person wrote about Lighthouse or Robin and never supersedes."""

    def __init__(self):
        self.purposes = []

    def __call__(self, *, purpose, system, prompt, schema=None, schema_name="record", max_tokens=2048):
        self.purposes.append(purpose)
        if schema is None:
            return ""
        if schema_name == "save_facts":
            lines = re.findall(r"^\[(\d+)\] \S+ \S+ person: (.*)$", prompt, re.M)
            return {"facts": [{"text": t, "messages": [int(n)]} for n, t in lines if "Lighthouse" in t or "Robin" in t]}
        empty = {}
        schema = schema.model_json_schema()  # the reply model's schema, as the model is offered it
        for key in schema.get("required", []):
            kind = schema["properties"][key].get("type")
            empty[key] = [] if kind == "array" else {} if kind == "object" else ""
        return empty


def test_the_real_write_path_is_measured_from_the_fact_log(tmp_path):
    llm = AddsEverything()
    run_dir = run(Settings(personas=["tiny"], facts="write", designs=["none", "kept"]), base=tmp_path, memory_llm=llm)
    assert "memory.extract" in llm.purposes
    stats = json.loads((run_dir / "extraction-tiny.json").read_text())
    assert stats["write"]["added"] >= 6 and stats["extraction"]["covered"] == 6
    # The old launch date was added and never superseded: the report must say so.
    assert "tiny-changed_fact-01" in stats["extraction"]["stale_active"]
    records = read_records(run_dir)
    assert any(r["passed"] for r in records if r["design"] == "kept" and r["needs_memory"])
    from evals.report import build_report

    assert "## Memory writing (kept's write path)" in build_report(run_dir, charts=False)
