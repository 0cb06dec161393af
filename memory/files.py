"""Files written for the person outside the database (exports): owner-only."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_private(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` owner-only (0600) and atomically: a reader
    never sees half a file, and a file that was there keeps its bytes if the
    write fails. An existing file's looser mode is tightened too."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=".kept-", suffix=".tmp", dir=path.parent or ".")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    os.chmod(path, 0o600)
    return path
