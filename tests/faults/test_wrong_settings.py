"""Every setting that can be wrong gets one line naming the key, the value and
what it must be, before anything runs: never a traceback, never a memory pass
that silently stops."""

from __future__ import annotations

import pytest

from tests.faults.checks import assert_one_line_error

BAD_VALUES = [
    ("timezone", "5", "a string"),
    ("model", "42", "a string"),
    ("memory_model", "[1, 2]", "a string"),
    ("recall_k", '"twelve"', "a whole number"),
    ("recall_k", "1e9", "a whole number"),
    ("recall_k", "1000000000", "a whole number from 1 to 200"),
    ("recall_k", "true", "a whole number"),
    ("recent_messages", "-3", "a whole number"),
    ("write_every_turns", '"often"', "a whole number"),
    ("write_every_turns", "0", "a whole number of at least 1"),
    ("write_min_hours", '"soon"', "a number"),
    ("write_min_hours", "nan", "a number"),
    ("summary_cap", "{ a = 1 }", "a whole number"),
    ("model_deadline_seconds", "0", "a number"),
]


@pytest.mark.parametrize("key, value, expected", BAD_VALUES)
def test_a_setting_of_the_wrong_type_is_one_line_naming_key_value_and_type(
    kept, server, kept_home, key, value, expected
):
    kept_home.mkdir(parents=True, exist_ok=True)
    (kept_home / "config.toml").write_text(f"{key} = {value}\n", encoding="utf-8")
    server.reply_text("ok")
    line = assert_one_line_error(kept("ask", "hello"))
    assert key in line and expected in line, line
    assert server.model_requests == []  # refused at load, before any turn


@pytest.mark.parametrize(
    "env, value", [("KEPT_WRITE_EVERY_TURNS", "often"), ("KEPT_WRITE_MIN_HOURS", "-1"), ("KEPT_MODEL_DEADLINE", "soon")]
)
def test_a_wrong_setting_from_the_environment_is_one_line_too(kept, server, env, value):
    server.reply_text("ok")
    line = assert_one_line_error(kept("ask", "hello", **{env: value}))
    assert env in line and repr(value) in line or value in line, line
    assert server.model_requests == []


def test_a_bad_schedule_value_is_refused_at_load_not_skipped(kept_home, monkeypatch):
    from agent import config

    monkeypatch.setenv("KEPT_WRITE_EVERY_TURNS", "often")
    with pytest.raises(config.ConfigError, match="write_every_turns"):
        config.load()


def test_a_config_file_that_is_a_folder_is_one_line(kept, server, kept_home):
    (kept_home / "config.toml").mkdir(parents=True)
    line = assert_one_line_error(kept("ask", "hello"))
    assert "config.toml" in line and "folder" in line, line


def test_kept_home_that_is_a_file_is_one_line(server, tmp_path):
    from evals.bench import harness

    home = tmp_path / "a-file"
    home.write_text("not a folder")
    proc = harness.run_kept("ask", "hello", home=home, base_url=server.base_url)
    line = assert_one_line_error(proc)
    assert "KEPT_HOME" in line and "file" in line, line
    assert home.read_text() == "not a folder"


@pytest.mark.parametrize("command", [("history",), ("path",), ("memory", "facts")])
def test_kept_home_under_a_file_is_one_line(tmp_path, command):
    from evals.bench import harness

    (tmp_path / "a-file").write_text("not a folder")
    proc = harness.run_kept(*command, home=tmp_path / "a-file" / "kept")
    line = assert_one_line_error(proc)
    assert "KEPT_HOME" in line and "a-file" in line, line


def test_good_settings_still_load(kept_home):
    from agent import config

    kept_home.mkdir(parents=True, exist_ok=True)
    (kept_home / "config.toml").write_text(
        'model = "openai:gpt-4.1"\nrecall_k = 20\nwrite_min_hours = 2\nmodel_deadline_seconds = 90\n', encoding="utf-8"
    )
    settings = config.load()
    assert (settings.model, settings.recall_k, settings.write_min_hours, settings.model_deadline_seconds) == (
        "openai:gpt-4.1",
        20,
        2.0,
        90.0,
    )
