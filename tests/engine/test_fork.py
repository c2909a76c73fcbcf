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
    if hasattr(os, "sched_getaffinity"):
        monkeypatch.setattr(_fork.os, "sched_getaffinity", lambda pid: {0, 1})
    else:
        monkeypatch.setattr(_fork.os, "cpu_count", lambda: 2)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_quiet_two_cpu_machine_may_fork(quiet_machine):
    assert can_fork() and can_fork(idle=False)


def test_a_busy_machine_forks_only_when_idleness_does_not_matter(quiet_machine, monkeypatch):
    monkeypatch.setattr(_fork, "_load", lambda: 1.6)
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
    assert _fork.cpu_idle()
    monkeypatch.setattr(_fork, "_load", lambda: 1.49)
    assert _fork.cpu_idle()
    monkeypatch.setattr(_fork, "_load", lambda: 1.5)
    assert not _fork.cpu_idle()
