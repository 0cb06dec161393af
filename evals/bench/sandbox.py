"""Run a command where the data directory is read-only or nearly full, for real.

Linux lets a process take a private mount namespace (``unshare -m``): a tiny
tmpfs or a read-only bind mount made there is seen by that process alone and
vanishes with it, so nothing on the machine changes. It needs root (or user
namespaces); ``available()`` says whether this machine allows it, and the
tests that need it skip otherwise.
"""

from __future__ import annotations

import functools
import shlex
import shutil
import subprocess
from pathlib import Path


@functools.cache
def available() -> bool:
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    probe = 'd=$(mktemp -d) && mount -t tmpfs -o size=16k tmpfs "$d" && umount "$d"; rc=$?; rmdir "$d"; exit $rc'
    try:
        proc = subprocess.run(
            ["unshare", "-m", "--propagation", "private", "sh", "-c", probe], capture_output=True, timeout=20
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def _run(script: str, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-ec", script],
        env=env,
        capture_output=True,
        timeout=timeout,
    )
    return subprocess.CompletedProcess(
        proc.args, proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")
    )


def read_only(
    directory: Path, argv: list[str], env: dict[str, str], timeout: float = 90
) -> subprocess.CompletedProcess:
    """Run ``argv`` while ``directory`` is mounted read-only (for this process only)."""
    d = shlex.quote(str(directory))
    script = f"mount --bind {d} {d}\nmount -o remount,ro,bind {d}\nexec {shlex.join(argv)}"
    return _run(script, env, timeout)


def nearly_full(
    directory: Path,
    argv: list[str],
    env: dict[str, str],
    *,
    size_kb: int = 1024,
    leave_bytes: int = 0,
    seed_from: Path | None = None,
    copy_back: Path | None = None,
    timeout: float = 90,
) -> subprocess.CompletedProcess:
    """Run ``argv`` with ``directory`` on a ``size_kb`` tmpfs filled to ``leave_bytes`` free.

    ``seed_from``: a directory whose files are copied in first (an existing
    store). ``copy_back``: where the directory's files are copied afterwards,
    so the caller can inspect what the full disk left behind.
    """
    d = shlex.quote(str(directory))
    lines = [f"mkdir -p {d}"]
    if seed_from is not None:
        # Copied aside first: ``seed_from`` may be ``directory`` itself, which the tmpfs hides.
        lines += ["seed=$(mktemp -d)", f'cp -a {shlex.quote(str(seed_from))}/. "$seed"/']
    lines.append(f"mount -t tmpfs -o size={size_kb}k,mode=0700 tmpfs {d}")
    if seed_from is not None:
        lines += [f'cp -a "$seed"/. {d}/', 'rm -rf "$seed"']
    # Fill what is left, then give back exactly ``leave_bytes``.
    lines.append(f"dd if=/dev/zero of={d}/.filler bs=4k 2>/dev/null || true")
    if leave_bytes:
        lines.append(f"truncate -s -{leave_bytes} {d}/.filler")
    lines.append(f"set +e\n{shlex.join(argv)}\nrc=$?\nset -e")
    if copy_back is not None:
        cb = shlex.quote(str(copy_back))
        lines.append(f"mkdir -p {cb} && rm -f {d}/.filler && cp -a {d}/. {cb}/")
    lines.append("exit $rc")
    return _run("\n".join(lines), env, timeout)
