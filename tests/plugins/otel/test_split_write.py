"""An eval set's cases written with a forked helper (``_split_write``) are byte for byte what one
process writes: plain, ``--as-expected`` and the matched cases of ``--cases``; a helper that
fails (the rest written here), a first half that fails (the helper let go), and the gates."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from agenteval import _fork
from agenteval_otel import _parallel, _split_write
from agenteval_otel._golden import imported_cases
from agenteval_otel._import_command import write_eval_set

from tests.fixtures.busy_machine import make_busy

FIXTURES = Path(__file__).parent / "fixtures"
ADK_TRACE = FIXTURES / "adk_v2.otlp.json"

forks: list[int] = []


@pytest.fixture
def helper(monkeypatch):
    """A helper whatever the size and load (the forks counted in ``forks``)."""
    monkeypatch.setattr(_split_write, "SPLIT_FROM_CASES", 2)
    monkeypatch.setattr(_parallel, "IDLE_CPU", False)
    monkeypatch.setattr(_fork.threading, "active_count", lambda: 1)  # (pytest-xdist's threads)
    real = os.fork

    def fork() -> int:
        forks.append(1)
        return real()

    monkeypatch.setattr(_split_write.os, "fork", fork)
    forks.clear()


class _Many(Sequence[Any]):
    """``count`` cases: the fixture's imported cases again and again, under their own ids."""

    def __init__(self, cases: Any, count: int) -> None:
        self.cases, self.count = cases, count

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, index: Any) -> Any:
        if not 0 <= index < self.count:
            raise IndexError(index)
        case = self.cases[index % len(self.cases)]
        return case.model_copy(update={"eval_id": f"{case.eval_id}-{index}"})


def _written(path: Path, cases: Any, frame: Any) -> tuple[list[str], bytes]:
    ids = write_eval_set(frame, path, cases)
    return ids, path.read_bytes()


@pytest.mark.parametrize("as_expected", [False, True], ids=["actual", "expected"])
@pytest.mark.parametrize("count", [2, 3, 7])
def test_a_helper_writes_the_same_bytes_as_one_process(tmp_path, monkeypatch, helper, as_expected, count):
    frame, found = imported_cases(ADK_TRACE, "set", as_expected=as_expected)
    many = _Many(found, count)
    two = _written(tmp_path / "two.evalset.json", many, frame)
    assert forks
    monkeypatch.setattr(_split_write, "SPLIT_FROM_CASES", 1 << 30)
    forks.clear()
    one = _written(tmp_path / "one.evalset.json", many, frame)
    assert not forks
    assert one == two and len(one[0]) == count
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # the helper's part is gone


def test_the_cases_of_cases_file_are_shared_too(tmp_path, helper):
    from agenteval import load_eval_set

    cases = load_eval_set(FIXTURES / "travel.evalset.json").eval_cases
    frame, found = imported_cases(ADK_TRACE, "set", as_expected=False, cases=cases)
    shared = _written(tmp_path / "two.evalset.json", found, frame)
    whole = frame.model_copy(update={"eval_cases": list(found)})
    assert shared[1].decode() == whole.model_dump_json(indent=2, exclude_none=True) + "\n"
    assert forks or len(found) < 2


def test_a_failing_helper_leaves_the_rest_to_this_process(tmp_path, monkeypatch, helper):
    frame, found = imported_cases(ADK_TRACE, "set", as_expected=False)
    many = _Many(found, 9)
    parent = os.getpid()
    write = _split_write._write

    def failing(handle: Any, cases: Any, *, first: bool) -> list[str]:
        if os.getpid() != parent:
            handle.write(b"half a case")
            raise MemoryError
        return write(handle, cases, first=first)

    monkeypatch.setattr(_split_write, "_write", failing)
    two = _written(tmp_path / "two.evalset.json", many, frame)
    monkeypatch.setattr(_split_write, "_write", write)
    monkeypatch.setattr(_split_write, "SPLIT_FROM_CASES", 1 << 30)
    assert two == _written(tmp_path / "one.evalset.json", many, frame) and forks


def test_a_failing_first_half_lets_the_helper_go(tmp_path, helper):
    frame, found = imported_cases(ADK_TRACE, "set", as_expected=False)

    class Broken(_Many):
        def __getitem__(self, index: Any) -> Any:
            if index == 1 and os.getpid() == parent:
                raise RuntimeError("broken")
            return super().__getitem__(index)

    parent = os.getpid()
    with pytest.raises(RuntimeError, match="broken"):
        _written(tmp_path / "two.evalset.json", Broken(found, 50), frame)
    assert forks
    with pytest.raises(ChildProcessError):  # no child left behind
        os.waitpid(-1, os.WNOHANG)


def test_no_helper_on_a_busy_machine_or_for_an_iterator(tmp_path, monkeypatch, helper):
    frame, found = imported_cases(ADK_TRACE, "set", as_expected=False)
    monkeypatch.setattr(_parallel, "IDLE_CPU", True)
    make_busy(monkeypatch)
    _written(tmp_path / "a.evalset.json", _Many(found, 5), frame)
    monkeypatch.setattr(_parallel, "IDLE_CPU", False)
    write_eval_set(frame, tmp_path / "b.evalset.json", iter(_Many(found, 5)[i] for i in range(5)))
    assert not forks
    assert (tmp_path / "a.evalset.json").read_bytes() == (tmp_path / "b.evalset.json").read_bytes()
