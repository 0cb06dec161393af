"""How many threads llama.cpp should run on, call by call.

llama.cpp's threads wait for each other at every step, so a thread per core
is fastest on an idle machine and slower than one thread as soon as another
program holds a core. Measured on 2 cores (`python -m evals.bench.threads`):
idle, 2 threads ran a prompt at 324 tok/s and generated 27.3 tok/s against
165 and 16.6 with 1; beside one busy process, 2 threads fell to 113 and 9.2
while 1 kept 166 and 16.8 (and beside several busy processes, 2 threads were
3-5x slower than 1). So before each generation kept
looks at how much CPU other programs used since it last looked (Linux
/proc) and leaves them their cores. KEPT_LOCAL_THREADS fixes the number.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

THREADS_ENV = "KEPT_LOCAL_THREADS"
_MIN_WINDOW = 0.25  # seconds: a shorter look is mostly noise


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def fixed() -> int | None:
    """KEPT_LOCAL_THREADS, when set; ValueError when it is not a whole number >= 1."""
    value = os.environ.get(THREADS_ENV, "").strip()
    if not value:
        return None
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"{THREADS_ENV} must be a whole number of threads, at least 1, not {value!r}")
    return int(value)


def _read_proc() -> tuple[float, float] | None:
    """(CPU seconds all programs spent busy, CPU seconds this process spent), or None off Linux."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
        with open("/proc/self/stat", encoding="ascii") as f:
            own = f.read().rsplit(")", 1)[1].split()
    except (OSError, ValueError, IndexError):
        return None
    tick = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    busy = sum(fields[:8]) - idle  # user nice system idle iowait irq softirq steal
    mine = sum(int(v) for v in own[11:15])  # utime stime cutime cstime
    return busy / tick, mine / tick


class Threads:
    """Threads for the next generation: the cores other programs left free, at least one."""

    def __init__(
        self,
        read: Callable[[], tuple[float, float] | None] = _read_proc,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        n_cores: int | None = None,
    ):
        self._read, self._clock, self._sleep = read, clock, sleep
        self.cores = n_cores or cores()
        self._last = self._look()

    def _look(self):
        sample = self._read()
        return None if sample is None else (self._clock(), *sample)

    def others_busy(self) -> float | None:
        """Cores other programs kept busy since the last look, or None when unknown."""
        if self._last is None:
            return None
        if self._clock() - self._last[0] < _MIN_WINDOW:
            self._sleep(_MIN_WINDOW)
        now = self._look()
        if now is None:
            return None
        (t0, busy0, own0), (t1, busy1, own1) = self._last, now
        self._last = now
        return max(0.0, ((busy1 - busy0) - (own1 - own0)) / max(t1 - t0, 1e-6))

    def next(self) -> int:
        chosen = fixed()
        if chosen is not None:
            return chosen
        others = self.others_busy()
        if others is None:
            return max(1, self.cores - 1)  # no way to look: leave one core free
        return max(1, min(self.cores, self.cores - round(others)))
