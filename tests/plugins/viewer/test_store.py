"""The viewer server's payloads: JSON a browser parses, kept small."""

from __future__ import annotations

import gzip
import json

from agenteval_viewer._store import Encoded, encode_json
from hypothesis import given
from hypothesis import strategies as st

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@given(_JSON)
def test_encode_json_is_always_strict_utf8_json(value):
    body = encode_json(value)
    text = body.decode("utf-8")  # never a lone surrogate in the bytes
    json.loads(text, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))


def test_non_finite_numbers_become_null_and_lone_surrogates_escapes():
    assert json.loads(encode_json({"a": float("nan"), "b": [float("inf"), 1.5]})) == {
        "a": None,
        "b": [None, 1.5],
    }
    assert encode_json({"s": "x\ud800y"}) == b'{"s":"x\\ud800y"}'


def test_a_large_payload_is_kept_gzipped_only_once_gzipped_and_unpacked_on_demand():
    plain = encode_json({"rows": list(range(40_000))})
    assert len(plain) > 64 * 1024
    encoded = Encoded(plain, '"e"')
    assert encoded.plain() is plain and encoded._gzipped is None  # nothing compressed up front
    assert gzip.decompress(encoded.gzipped()) == plain
    assert encoded._plain is None and encoded.worth_gzip and encoded.plain() == plain


def test_a_small_payload_is_kept_plain():
    tiny = Encoded(b"{}", None)
    assert tiny.plain() == b"{}" and not tiny.worth_gzip
    medium = Encoded(b"[" + b"1," * 1000 + b"1]", None)
    assert medium.worth_gzip and gzip.decompress(medium.gzipped()) == medium.plain()


def test_a_run_whose_writer_dies_is_rebuilt_without_a_file_changing(tmp_path):
    import fcntl

    import agenteval_viewer_test_fixtures as fx
    from agenteval_viewer._store import RunStore

    run = fx.tiny_run(tmp_path / "runs")
    fx.mark_running(run)
    store = RunStore(tmp_path / "runs")
    with open(run.folder / ".lock", "a", encoding="utf-8") as lock:  # the writing process
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        assert json.loads(store.summary(run.run_id).plain())["verdict"] == "RUNNING"
        fcntl.flock(lock.fileno(), fcntl.LOCK_UN)  # killed outright: nothing else changes
    assert json.loads(store.summary(run.run_id).plain())["verdict"] == "FAIL"


def test_a_stop_while_a_disk_cache_write_is_being_started_never_joins_an_unstarted_thread(
    runs_dir, run_ids, tmp_path, monkeypatch
):
    """``agenteval view`` stops (``flush``) while a payload's disk-cache writer is being
    started: the writer ``flush`` sees is started, so joining it never raises (it used to be
    registered first and started after: "cannot join thread before it is started", exit 1)."""
    import threading
    import types

    from agenteval_viewer import _store
    from agenteval_viewer._disk_cache import DiskCache

    store = _store.RunStore(runs_dir, disk=DiskCache(tmp_path / "cache"))
    problems: list[BaseException] = []

    class StopMeanwhile(threading.Thread):
        def start(self) -> None:
            def stop() -> None:
                try:
                    store.flush(5.0)
                except BaseException as exc:
                    problems.append(exc)

            stopper = threading.Thread(target=stop)
            stopper.start()
            stopper.join(0.5)  # the stop runs now, or waits for the registration to finish
            super().start()
            stopper.join(5.0)

    monkeypatch.setattr(_store, "threading", types.SimpleNamespace(Thread=StopMeanwhile, Lock=threading.Lock))
    store.summary(run_ids[0])
    monkeypatch.undo()
    store.flush(5.0)
    assert problems == []


def test_the_first_answer_of_a_payload_built_here_is_plain_even_once_gzipped_beside_it():
    """The disk-cache writer gzips a fresh payload while it is being answered: the first
    answer to a loopback client stays plain (the server's choice no longer depends on which
    thread got there first); a payload read from the disk cache is gzipped from the start."""
    encoded = Encoded(encode_json({"rows": list(range(40_000))}), '"e"')
    encoded.gzipped()  # what the writer does beside the answer
    assert encoded.first_answer() is True and encoded.first_answer() is False
    cached = Encoded(None, '"e"', gzip.compress(b"{}"))
    assert cached.first_answer() is False


def test_the_disk_cache_key_changes_when_a_payload_module_changes(tmp_path):
    """The payloads are built by the modules the bundle names (``PAYLOAD_MODULES``), not by
    ``_bundle.py`` itself: a change to any of them gives new cache keys."""
    import os
    import types

    from agenteval_viewer import _bundle
    from agenteval_viewer._disk_cache import DiskCache

    assert {m.__name__.rsplit(".", 1)[1] for m in _bundle.PAYLOAD_MODULES} == {
        "_scan",
        "_summary_payload",
        "_index_payload",
        "_detail_payload",
    }
    facade, payload = tmp_path / "bundle.py", tmp_path / "payload.py"
    facade.write_text("x")
    payload.write_text("y")
    bundle = types.SimpleNamespace(
        __file__=str(facade), PAYLOAD_MODULES=(types.SimpleNamespace(__file__=str(payload)),)
    )
    cache = DiskCache(tmp_path / "cache")
    before = cache.key(tmp_path, (1,), bundle, "index")
    os.utime(payload, ns=(0, 0))
    assert cache.key(tmp_path, (1,), bundle, "index") != before


def test_the_run_s_record_offsets_are_built_for_the_first_case_opened_only(tmp_path, monkeypatch):
    """``keys()`` copies every key (18 ms a case at 100k cases): the store asks it once per
    opened run, not for every case."""
    import agenteval_viewer_test_fixtures as fx
    from agenteval.runs import RecordedRun
    from agenteval_viewer._store import RunStore

    run = fx.tiny_run(tmp_path / "runs")
    asked = []
    real = RecordedRun.keys
    monkeypatch.setattr(RecordedRun, "keys", lambda self: asked.append(1) or real(self))
    store = RunStore(tmp_path / "runs")
    first = [json.loads(store.case(run.run_id, row).plain())["case_id"] for row in (0, 1, 0)]
    assert len(asked) == 1 and first[0] == first[2] != first[1]
