"""Credentials pasted into a chat stay out of facts, MEMORY, recall results and
the model_calls log, even when the memory model copies them verbatim.

Every credential here is fake and says so."""

from __future__ import annotations

import pytest

from agent.session import open_store
from evals.bench import harness
from evals.bench.fakemodel import RespondingOpenAI
from evals.bench.faults import PASS_EVERY_TURN
from memory import recall
from tests.faults.checks import assert_clean

SECRETS = {
    "openai": "sk-proj-FAKEnotREALfake0123456789abcdef",
    "github": "ghp_FAKEnotREALfakeFAKEnotREAL012345",
    "aws": "AKIAFAKENOTREAL01234",
    "password": "Hunter2-not-real-9",
}
PASTES = [
    f"For the staging box use the OpenAI key {SECRETS['openai']} until Friday.",
    f"The deploy bot token: {SECRETS['github']} (rotate it in May).",
    f"AWS access key id {SECRETS['aws']} belongs to the billing account.",
    f"The wiki password is {SECRETS['password']} and the budget is 5,000 euros.",
]


@pytest.fixture
def obedient():
    """A fake model whose memory calls copy the person's words into facts and MEMORY."""
    with RespondingOpenAI() as server:
        yield server


def _leaks(text: str) -> list[str]:
    return [name for name, value in SECRETS.items() if value in (text or "")]


def test_pasted_credentials_never_reach_facts_memory_recall_or_the_call_log(obedient, kept_home):
    for paste in PASTES:
        proc = harness.run_kept("ask", paste, home=kept_home, base_url=obedient.base_url, **PASS_EVERY_TURN)
        assert_clean(proc)
        assert proc.returncode == 0, proc.stderr
    # The write passes ran and stored what the model gave them (the budget is a fact).
    rows = harness.query(kept_home, "SELECT text FROM facts")
    assert any("5,000" in t or "5000" in t for (t,) in rows), rows
    assert not [(t, _leaks(t)) for (t,) in rows if _leaks(t)]
    events = harness.query(kept_home, "SELECT coalesce(old_text, '') || ' ' || coalesce(new_text, '') FROM fact_events")
    assert not [e for (e,) in events if _leaks(e)]
    note_rows = harness.query(kept_home, "SELECT text FROM notes")
    assert note_rows, "no MEMORY was written"
    assert not [t for (t,) in note_rows if _leaks(t)]
    calls = harness.query(kept_home, "SELECT * FROM model_calls")
    assert not [r for r in calls if _leaks(" ".join(map(str, r)))]
    db = open_store(kept_home / "kept.db")
    for query in ("OpenAI key staging box", "deploy bot token", "AWS access key billing", "wiki password"):
        found = recall.recall_facts(db, query, k=12)
        assert not [r.text for r in found if _leaks(r.text)]
    # The memory model itself was never shown them either: the transcript is redacted.
    memory_requests = [r for r in obedient.model_requests if len(r.body.get("tools") or []) == 1]
    assert memory_requests
    assert not [name for r in memory_requests for name in _leaks(str(r.body))]


def test_a_provider_error_echoing_a_key_is_redacted_in_the_call_log(kept, server, kept_home):
    server.fail(401, message=f"Incorrect API key provided: {SECRETS['openai']}.")
    proc = kept("ask", "hello")
    assert proc.returncode != 0
    assert_clean(proc)
    rows = harness.query(kept_home, "SELECT error_class, error FROM model_calls")
    assert rows and rows[0][0] == "auth"
    assert not [r for r in rows if _leaks(r[1])]


# --- a configured key is known by its value, whatever its shape -----------------------

UNSHAPED_KEY = "kq9Zt4wUnshapedFAKEnotREAL7731"  # no known provider prefix


def test_a_configured_key_of_no_known_shape_is_redacted_from_every_stored_error(server, kept_home):
    server.fail(401, message=f"Incorrect API key provided: {UNSHAPED_KEY}. You can find your key at ...")
    proc = harness.run_kept("ask", "hello", home=kept_home, base_url=server.base_url, OPENAI_API_KEY=UNSHAPED_KEY)
    assert proc.returncode != 0
    assert_clean(proc)
    assert server.model_requests, "the provider was never called; the test would prove nothing"
    rows = harness.query(kept_home, "SELECT error_class, error FROM model_calls")
    assert rows and rows[0][0] == "auth"
    assert not [r for r in rows if UNSHAPED_KEY in (r[1] or "")], rows
    assert UNSHAPED_KEY not in proc.stderr + proc.stdout


def test_a_key_in_the_config_file_is_redacted_too(kept_home, monkeypatch):
    from agent import config
    from memory.secrets import REDACTED, redact

    kept_home.mkdir(parents=True, exist_ok=True)
    (kept_home / "config.toml").write_text(f'[providers.openai]\napi_key = "{UNSHAPED_KEY}"\n', encoding="utf-8")
    config.load()
    assert redact(f"401: bad key {UNSHAPED_KEY}") == f"401: bad key {REDACTED}"


def test_search_memory_results_are_redacted_like_facts(db):
    import json
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from agent.loop import run_turn
    from agent.models import scripted
    from agent.models.scripted import ScriptedModel
    from agent.session import open_session
    from memory import messages as store

    now = datetime(2026, 10, 6, 10, 0, tzinfo=ZoneInfo("Europe/Berlin"))
    for paste in PASTES:
        store.add_message(db, store.get_chat(db), "user", "me", paste, now)
    model = ScriptedModel(
        [
            scripted.tool_call("search_memory", query="wiki password AWS access key billing"),
            scripted.text("Found them."),
        ]
    )
    session = open_session(model=model, db=db, chat_name="work")
    result = run_turn(session, "what was the wiki password and the billing key?")
    (call,) = result.calls
    assert not call.is_error and call.result["messages"], "nothing was found; the test would prove nothing"
    shown = json.dumps(call.result, ensure_ascii=False)
    assert not _leaks(shown), shown
    sent = json.dumps([m.content for m in model.requests[-1].messages], ensure_ascii=False)
    assert not [n for n in _leaks(sent) if n in ("aws", "password")], "a secret reached the model via search_memory"
    stored = [m.text for m in store.history(db) if m.role == "tool"]
    assert stored and not [s for s in stored if _leaks(s)]
