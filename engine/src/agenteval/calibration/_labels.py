"""The human labels file: JSONL, one label a line (see ``agenteval.calibration``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from .._loading._json import decode_utf8
from ..errors import DataError

__all__ = ["HumanLabel", "read_labels"]

_REQUIRED = ("eval_id", "criterion", "label")
_OPTIONAL = ("invocation_id", "score", "note")
_LABELS = ("pass", "fail")


@dataclass(frozen=True)
class HumanLabel:
    """One person's verdict on one criterion's result for a case (or, with
    ``invocation_id``, one invocation of it); ``line`` is where it is in the file."""

    eval_id: str
    criterion: str
    passed: bool
    line: int
    invocation_id: Optional[str] = None
    score: Optional[float] = None
    note: Optional[str] = None

    @property
    def key(self) -> tuple[str, str, Optional[str]]:
        return (self.eval_id, self.criterion, self.invocation_id)

    def to_json(self) -> dict[str, Any]:
        """The label as one line of the labels file (``read_labels`` reads it back): the
        required keys, then each optional one that is set."""
        line: dict[str, Any] = {
            "eval_id": self.eval_id,
            "criterion": self.criterion,
            "label": _LABELS[0] if self.passed else _LABELS[1],
        }
        for key in _OPTIONAL:
            if getattr(self, key) is not None:
                line[key] = getattr(self, key)
        return line


def read_labels(path: Path) -> list[HumanLabel]:
    """Every label of the file, in order; ``DataError`` (``file:line:column``, what is wrong
    and the fix) for the first bad line, a duplicate label, or a file without labels."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DataError(f"cannot read the labels file: {exc}", source=str(path)) from None
    text = decode_utf8(data, str(path))  # a byte that is not UTF-8: its line and column
    labels: list[HumanLabel] = []
    seen: dict[tuple[str, str, Optional[str]], int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        label = _parse(line, f"{path}:{number}", number)
        if label.key in seen:
            raise DataError(
                f"a second label for case {label.eval_id!r}, criterion {label.criterion!r}"
                + (f", invocation {label.invocation_id!r}" if label.invocation_id else "")
                + f" (the first is on line {seen[label.key]}); keep one",
                source=f"{path}:{number}:1",
            )
        seen[label.key] = number
        labels.append(label)
    if not labels:
        raise DataError(
            'no labels: write one JSON object a line, e.g. {"eval_id": "c1", "criterion": '
            '"final_response_match_v2", "label": "pass"}',
            source=str(path),
        )
    return labels


def _parse(line: str, where: str, number: int) -> HumanLabel:
    try:
        data: Any = json.loads(line)
    except json.JSONDecodeError as exc:
        raise DataError(f"not JSON: {exc.msg}", source=f"{where}:{exc.colno}") from None
    if not isinstance(data, dict):
        raise DataError("expected one JSON object a line", source=f"{where}:1")
    problems = [f"unknown key {k!r}" for k in data if k not in _REQUIRED + _OPTIONAL]
    problems += [f"{k!r} is missing" for k in _REQUIRED if k not in data]
    for key in ("eval_id", "criterion", "invocation_id", "note"):
        optional = key in _OPTIONAL and data.get(key) is None  # an optional key may be null
        if key in data and not optional and (not isinstance(data[key], str) or not data[key]):
            problems.append(f"{key!r} must be a non-empty string")
    if "label" in data and data["label"] not in _LABELS:
        problems.append(f'\'label\' must be "pass" or "fail", got {json.dumps(data["label"])}')
    score = data.get("score")
    if score is not None and (
        isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 1
    ):
        problems.append(f"'score' must be a number from 0 to 1, got {json.dumps(score)}")
    if problems:
        keys = ", ".join(_REQUIRED) + " (and optionally " + ", ".join(_OPTIONAL) + ")"
        raise DataError("; ".join(problems) + f"; a label has {keys}", source=f"{where}:1")
    return HumanLabel(
        eval_id=data["eval_id"],
        criterion=data["criterion"],
        passed=data["label"] == "pass",
        line=number,
        invocation_id=data.get("invocation_id"),
        score=None if score is None else float(score),
        note=data.get("note"),
    )
