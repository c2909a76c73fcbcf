"""The authoring API of ``agenteval view --allow-write`` (routes under ``/api/author/``).

Every route needs the session's token and a same-origin request (``_authoring_guard``),
checked before the request's body is read; without ``--allow-write`` none of them exists.
Bodies are JSON (at most 8 MB); answers are
JSON, except a chat turn, which streams server-sent events. Errors are
``{"error": message}`` with 400 (bad request or path), 403 (token, origin), 404, 409 (the
file changed on disk: ``diff``; a case id taken: ``case_exists``; a busy or closed chat) or
422 (the engine's loader refused the result: ``errors`` one per field; a trace's session that
lacks content: ``findings``). A trace refused names it: ``file``.

Routes::

    GET  /api/author/files                      roots, eval-set files, folders a new set can go to
    GET  /api/author/evalset?root=&path=        one eval set (cases in snake_case, sha256)
    POST /api/author/evalset/save               {root, path, sha256, edits, preview, new_set}
    GET  /api/author/traces                     trace files (or what to install to read them)
    GET  /api/author/trace?root=&path=          a trace's recorded sessions (``_trace_cases``)
    POST /api/author/trace/case                 {root, path, session_id} -> its case, as expected
    GET  /api/author/criteria                   installed criteria, with parameter schemas
    POST /api/author/chats                      {agent, agent_type, session_input}
    POST /api/author/chats/<id>/turns           {text} -> text/event-stream of the turn
    POST /api/author/chats/<id>/undo            forget the last turn
    POST /api/author/chats/<id>/case            {case_id} -> the chat as an eval case
    DELETE /api/author/chats/<id>
    POST /api/author/runs                       {files, agent, criteria, num_runs, judge_model}
    GET  /api/author/runs/<run_id>              the run's state
    POST /api/author/promote                    {run_id, eval_set_id, case_id, case, turn?}
"""

from __future__ import annotations

import json
import re
from http import HTTPStatus
from pathlib import Path
from typing import Any, Optional

from ._authoring_guard import GuardRefused, PathRefused, WriteGuard
from ._chat import ChatError, Chats, case_from_chat
from ._evalset_files import CaseExists, Conflict, EditRefused, EvalSetFiles, Invalid
from ._run_jobs import RunJobs, RunRefused, criteria_catalog
from ._trace_cases import TraceCases, TraceRefused

__all__ = ["Authoring"]

_MAX_BODY = 8 * 1024 * 1024
_CHAT = re.compile(r"/api/author/chats/([0-9a-f]{1,40})(?:/(turns|undo|case))?")
_RUN = re.compile(r"/api/author/runs/([^/]{1,200})")


class _BadRequest(Exception):
    status = 400


class Authoring:
    """The authoring routes of one viewer session: files under ``guard``'s folders, chats,
    and runs recorded in ``runs_dir``."""

    def __init__(
        self,
        guard: WriteGuard,
        runs_dir: Path,
        *,
        chat_timeout: float = 120.0,
        trace_readers: Optional[list[type]] = None,
    ) -> None:
        self.guard = guard
        self.files = EvalSetFiles(guard)
        #: Traces as the start of a case; ``trace_readers``: the installed formats' by default.
        self.traces = TraceCases(guard, trace_readers)
        self.chats = Chats(timeout=chat_timeout)
        self.runs = RunJobs(runs_dir, guard)
        self.runs_dir = Path(runs_dir)
        self._criteria: Optional[list[dict[str, Any]]] = None

    # ------------------------------------------------------------------ plumbing

    def handle(self, handler: Any, path: str, query: dict[str, list[str]]) -> None:
        """Answer one request of ``handler`` (the server's request handler)."""
        try:
            origins = [f"http://{h}" for h in handler.server.allowed_hosts]
            try:
                self.guard.check_request(handler.headers, origins)
            except GuardRefused:
                # checked before a byte of the body is read: the unread body ends the connection
                handler.close_connection = True
                raise
            body = self._body(handler)
            self._route(handler, handler.command, path, query, body)
        except (GuardRefused, PathRefused, EditRefused, ChatError, RunRefused, _BadRequest) as exc:
            extra: dict[str, Any] = {"case_exists": exc.case_id} if isinstance(exc, CaseExists) else {}
            handler._json(getattr(exc, "status", 400), {"error": str(exc), **extra})
        except TraceRefused as exc:
            extra = {"findings": exc.findings} if exc.findings else {}
            handler._json(exc.status, {"error": str(exc), "file": exc.file, **extra})
        except Conflict as exc:
            handler._json(
                HTTPStatus.CONFLICT, {"error": str(exc), "diff": exc.diff, "disk_sha256": exc.disk_sha256}
            )
        except Invalid as exc:
            handler._json(HTTPStatus.UNPROCESSABLE_ENTITY, {"error": str(exc), "errors": exc.errors})

    def _body(self, handler: Any) -> Any:
        length = handler.headers.get("Content-Length")
        if handler.command in ("GET", "HEAD") or not length:
            return None
        if not length.isdigit() or int(length) > _MAX_BODY:
            handler.close_connection = True
            raise _BadRequest("the request body is missing its length or is over 8 MB")
        raw = handler.rfile.read(int(length))
        try:
            return json.loads(raw.decode("utf-8")) if raw else None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise _BadRequest(f"the request body is not JSON: {exc}") from None

    def _route(self, handler: Any, method: str, path: str, query: dict[str, list[str]], body: Any) -> None:
        get = method in ("GET", "HEAD")
        one = {k: v[0] for k, v in query.items() if v}
        data = body if isinstance(body, dict) else {}
        if path == "/api/author/files" and get:
            files = self.files
            handler._json(
                HTTPStatus.OK, {"roots": files.roots(), "files": files.list(), "folders": files.folders()}
            )
        elif path == "/api/author/evalset" and get:
            handler._json(HTTPStatus.OK, self.files.load(one.get("root"), one.get("path")))
        elif path == "/api/author/evalset/save" and method == "POST":
            self._save(handler, data)
        elif path == "/api/author/traces" and get:
            traces = self.traces
            missing = traces.missing()
            handler._json(
                HTTPStatus.OK, {"available": missing is None, "install": missing, "files": traces.files()}
            )
        elif path == "/api/author/trace" and get:
            handler._json(HTTPStatus.OK, self.traces.sessions(one.get("root"), one.get("path")))
        elif path == "/api/author/trace/case" and method == "POST":
            case = self.traces.case(data.get("root"), data.get("path"), data.get("session_id"))
            handler._json(HTTPStatus.OK, {"case": case})
        elif path == "/api/author/criteria" and get:
            if self._criteria is None:
                self._criteria = criteria_catalog()
            handler._json(HTTPStatus.OK, {"criteria": self._criteria})
        elif path == "/api/author/chats" and method == "POST":
            chat = self.chats.start(data.get("agent"), data.get("agent_type"), data.get("session_input"))
            handler._json(HTTPStatus.OK, chat.describe())
        elif path == "/api/author/runs" and method == "POST":
            job = self.runs.start(data)
            handler._json(HTTPStatus.OK, job.describe())
        elif path == "/api/author/promote" and method == "POST":
            handler._json(HTTPStatus.OK, {"case": self._promote(data)})
        elif (match := _RUN.fullmatch(path)) and get:
            job = self.runs.get(match.group(1))
            if job is None:
                raise ChatError(f"no run {match.group(1)[:60]!r} was started from this viewer", status=404)
            handler._json(HTTPStatus.OK, job.describe())
        elif match := _CHAT.fullmatch(path):
            self._chat(handler, method, match.group(1), match.group(2), data)
        else:
            raise ChatError(f"no authoring route {method} {path[:200]!r}", status=404)

    def _save(self, handler: Any, data: dict[str, Any]) -> None:
        edits = data.get("edits") or []
        if not isinstance(edits, list):
            raise _BadRequest("edits: give a list of {op, ...}")
        if not isinstance(data.get("sha256"), (str, type(None))):
            raise _BadRequest(
                "sha256: give the file's sha256 as its load gave it (a string), or none for a new set"
            )
        outcome = self.files.save(
            data.get("root"),
            data.get("path"),
            data.get("sha256"),
            edits,
            preview=bool(data.get("preview")),
            new_set=data.get("new_set"),
        )
        handler._json(
            HTTPStatus.OK,
            {
                "changed": outcome.changed,
                "written": outcome.written,
                "diff": outcome.diff,
                "sha256": outcome.sha256,
                "warnings": outcome.warnings,
            },
        )

    # ------------------------------------------------------------------ chats

    def _chat(
        self, handler: Any, method: str, chat_id: str, action: Optional[str], data: dict[str, Any]
    ) -> None:
        if action is None and method == "DELETE":
            self.chats.close(chat_id)
            handler._json(HTTPStatus.OK, {"closed": True})
        elif action is None and method in ("GET", "HEAD"):
            handler._json(HTTPStatus.OK, self.chats.get(chat_id).describe())
        elif action == "undo" and method == "POST":
            handler._json(HTTPStatus.OK, self.chats.undo(chat_id).describe())
        elif action == "case" and method == "POST":
            case_id = data.get("case_id")
            if not isinstance(case_id, str) or not case_id:
                raise _BadRequest("give the new case's id")
            chat = self.chats.get(chat_id)
            if not chat.invocations:
                raise ChatError("the chat has no turns yet; send a message first")
            handler._json(HTTPStatus.OK, {"case": case_from_chat(chat, case_id)})
        elif action == "turns" and method == "POST":
            events = self.chats.send(chat_id, data.get("text"))
            first = next(events)  # refusals (busy, closed, empty) raise before the stream starts
            handler.start_event_stream()
            for event in _chain(first, events):
                handler.wfile.write(_sse(event))
                handler.wfile.flush()
            handler.wfile.write(_sse({"type": "done"}))
            handler.wfile.flush()
        else:
            raise ChatError(f"no chat route {method} {action or ''}", status=404)

    # ------------------------------------------------------------------ promote

    def _promote(self, data: dict[str, Any]) -> dict[str, Any]:
        """``case`` (snake_case, as the editor has it) with its expected turns replaced by
        what the agent did in run ``run_id`` (its first run): every turn, or turn ``turn``
        (0-based). The user messages stay the case's; nothing is written here."""
        from agenteval.errors import AgentEvalError
        from agenteval.runs import find_run

        case = data.get("case")
        if not isinstance(case, dict) or not isinstance(case.get("conversation"), list):
            raise _BadRequest("promote: give the case (with its conversation) as the editor has it")
        run_id, case_id = data.get("run_id"), case.get("eval_id")
        if not isinstance(run_id, str) or not run_id:
            raise _BadRequest("promote: give the run whose actual turns become expected")
        try:
            run = find_run(self.runs_dir, run_id)
        except AgentEvalError as exc:
            raise ChatError(str(exc), status=404) from None
        except OSError as exc:  # an id no file system takes (too long a name)
            raise ChatError(f"no run {run_id[:80]!r}: {exc.strerror}", status=404) from None
        wanted_set = data.get("eval_set_id")
        record = next(
            (
                r
                for r in run.records()
                if r.case_id == case_id and (wanted_set is None or r.eval_set_id == wanted_set) and r.actual
            ),
            None,
        )
        if record is None or record.actual is None or record.actual.error is not None:
            raise ChatError(f"run {run_id} has no actual turns for case {str(case_id)[:80]!r}", status=404)
        actual = [
            {
                k: v
                for k, v in json.loads(i.model_dump_json(exclude_none=True, exclude_defaults=True)).items()
                if k not in ("duration", "model_duration", "tool_duration", "creation_timestamp")
            }
            for i in record.actual.invocations
        ]
        if not all(isinstance(turn, dict) for turn in case["conversation"]):
            raise _BadRequest("promote: each turn of the case's conversation is an object")
        turns = [dict(t) for t in case["conversation"]]
        turn = data.get("turn")
        chosen = range(len(turns)) if turn is None else [turn]
        for index in chosen:
            if not isinstance(index, int) or not 0 <= index < min(len(turns), len(actual)):
                raise _BadRequest(f"promote: the run has no actual turn {index!r} for this case")
            kept = {
                k: turns[index][k] for k in ("invocation_id", "user_content", "rubrics") if k in turns[index]
            }
            promoted = {
                k: v for k, v in actual[index].items() if k in ("final_response", "intermediate_data")
            }
            turns[index] = {**kept, **promoted}
        return {**case, "conversation": turns}


def _chain(first: Any, rest: Any) -> Any:
    yield first
    yield from rest


def _sse(event: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(event, ensure_ascii=False).encode("utf-8") + b"\n\n"
