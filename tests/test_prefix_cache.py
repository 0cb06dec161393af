"""The saved persona-and-tools prefix (agent/models/prefix_cache.py): keyed by
the model and the prefix, never loaded for another prefix, and (marked
local_model) a restored prefix answers exactly as an evaluated one."""

from __future__ import annotations

import importlib.util

import pytest

from agent.models import model_file, prefix_cache


def test_the_file_name_changes_with_the_model_and_the_prefix(tmp_path, monkeypatch):
    monkeypatch.setenv(prefix_cache.ENV_DIR, str(tmp_path))
    a = prefix_cache.file_for("model-a", [1, 2, 3])
    assert a.parent == tmp_path
    assert a != prefix_cache.file_for("model-b", [1, 2, 3])
    assert a != prefix_cache.file_for("model-a", [1, 2, 4])


def test_an_unverified_model_file_is_keyed_by_its_path_size_and_time(tmp_path):
    f = tmp_path / "m.gguf"
    f.write_bytes(b"x")
    first = prefix_cache.model_key(str(f), verified=False)
    f.write_bytes(b"xy")
    assert prefix_cache.model_key(str(f), verified=False) != first
    assert prefix_cache.model_key(str(f), verified=True) == model_file.SHA256[:16]


def test_a_file_for_other_tokens_or_a_broken_file_is_not_loaded(tmp_path):
    class Untouched:
        n_tokens = 0

    path = tmp_path / "p.kv"
    path.write_bytes(b"not a state")
    assert not prefix_cache.load(Untouched(), [1, 2], path)
    path.write_bytes(
        prefix_cache.MAGIC
        + (2).to_bytes(4, "little")
        + (0).to_bytes(4, "little")
        + (7).to_bytes(4, "little")
        + (8).to_bytes(4, "little")
    )
    assert not prefix_cache.load(Untouched(), [1, 2], path)  # saved for tokens 7, 8


@pytest.mark.local_model
@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or model_file.locate() is None,
    reason="the embedded model is not installed (make test installs it)",
)
def test_a_restored_prefix_answers_as_the_evaluated_one(tmp_path, monkeypatch):
    from agent.context import PERSONA
    from agent.models.base import Message
    from agent.models.local import LocalModel, load

    monkeypatch.setenv(prefix_cache.ENV_DIR, str(tmp_path))
    system = PERSONA + "\n\nNow: Tuesday."
    messages = [Message("user", "Say the word 'ready' and nothing else.")]
    model = LocalModel(guard=False)
    llm = load()
    llm.reset()
    cold = model.complete(messages, system=system, max_tokens=8).text
    assert model.prefix_source == "evaluated" and list(tmp_path.glob("*.kv"))
    llm.reset()
    warm = model.complete(messages, system=system, max_tokens=8).text
    assert model.prefix_source == "disk"
    assert warm == cold
