"""Fixtures for the fault suite: a fake OpenAI server on 127.0.0.1 and a way to
run the real `kept` command against it in a subprocess."""

from __future__ import annotations

import functools

import pytest

from evals.bench import harness
from tests.fakeservers import FakeOpenAI


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def kept(kept_home, server):
    """``kept("ask", "hi")`` runs the real CLI on this test's data dir, talking to ``server``."""
    return functools.partial(harness.run_kept, home=kept_home, base_url=server.base_url)


@pytest.fixture
def kept_offline(kept_home):
    """The real CLI with no model configured at all (for commands that need none)."""
    return functools.partial(harness.run_kept, home=kept_home)
