"""Every test gets its own data directory and no API keys from the machine."""

from __future__ import annotations

import pytest

KEY_VARS = (
    "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL",
    "KEPT_MODEL", "KEPT_MEMORY_MODEL", "KEPT_LOCAL_MODEL",
)


@pytest.fixture(autouse=True)
def kept_home(tmp_path, monkeypatch):
    home = tmp_path / "kept-home"
    monkeypatch.setenv("KEPT_HOME", str(home))
    monkeypatch.setenv("KEPT_TZ", "Europe/Berlin")
    for var in KEY_VARS:
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def db(kept_home):
    from agent.session import open_store

    return open_store(kept_home / "kept.db")
