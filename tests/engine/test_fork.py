"""``agenteval.plugins.can_fork``: a forked helper only where fork is safe (no other thread,
not macOS), with two CPUs, and (``idle``) one of them idle."""

from __future__ import annotations

import os
import sys
import threading

import pytest
from agenteval import _fork
from agenteval.plugins import can_fork


@pytest.fixture
def quiet_machine(monkeypatch):
    """This process alone on a two-CPU Linux machine with nothing else running."""
    monkeypatch.setattr(_fork.threading, "active_count", lambda: 1)
    monkeypatch.setattr(_fork.sys, "platform", "linux")
    monkeypatch.setattr(_fork, "_load", lambda: 0.2)
    monkeypatch.setattr(_fork, "_running", lambda: 1)  # (this process only)
    monkeypatch.setattr(_fork, "_LOOK_EVERY", 0)
    if hasattr(os, "sched_getaffinity"):
        monkeypatch.setattr(_fork.os, "sched_getaffinity", lambda pid: {0, 1})
    else:
        monkeypatch.setattr(_fork.os, "cpu_count", lambda: 2)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_quiet_two_cpu_machine_may_fork(quiet_machine):
    assert can_fork() and can_fork(idle=False)


def test_a_busy_machine_forks_only_when_idleness_does_not_matter(quiet_machine, monkeypatch):
    monkeypatch.setattr(_fork, "_load", lambda: 1.6)
    monkeypatch.setattr(_fork, "_running", lambda: 2)  # a neighbour runnable at every look
    assert not can_fork()
    assert can_fork(idle=False) is hasattr(os, "fork")


def test_another_thread_one_cpu_or_macos_never_forks(quiet_machine, monkeypatch):
    with monkeypatch.context() as threads:
        threads.setattr(_fork.threading, "active_count", lambda: 2)
        assert not can_fork(idle=False)
    with monkeypatch.context() as mac:
        mac.setattr(_fork.sys, "platform", "darwin")
        assert not can_fork(idle=False)
    if hasattr(os, "sched_getaffinity"):
        monkeypatch.setattr(_fork.os, "sched_getaffinity", lambda pid: {0})
    else:
        monkeypatch.setattr(_fork.os, "cpu_count", lambda: 1)
    assert not can_fork(idle=False)


def test_the_real_answer_follows_this_process_threads():
    started = threading.Event()
    done = threading.Event()
    thread = threading.Thread(target=lambda: (started.set(), done.wait()))
    thread.start()
    try:
        started.wait()
        assert not can_fork(idle=False)
    finally:
        done.set()
        thread.join()
    assert sys.modules["agenteval._fork"] is _fork


def test_a_cpu_is_idle_while_the_load_leaves_one_free(quiet_machine, monkeypatch):
    monkeypatch.setattr(_fork, "_running", lambda: 2)
    assert _fork.cpu_idle()
    monkeypatch.setattr(_fork, "_load", lambda: 1.49)
    assert _fork.cpu_idle()
    monkeypatch.setattr(_fork, "_load", lambda: 1.5)
    assert not _fork.cpu_idle()


def _looks(monkeypatch, *counts):
    """``_running`` answering ``counts`` in turn (the last one from then on)."""
    answers = list(counts)
    monkeypatch.setattr(_fork, "_running", lambda: answers.pop(0) if len(answers) > 1 else answers[0])


def test_a_load_average_held_up_by_what_ran_before_does_not_hide_a_free_cpu(quiet_machine, monkeypatch):
    monkeypatch.setattr(_fork, "_load", lambda: 1.9)  # (this run's planning, or the run before it)
    _looks(monkeypatch, 1)
    assert _fork.cpu_idle() and can_fork() is hasattr(os, "fork")
    _looks(monkeypatch, 2, 2, 1)  # a neighbour runnable at two looks, not at the third
    assert _fork.cpu_idle()
    _looks(monkeypatch, 2, 3, 2)  # one at every look: busy
    assert not _fork.cpu_idle()
    _looks(monkeypatch, None)  # a system that does not say: the load average alone
    assert not _fork.cpu_idle()


def test_with_more_cpus_a_cpu_is_free_while_fewer_than_all_but_one_others_run(quiet_machine, monkeypatch):
    if hasattr(os, "sched_getaffinity"):
        monkeypatch.setattr(_fork.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    else:
        monkeypatch.setattr(_fork.os, "cpu_count", lambda: 4)
    monkeypatch.setattr(_fork, "_load", lambda: 3.6)
    _looks(monkeypatch, 3)  # this one and two others: a fourth CPU free
    assert _fork.cpu_idle()
    _looks(monkeypatch, 4)
    assert not _fork.cpu_idle()


@pytest.mark.skipif(not os.path.exists("/proc/loadavg"), reason="no /proc/loadavg on this system")
def test_the_runnable_tasks_are_read_from_proc_loadavg_the_asking_one_included():
    running = _fork._running()
    assert running is not None and running >= 1
