"""Every test gets its own data directory and no API keys from the machine."""

from __future__ import annotations

import importlib.util
import os

import pytest

from evals.bench.harness import PERSONAL_VARS


def pytest_configure(config):
    # `make test` installs the embedded model and sets this, so its tests fail
    # loudly instead of skipping when the install went wrong.
    if os.environ.get("KEPT_REQUIRE_LOCAL_MODEL") == "1" and importlib.util.find_spec("llama_cpp") is None:
        raise pytest.UsageError(
            "KEPT_REQUIRE_LOCAL_MODEL=1 but llama-cpp-python is not installed: run `make test`, "
            "or pip install -e '.[local,dev]' and `kept model install`"
        )


@pytest.fixture(autouse=True)
def kept_home(tmp_path, monkeypatch):
    home = tmp_path / "kept-home"
    monkeypatch.setenv("KEPT_HOME", str(home))
    monkeypatch.setenv("KEPT_TZ", "Europe/Berlin")
    for var in PERSONAL_VARS:
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def db(kept_home):
    from agent.session import open_store

    return open_store(kept_home / "kept.db")
