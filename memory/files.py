"""Files and folders kept makes for the person: owner-only.

Folders are 0700 and exports 0600 from the first byte. An export goes only
to a regular file (or a new one): writing "onto" a FIFO, a device, a socket or
a folder would replace it (as root, /dev/null), so those are refused.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path


class NotRegularFile(OSError):
    """The target exists and is not a regular file; ``strerror`` says what it is."""


def make_private_dir(path: str | os.PathLike) -> Path:
    """Make ``path`` and any missing parents, each owner-only (0700); an existing folder is left as it is."""
    path = Path(path)
    missing = []
    for folder in (path, *path.parents):
        if folder.is_dir():
            break
        missing.append(folder)
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            if not folder.is_dir():
                raise NotADirectoryError(errno.ENOTDIR, f"{folder} is a file, not a folder") from None
            continue
        os.chmod(folder, 0o700)  # mkdir's mode passes through the umask
    return path


def _kind(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    for test, name in (
        (stat.S_ISDIR, "folder"),
        (stat.S_ISFIFO, "FIFO (named pipe)"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
    ):
        if test(mode):
            return name
    return "special file"


def check_writable_target(path: str | os.PathLike) -> None:
    """Refuse a target that exists and is not a regular file (followed through symlinks)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    kind = _kind(mode)
    if kind:
        raise NotRegularFile(errno.EINVAL, f"it is a {kind}; kept writes only regular files")


def write_private(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` owner-only (0600) and atomically: a reader
    never sees half a file, and a file that was there keeps its bytes if the
    write fails. An existing file's looser mode is tightened too."""
    path = Path(path)
    check_writable_target(path)
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
