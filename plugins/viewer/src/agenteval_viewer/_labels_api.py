"""The labelling route of ``agenteval view``: human pass/fail labels for a run's judge
criteria, written to the labels file ``agenteval calibrate RUN --labels FILE`` reads
(``_labels``).

Routes::

    GET  /api/runs/<id>/labels     {"file", "writable", "refused", "labels": [...], "calibrate"}
    POST /api/runs/<id>/labels     {"eval_id", "criterion", "label": "pass"|"fail"|null,
                                    "invocation_id"?, "note"?} -> the same as GET

The file is ``labels.jsonl`` in the run's folder, or the one ``--labels FILE`` names (then
every run's labels go there: a label names a case, not a run). A POST needs the session's
token (``X-Agenteval-Token``; the front end reads it from ``GET /api/capabilities``, which no
other site can read) and a same-origin request (``_authoring_guard.SessionToken``); ``label``
``null`` removes the label. ``calibrate`` is the command that compares the labels with the
run's judge (``agenteval calibrate RUN --labels FILE``). Refusals are ``{"error": ...}``:
400 (a bad label), 403 (token, origin, a read-only folder), 409 (a labels file broken by hand).
"""

from __future__ import annotations

import json
import shlex
from http import HTTPStatus
from pathlib import Path
from typing import Any, Optional

from agenteval.calibration import HumanLabel

from ._authoring_guard import GuardRefused, SessionToken
from ._labels import LABELS_FILE, LabelRefused, LabelsFile

__all__ = ["Labelling"]

_MAX_BODY = 64 * 1024
_NOTE_LIMIT = 2000


class Labelling:
    """Labels for the runs of one viewer session: ``labels_file`` for every run, else each
    run folder's ``labels.jsonl``."""

    def __init__(self, labels_file: Optional[Path] = None, token: Optional[str] = None) -> None:
        self.labels_file = None if labels_file is None else Path(labels_file).absolute()
        self.guard = SessionToken(token, "labelling")

    def file_for(self, run_folder: Path) -> LabelsFile:
        return LabelsFile(self.labels_file or Path(run_folder) / LABELS_FILE)

    def capabilities(self) -> dict[str, Any]:
        """What ``GET /api/capabilities`` says of labelling."""
        return {
            "token": self.guard.token,
            "file": None if self.labels_file is None else str(self.labels_file),
        }

    def handle(self, handler: Any, run_folder: Path) -> None:
        """Answer one GET, HEAD or POST of ``/api/runs/<id>/labels`` for the run in ``run_folder``."""
        labels = self.file_for(run_folder)
        try:
            if handler.command == "POST":
                origins = [f"http://{h}" for h in handler.server.allowed_hosts]
                try:
                    self.guard.check_request(handler.headers, origins)
                except GuardRefused:
                    handler.close_connection = True  # the body is left unread
                    raise
                key, label = _parse(_body(handler))
                found = labels.put(key, label)
            else:
                found = labels.read()
        except (GuardRefused, LabelRefused) as exc:
            handler._json(exc.status, {"error": str(exc)})
            return
        refused = labels.writable()
        handler._json(
            HTTPStatus.OK,
            {
                "file": str(labels.path),
                "writable": refused is None,
                "refused": refused,
                "labels": [label.to_json() for label in found],
                "calibrate": shlex.join(
                    ["agenteval", "calibrate", str(Path(run_folder).absolute()), "--labels", str(labels.path)]
                ),
            },
        )


def _body(handler: Any) -> Any:
    length = handler.headers.get("Content-Length") or ""
    if not length.isascii() or not length.isdigit() or int(length) > _MAX_BODY:
        handler.close_connection = True
        raise LabelRefused(f"send one JSON label of at most {_MAX_BODY} bytes, with its Content-Length")
    try:
        return json.loads(handler.rfile.read(int(length)) or b"null")
    except ValueError as exc:
        raise LabelRefused(f"the label is not JSON: {exc}") from None


def _parse(data: Any) -> tuple[tuple[str, str, Optional[str]], Optional[HumanLabel]]:
    """The key and the label (``None``: remove it) of a request body."""
    if not isinstance(data, dict):
        raise LabelRefused('send {"eval_id", "criterion", "label": "pass" | "fail" | null}')
    for name in ("eval_id", "criterion"):
        if not isinstance(data.get(name), str) or not data[name]:
            raise LabelRefused(f"{name!r} must be a non-empty string")
    invocation = data.get("invocation_id")
    if invocation is not None and (not isinstance(invocation, str) or not invocation):
        raise LabelRefused("'invocation_id' must be a non-empty string or absent")
    note = data.get("note")
    if note is not None and not isinstance(note, str):
        raise LabelRefused("'note' must be a string")
    note = (note or "").strip()[:_NOTE_LIMIT] or None
    key = (data["eval_id"], data["criterion"], invocation)
    if data.get("label") is None:
        return key, None
    if data["label"] not in ("pass", "fail"):
        raise LabelRefused(f'\'label\' must be "pass", "fail" or null, got {json.dumps(data["label"])}')
    label = HumanLabel(
        eval_id=key[0],
        criterion=key[1],
        passed=data["label"] == "pass",
        line=0,
        invocation_id=invocation,
        note=note,
    )
    return key, label
