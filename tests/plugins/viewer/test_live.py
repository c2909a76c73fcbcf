"""``RunTail``: the rows of exactly the complete lines appended, however the bytes arrive."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from agenteval_viewer._live import RunTail, sse
from hypothesis import given, settings
from hypothesis import strategies as st

ROWS = {(0, f"case_{i}"): i for i in range(20)}


def _line(row: int) -> bytes:
    return (
        json.dumps({"eval_set_index": 0, "case_id": f"case_{row}", "text": "é" * (row % 3)}).encode() + b"\n"
    )


def _folder(tmp: Path, state: str = "running") -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "manifest.json").write_text(json.dumps({"state": state}), encoding="utf-8")
    (tmp / "results.jsonl").write_bytes(b"")
    return tmp


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(st.integers(0, 19), max_size=12),
    cuts=st.lists(st.integers(0, 400), max_size=8),
    damaged=st.booleans(),
)
def test_new_rows_are_the_complete_lines_appended_in_any_chunking(tmp_path_factory, rows, cuts, damaged):
    folder = _folder(tmp_path_factory.mktemp("tail"))
    tail = RunTail(folder, ROWS)
    data = b"".join(_line(r) for r in rows)
    if damaged:
        data = b"{not json\n" + data
    seen: set[int] = set()
    edges = sorted({min(c, len(data)) for c in cuts} | {len(data)})
    start = 0
    with open(folder / "results.jsonl", "ab") as handle:
        for end in edges:
            handle.write(data[start:end])
            handle.flush()
            start = end
            got = tail.new_rows()
            complete = data[: data.rfind(b"\n", 0, end) + 1] if b"\n" in data[:end] else b""
            assert tail.offset == len(complete)
            seen |= got
    assert seen == set(rows)


def test_a_file_that_got_shorter_is_followed_from_its_new_end(tmp_path):
    folder = _folder(tmp_path)
    (folder / "results.jsonl").write_bytes(_line(1) + _line(2))
    tail = RunTail(folder, ROWS, offset=0)
    assert tail.new_rows() == {1, 2}
    (folder / "results.jsonl").write_bytes(_line(3))
    assert tail.new_rows() == set()
    with open(folder / "results.jsonl", "ab") as handle:
        handle.write(_line(4))
    assert tail.new_rows() == {4}


def test_an_offset_past_the_end_starts_at_the_end(tmp_path):
    folder = _folder(tmp_path)
    (folder / "results.jsonl").write_bytes(_line(1))
    assert RunTail(folder, ROWS, offset=10_000).offset == len(_line(1))


def test_the_stream_ends_with_the_final_state_and_the_last_rows(tmp_path):
    folder = _folder(tmp_path)
    tail = RunTail(folder, ROWS, poll_s=0.01)
    stream = tail.stream(threading.Event())
    assert next(stream) == b"retry: 1000\n\n" + sse("state", {"state": "running"})
    (folder / "results.jsonl").write_bytes(_line(5))
    (folder / "manifest.json").write_text(json.dumps({"state": "interrupted"}), encoding="utf-8")
    rest = b"".join(stream)
    assert rest.startswith(b"id: ")
    assert b'event: rows\ndata: {"rows":[5]}\n\n' in rest
    assert rest.endswith(sse("state", {"state": "interrupted"}))


def test_heartbeats_follow_silence(tmp_path):
    folder = _folder(tmp_path)
    clock = iter(range(0, 1000, 10))
    tail = RunTail(folder, ROWS, poll_s=0.001, heartbeat_s=15.0, clock=lambda: float(next(clock)))
    stream = tail.stream(threading.Event())
    next(stream)
    assert next(stream) == b": heartbeat\n\n"


def test_a_stop_request_ends_the_stream(tmp_path):
    folder = _folder(tmp_path)
    stop = threading.Event()
    stream = RunTail(folder, ROWS, poll_s=0.01).stream(stop)
    next(stream)
    stop.set()
    assert list(stream) == []
