"""Threads for llama.cpp: the cores other programs left free, looked at before each generation."""

from __future__ import annotations

import pytest

from agent.models import cores


class FakeProc:
    """/proc readings and a clock, advanced by the test."""

    def __init__(self):
        self.t = 0.0
        self.busy = 0.0  # CPU seconds, all programs
        self.own = 0.0  # CPU seconds, this process
        self.slept: list[float] = []

    def read(self):
        return self.busy, self.own

    def run(self, seconds: float, others: float, mine: float = 0.0):
        self.t += seconds
        self.busy += seconds * (others + mine)
        self.own += seconds * mine

    def sleep(self, seconds: float):
        self.slept.append(seconds)
        self.t += seconds


def make(proc: FakeProc, n_cores: int = 2) -> cores.Threads:
    return cores.Threads(read=proc.read, clock=lambda: proc.t, sleep=proc.sleep, n_cores=n_cores)


def test_an_idle_machine_gets_a_thread_per_core(monkeypatch):
    monkeypatch.delenv(cores.THREADS_ENV, raising=False)
    proc = FakeProc()
    threads = make(proc)
    proc.run(5.0, others=0.05, mine=2.0)  # our own generation does not count against us
    assert threads.next() == 2


def test_a_busy_core_is_left_to_its_program(monkeypatch):
    monkeypatch.delenv(cores.THREADS_ENV, raising=False)
    proc = FakeProc()
    threads = make(proc, n_cores=4)
    proc.run(5.0, others=1.0, mine=0.5)
    assert threads.next() == 3
    proc.run(5.0, others=4.0)
    assert threads.next() == 1  # never fewer than one
    proc.run(5.0, others=0.0)
    assert threads.next() == 4  # and back when the other program stops


def test_a_look_too_soon_after_the_last_waits_a_moment(monkeypatch):
    monkeypatch.delenv(cores.THREADS_ENV, raising=False)
    proc = FakeProc()
    threads = make(proc)
    threads.next()
    assert proc.slept == [cores._MIN_WINDOW]


def test_without_proc_one_core_is_left_free(monkeypatch):
    monkeypatch.delenv(cores.THREADS_ENV, raising=False)
    threads = cores.Threads(read=lambda: None, n_cores=2)
    assert threads.next() == 1


def test_the_environment_fixes_the_number(monkeypatch):
    proc = FakeProc()
    threads = make(proc)
    monkeypatch.setenv(cores.THREADS_ENV, "2")
    proc.run(5.0, others=2.0)
    assert threads.next() == 2
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv(cores.THREADS_ENV, bad)
        with pytest.raises(ValueError, match="KEPT_LOCAL_THREADS"):
            threads.next()


def test_this_machine_can_be_read():
    sample = cores._read_proc()
    assert sample is None or (sample[0] > 0 and sample[1] >= 0)
