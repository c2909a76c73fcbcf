"""Run folders made by the engine, and a real viewer server on a free port, for the
``agenteval view`` tests (loaded by path: the suite imports with ``--import-mode=importlib``)."""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import agenteval
from agenteval.runs import CaseRecord, RecordedRun, RunState, RunWriter, list_runs, new_run_id

REPO = Path(__file__).resolve().parents[3]
TRAVEL = REPO / "examples" / "travel"
CRITERIA = {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.6}


def travel_run(runs_dir: Path, *, all_pass: bool = False) -> RecordedRun:
    """The travel example scored by the engine and recorded in ``runs_dir``: with its
    recorded actual turns one case fails; with the expected turns as actual all pass."""
    actual = TRAVEL / ("travel.evalset.json" if all_pass else "travel.actual.json")
    before = {r.run_id for r in list_runs(runs_dir)}
    agenteval.evaluate(TRAVEL / "travel.evalset.json", actual, CRITERIA, runs_dir=runs_dir)
    [run] = [r for r in list_runs(runs_dir) if r.run_id not in before]
    return run


class LiveRun:
    """A copy of a finished run that is ``running`` again, written by the engine's own
    ``RunWriter``: ``append()`` adds the next of the source's records, ``finish()`` marks it
    complete."""

    def __init__(self, runs_dir: Path, source: RecordedRun) -> None:
        self.records: list[CaseRecord] = list(source.records())
        run_id = new_run_id()
        manifest = source.manifest.model_copy(
            update={"run_id": run_id, "state": RunState.RUNNING, "finished_at": None}
        )
        self.writer = RunWriter.create(runs_dir, manifest)
        self.run_id = run_id
        self.folder = self.writer.folder
        self.appended = 0
        self.closed = False

    def append(self) -> CaseRecord:
        record = self.records[self.appended].model_copy(update={"run_id": self.run_id})
        self.writer.append(record)
        self.appended += 1
        return record

    def finish(self) -> None:
        self.writer.manifest = self.writer.manifest.model_copy(update={"state": RunState.COMPLETE})
        self.writer.write_manifest()
        self.close()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.writer.close()


class StandInBundle:
    """The three data functions of ``agenteval_viewer._bundle``, simply (counts calls)."""

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}

    def _count(self, name: str) -> None:
        self.calls[name] = self.calls.get(name, 0) + 1

    def run_summary(self, run: RecordedRun) -> dict[str, Any]:
        self._count("run_summary")
        return {"run_id": run.run_id, "state": run.manifest.state.value}

    def case_index(self, run: RecordedRun) -> dict[str, Any]:
        self._count("case_index")
        ids, statuses = [], []
        for _entry, case in run.case_results():
            ids.append(case.eval_id)
            statuses.append(case.status.value)
        return {"case_id": ids, "status": statuses}

    def case_detail(self, run: RecordedRun, row: int) -> dict[str, Any]:
        self._count("case_detail")
        keys = [(e.index, c) for e in run.manifest.eval_sets for c in e.case_ids]
        index, case_id = keys[row]
        record = run.record((index, case_id, 1))
        return {"row": row, "case_id": case_id, "status": record.status.value if record else None}


@contextlib.contextmanager
def serving(runs_dir: Path, **options: Any) -> Iterator[Any]:
    """A ``ViewerServer`` on 127.0.0.1, a free port, in a thread; closed afterwards."""
    from agenteval_viewer._server import ViewerServer

    server = ViewerServer(runs_dir, "127.0.0.1", 0, **options)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.close()
        thread.join(5)


def request(
    server: Any,
    path: str,
    method: str = "GET",
    headers: Optional[dict[str, str]] = None,
    body: Optional[bytes] = None,
) -> tuple[int, dict[str, str], bytes]:
    """One real HTTP request; (status, headers with lower-case names, body)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def get_json(server: Any, path: str) -> tuple[int, Any]:
    status, _headers, body = request(server, path)
    return status, json.loads(body)


class EventStream:
    """A server-sent event stream read on a background thread; ``events`` fills up as
    (event name, data) pairs."""

    def __init__(self, server: Any, path: str, headers: Optional[dict[str, str]] = None) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        self.connection.request("GET", path, headers=headers or {})
        self.response = self.connection.getresponse()
        self.events: list[tuple[str, Any, Optional[str]]] = []
        self.comments = 0
        self.ended = threading.Event()
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        name, data, event_id = "message", [], None
        try:
            for raw in self.response:
                line = raw.decode("utf-8").rstrip("\n")
                if line.startswith(":"):
                    with self.changed:
                        self.comments += 1
                        self.changed.notify_all()
                elif line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    data.append(line[6:])
                elif line.startswith("id: "):
                    event_id = line[4:]
                elif line == "" and data:
                    with self.changed:
                        self.events.append((name, json.loads("\n".join(data)), event_id))
                        self.changed.notify_all()
                    name, data, event_id = "message", [], None
        except (OSError, ValueError):
            pass
        finally:
            self.ended.set()
            with self.changed:
                self.changed.notify_all()

    def wait_for(self, predicate: Any, timeout: float = 10.0) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: predicate(self), timeout)

    def close(self) -> None:
        self.connection.close()
