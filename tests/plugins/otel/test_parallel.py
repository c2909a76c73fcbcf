"""A large JSONL file read by two processes (``_parallel``) reads exactly as one process reads
it: the seeded many-traces file (spans shuffled across lines, traces crossing the middle),
every way it is read (``--actual`` of all, some and missing cases, ``lint-trace``,
``import-trace``), with pending spans held or dropped; damaged second halves (the same error);
log records in the second half; a helper that fails. The size threshold is lowered to 0 here."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from agenteval import _fork
from agenteval.errors import DataError
from agenteval.models import EvalCase
from agenteval_otel import _parallel, _select
from agenteval_otel._select import read_turns

from tests.fixtures.busy_machine import make_busy
from tests.plugins.otel.test_many_traces import _actual, _outputs, write_many

used: list[str] = []


@pytest.fixture
def two_processes(monkeypatch):
    """Whether the read is shared with a helper process: a function that turns it on or off
    (counting the reads that were shared in ``used``)."""
    shared_read = _parallel.shared_read

    def counted(*args: Any, **kwargs: Any) -> Any:
        found = shared_read(*args, **kwargs)
        if found is not None:
            used.append(str(args[0]))
        return found

    monkeypatch.setattr(_select, "shared_read", counted)
    monkeypatch.setattr(_fork.threading, "active_count", lambda: 1)  # (pytest-xdist's threads)
    monkeypatch.setattr(_parallel, "IDLE_CPU", False)
    used.clear()

    def turn(on: bool) -> None:
        monkeypatch.setattr(_parallel, "PARALLEL_FROM_BYTES", 0 if on else 1 << 62)

    return turn


def _no_logs_beside(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """``write_many`` without the logs file beside (with it, one process reads the file)."""

    def writes(target: Path) -> Any:
        target.mkdir(exist_ok=True)
        written = write_many(target)
        (target / "many.logs.jsonl").unlink()
        return written

    monkeypatch.setattr("tests.plugins.otel.test_many_traces.write_many", writes)


@pytest.mark.parametrize("pending", [_select.PENDING_SPANS, 3], ids=["held", "dropped-and-read-again"])
def test_the_many_traces_file_reads_the_same_in_two_processes(tmp_path, monkeypatch, two_processes, pending):
    monkeypatch.setattr(_select, "PENDING_SPANS", pending)
    monkeypatch.setattr(_parallel, "PENDING_SPANS", pending)
    _no_logs_beside(monkeypatch, tmp_path)
    two_processes(False)
    one = {**_outputs(tmp_path / "one"), **_found(tmp_path / "one")}
    assert not used
    two_processes(True)
    two = {**_outputs(tmp_path / "two"), **_found(tmp_path / "two")}
    assert len(used) >= 7  # every read of it
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)
    assert len(one["found"]["eval_set"]["eval_cases"]) == 33 and one["found"]["warnings"]


def _found(folder: Path) -> dict[str, Any]:
    """``--actual`` of the cases whose sessions the file holds (without the logs beside, those
    matched by a text in the logs have none), and of every other one of them."""
    path = folder / "many.jsonl"
    cases = write_many(folder)[1]  # (the same file again: it is seeded)
    (folder / "many.logs.jsonl").unlink()
    error = _actual(path, cases)["error"]
    missing = set(re.findall(r"'([^']+)'", error.split("Sessions found")[0]))
    found = [case for case in cases if case.eval_id not in missing]
    return {"found": _actual(path, found), "found_some": _actual(path, found[::2])}


def _turns(path: Path, **options: Any) -> Any:
    try:
        turns, empty = read_turns(path, **options)
    except DataError as exc:
        return str(exc)
    return [
        (t.trace_id, t.session_id, t.case_id, t.findings, t.invocation.model_dump()) for t in turns
    ], empty


def _both(two_processes: Any, path: Path, **options: Any) -> tuple[Any, Any]:
    two_processes(False)
    one = _turns(path, **options)
    two_processes(True)
    used.clear()
    two = _turns(path, **options)
    assert used
    return one, two


@pytest.fixture
def many(tmp_path: Path) -> tuple[Path, list[EvalCase]]:
    path, cases, _ = write_many(tmp_path)
    (tmp_path / "many.logs.jsonl").unlink()
    return path, cases


def _damaged(path: Path, how: str) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    at = len(lines) * 3 // 4
    if how == "cut":
        lines[-1] = lines[-1][: len(lines[-1]) // 2]
    elif how == "bad span id":
        lines[at] = lines[at].replace('"spanId": "', '"spanId": "zz', 1)
    elif how == "bad time":
        lines[at] = lines[at].replace('"startTimeUnixNano": "', '"startTimeUnixNano": "x', 1)
    elif how == "bad attributes":
        lines[at] = lines[at].replace('"attributes": [', '"attributes": [7, ', 1)
    elif how == "not utf-8":
        path.write_bytes("".join(lines[:at]).encode() + b"\xff\n" + "".join(lines[at:]).encode())
        return
    elif how == "log records":
        record = {"timeUnixNano": "1", "body": {"stringValue": "x"}}
        lines.insert(at, json.dumps({"resourceLogs": [{"scopeLogs": [{"logRecords": [record]}]}]}) + "\n")
    elif how == "empty lines":
        lines[at : at + 1] = ["\n", lines[at], "   \n"]
    path.write_text("".join(lines), encoding="utf-8")


@pytest.mark.parametrize(
    "how", ["cut", "bad span id", "bad time", "bad attributes", "not utf-8", "log records", "empty lines"]
)
def test_a_damaged_or_mixed_second_half_reads_as_in_one_process(many, two_processes, how):
    path, cases = many
    _damaged(path, how)
    ids = {case.eval_id for case in cases[::2]}
    for options in ({}, {"content": False}, {"ids": ids}, {"ids": {"nowhere"}, "texts": {"hello"}}):
        one, two = _both(two_processes, path, **options)
        assert one == two, (how, options)
    if how in ("cut", "bad span id", "bad time", "not utf-8"):
        assert isinstance(one, str) and str(path) in one


def test_a_failing_helper_leaves_the_read_to_this_process(many, two_processes, monkeypatch):
    path, _ = many

    def fails(*args: Any) -> Any:
        raise MemoryError

    monkeypatch.setattr(_parallel, "_helper", fails)
    one, two = _both(two_processes, path)
    assert one == two and not isinstance(one, str)


def test_a_helper_that_dies_while_handing_over_leaves_the_read_to_this_process(
    many, two_processes, monkeypatch
):
    path, _ = many
    dump = _parallel.pickle.dump

    def dies(value: Any, out: Any, protocol: int) -> None:  # a part written, then killed
        import io

        whole = io.BytesIO()
        dump(value, whole, protocol)
        out.write(whole.getvalue()[: len(whole.getvalue()) // 2])
        out.flush()
        os._exit(0)

    monkeypatch.setattr(_parallel.pickle, "dump", dies)
    one, two = _both(two_processes, path)
    assert one == two and not isinstance(one, str)


def test_an_error_in_the_first_half_stops_the_helper(many, two_processes):
    path, _ = many
    text = path.read_text(encoding="utf-8")
    path.write_text("{" + text[1:].replace("\n", "\nnot json\n", 1), encoding="utf-8")
    one, two = _both(two_processes, path)
    assert one == two and "line 2: not valid JSON" in two
    with pytest.raises(ChildProcessError):  # no helper left running, nor unwaited
        os.waitpid(-1, os.WNOHANG)


def test_small_files_are_read_by_one_process(many, monkeypatch):
    path, _ = many
    monkeypatch.setattr(_fork.threading, "active_count", lambda: 1)
    monkeypatch.setattr(_fork, "_load", lambda: 0.0)
    assert _parallel.shared_read(path, None, set(), content=True, beside=False) is None  # under 32 MB
    monkeypatch.setattr(_parallel, "PARALLEL_FROM_BYTES", 0)
    assert _parallel.shared_read(path, None, set(), content=True, beside=True) is None  # logs beside
    monkeypatch.setattr(_fork.threading, "active_count", lambda: 2)
    assert _parallel.shared_read(path, None, set(), content=True, beside=False) is None  # other threads


def test_traces_a_line_each_are_read_as_turns_by_the_helper(many, two_processes, monkeypatch):
    from agenteval_otel._otlp import read_spans

    from tests.plugins.otel._encode import encode_span

    path, cases = many
    by_trace: dict[str, list[Any]] = {}
    for span in read_spans(path):
        by_trace.setdefault(span.trace_id, []).append(span)
    lines = [
        json.dumps(
            {
                "resourceSpans": [
                    {
                        "scopeSpans": [
                            {
                                "spans": [
                                    encode_span(s, base64_ids=False, plain=False, json_strings=True)
                                    for s in spans
                                ]
                            }
                        ]
                    }
                ]
            }
        )
        for spans in by_trace.values()
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    taken: list[str] = []
    turns = _parallel.Shared.turns

    def counted(self: Any, trace: str, spans: list[Any], *, content: bool) -> Any:
        read = self.handoff.turns.get(trace) if self.handoff else None
        if read is not None and read[0] == len(spans) and all(type(s) is _parallel.Handed for s in spans):
            taken.append(trace)
        return turns(self, trace, spans, content=content)

    monkeypatch.setattr(_parallel.Shared, "turns", counted)
    for options in ({}, {"content": False}, {"ids": {case.eval_id for case in cases}}):
        taken.clear()
        one, two = _both(two_processes, path, **options)
        assert one == two and not isinstance(one, str)
        assert len(taken) >= 15, options  # (of those after the middle)


def test_a_busy_machine_reads_in_one_process(many, monkeypatch):
    path, _ = many
    monkeypatch.setattr(_fork.threading, "active_count", lambda: 1)
    monkeypatch.setattr(_parallel, "PARALLEL_FROM_BYTES", 0)
    monkeypatch.setattr(_fork.os, "sched_getaffinity", lambda _: {0, 1}, raising=False)
    make_busy(monkeypatch, load=1.5)  # more than one of the two CPUs busy
    assert _parallel.shared_read(path, None, set(), content=True, beside=False) is None
    monkeypatch.setattr(_fork, "_load", lambda: 0.8)
    shared = _parallel.shared_read(path, None, set(), content=True, beside=False)
    assert shared is not None
    shared.close()
