"""The run folder's read model: what a listing shows of each case, typed, with the folder's
reading rules applied here once.

``RecordedRun.case_briefs()`` yields a ``CaseBrief`` per planned case: a run of one run per
case from its ``index.jsonl`` lines (no record read), several runs per case combined from their
records. Compare, the terminal table and the viewer read cases through it, so these rules
live here only:

* **never recorded** — a planned case with no record is the engine's own reading of it
  (``case_from_records`` of no record: NOT_EVALUATED ``interrupted``, or ``pending`` while the
  run goes on);
* **point verdict** — a one-run result without a tri-state verdict of its own has the point
  verdict of its status (``agenteval._verdicts.point_verdict``) when the run has statistics;
* **rubric failed** — a rubric verdict fails when its score is 0 or its verdict says no
  (``rubric_failed``).

Briefs are named tuples (immutable and typed; far cheaper to make than dataclasses, and a
100k-case run makes half a million criterion briefs).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple, Optional

from .._results import CaseResult, Status
from .._verdicts import point_verdict
from ._index import _rubrics, index_entry
from ._records import CaseRecord, EvalSetEntry

__all__ = ["CaseBrief", "CriterionBrief", "RubricBrief", "not_reached", "rubric_failed"]

#: A run of several runs per case writes each finished case's combined brief here
#: (``brief_line``), so that readers need not combine every case's runs again.
BRIEFS = "briefs.jsonl"
#: the rest of a ``briefs.jsonl`` line after its head (key, status, marks, places and hints:
#: ``brief_line`` writes them first); ``,"criteria":`` is never inside a JSON string (a quote
#: there is escaped), so a line cut here and closed is its head, or not JSON (then the lines
#: are read whole)
BRIEF_TAIL = re.compile(rb',"criteria":[^\n]*')
#: the same after the criteria: a line's previews and rubric texts
BRIEF_PREVIEW = re.compile(rb',"preview":[^\n]*')
#: the start of a ``briefs.jsonl`` line up to its marks, as ``brief_line`` writes it: eval set
#: index, case id (a JSON string's inside), status, INCONCLUSIVE count and unreached; what a
#: listing decides on, found without parsing the line (``{"key":[`` is never inside a JSON
#: string either: a quote there is escaped)
BRIEF_MARKS = re.compile(
    rb'\{"key":\[(\d+),"((?:[^"\\\n]|\\.)*)"\],"status":"([A-Z_]+)","marks":\[(\d+),(true|false)\]'
)
#: how every ``briefs.jsonl`` line starts
BRIEF_START = b'{"key":['

_STATUS = {status.value: status for status in Status}
#: the point verdict of each status (by its value), as a string (``None``: an informational
#: result has none)
_POINT = {status.value: (found.verdict if (found := point_verdict(status)) else None) for status in Status}
_FAILING_VERDICTS = frozenset({"no", "false", "fail"})


def rubric_failed(score: Any, verdict: Any) -> bool:
    """Whether a rubric verdict fails: its score is 0, or its verdict is no / false / fail."""
    return score == 0.0 or str(verdict).lower() in _FAILING_VERDICTS


def not_reached(criteria: Iterable[tuple[Status, Optional[str]]]) -> bool:
    """Whether a case's (status, reason code) per criterion say the run never scored it:
    every criterion not OK is NOT_EVALUATED ``interrupted`` (or ``pending``: the run is still
    going and has not come to it)."""
    problems = [code for status, code in criteria if not status.ok]
    return bool(problems) and all(code in ("interrupted", "pending") for code in problems)


def criteria_marks(criteria: list[list[Any]]) -> tuple[int, bool]:
    """A case's INCONCLUSIVE verdicts and whether the run never scored it (``not_reached``),
    from its criterion arrays (``[criterion, status, score, reason_code, verdict, ...]``, as
    ``scores.jsonl`` and ``briefs.jsonl`` hold them; a verdict left out is a point verdict,
    never INCONCLUSIVE)."""
    doubtful = 0
    problems = reached = False
    for item in criteria:
        status, code = item[1], item[3]
        if item[4] == "INCONCLUSIVE":
            doubtful += 1
        if status != "PASSED" and status != "INFORMATIONAL":  # not ok
            problems = True
            reached = reached or (code != "interrupted" and code != "pending")
    return doubtful, problems and not reached


class RubricBrief(NamedTuple):
    """One rubric verdict of a criterion (over its runs and invocations)."""

    rubric_id: str
    score: Optional[float]
    verdict: Any

    @property
    def failed(self) -> bool:
        return rubric_failed(self.score, self.verdict)


class CriterionBrief(NamedTuple):
    """A criterion's result for a case, as a listing shows it.

    Attributes:
        name: the criterion.
        status: its status for the case (combined over the case's runs).
        score: its score (the mean over the runs), ``None`` when not scored.
        reason_code: why it is not PASSED, when it says.
        verdict: the tri-state verdict (``PASS`` / ``FAIL`` / ``INCONCLUSIVE`` /
            ``NOT_EVALUATED``), the point verdict for one run; ``None`` without statistics
            (``--no-stats``) or for an informational criterion.
        rubrics: every rubric verdict it records.
        run_scores: the score of each run that was recorded, in run order.
    """

    name: str
    status: Status
    score: Optional[float]
    reason_code: Optional[str]
    verdict: Optional[str]
    rubrics: tuple[RubricBrief, ...] = ()
    run_scores: tuple[Optional[float], ...] = ()

    @property
    def failed_rubrics(self) -> list[str]:
        """The ids of the rubrics that failed, in the order recorded (repeats kept)."""
        return [rubric.rubric_id for rubric in self.rubrics if rubric.failed]


class CaseBrief(NamedTuple):
    """A planned case as a listing shows it, without reading its records.

    Attributes:
        entry: the eval set it belongs to; ``case_id`` its id.
        row: its place in the run's plan (0-based, over every eval set).
        status: the case's status, combined over its runs.
        criteria: each criterion's brief, in the eval set's order.
        recorded: whether any run of the case was recorded.
        user, reply: the first user message and the last reply, on one line and clipped
            (the index's ``preview``); empty when unknown.
        rubric_texts: ``{rubric_id: text}`` of the rubrics the case's expected turns carry.
    """

    entry: EvalSetEntry
    case_id: str
    row: int
    status: Status
    criteria: tuple[CriterionBrief, ...]
    recorded: bool = True
    user: str = ""
    reply: str = ""
    rubric_texts: Mapping[str, str] = {}

    @property
    def inconclusive(self) -> int:
        """How many of its criteria's verdicts are INCONCLUSIVE."""
        return sum(1 for c in self.criteria if c.verdict == "INCONCLUSIVE")

    @property
    def unreached(self) -> bool:
        """Whether the run never scored it (``not_reached``)."""
        return not_reached((c.status, c.reason_code) for c in self.criteria)


def brief_from_index(entry: EvalSetEntry, row: int, found: dict[str, Any], point: bool) -> CaseBrief:
    """The brief of a one-run case from its index entry (``RecordedRun.index_entries``);
    ``point``: the run has statistics, so a result without a verdict has its point verdict.
    (The hot loop of opening a big run: plain data in, named tuples out.)"""
    return _recorded_brief(entry, row, found, _one_run_criteria(found["criteria"], point))


def brief_from_scores(entry: EvalSetEntry, row: int, found: list[Any], point: bool) -> CaseBrief:
    """The brief of a one-run case from its ``scores.jsonl`` line (``agenteval.runs._scores``),
    as ``brief_from_index`` makes it from the case's index entry, without the preview and
    rubric texts (the line has none)."""
    criteria = _one_run_criteria(found[6], point)
    return CaseBrief._make((entry, found[1], row, _STATUS[found[5]], criteria, True, "", "", {}))


def _one_run_criteria(found: list[list[Any]], point: bool) -> tuple[CriterionBrief, ...]:
    """Criterion briefs from ``[criterion, status, score, reason_code, verdict, rubrics]``
    arrays (an index entry's or a ``scores.jsonl`` line's)."""
    statuses, points, make, rubric = _STATUS, _POINT, CriterionBrief._make, RubricBrief._make
    return tuple(
        [
            make(
                (
                    name,
                    statuses[status],
                    score,
                    reason_code,
                    points[status] if verdict is None and point else verdict,
                    tuple(map(rubric, rubrics)) if rubrics else (),
                    (score,),
                )
            )
            for name, status, score, reason_code, verdict, rubrics in found
        ]
    )


def _recorded_brief(
    entry: EvalSetEntry, row: int, found: dict[str, Any], criteria: tuple[CriterionBrief, ...]
) -> CaseBrief:
    """The brief of a recorded case from a line's key, status, preview and rubric texts."""
    preview = found.get("preview") or {}
    return CaseBrief._make(
        (
            entry,
            found["key"][1],
            row,
            _STATUS[found["status"]],
            criteria,
            True,
            preview.get("user", ""),
            preview.get("reply", ""),
            found.get("rubric_texts") or {},
        )
    )


def brief_from_result(
    entry: EvalSetEntry, row: int, case: CaseResult, records: Sequence[Optional[CaseRecord]] = ()
) -> CaseBrief:
    """The brief of a case from its result (``RecordedRun.case_result``: the rules of the
    run applied) and its records per run (``None``: never recorded): the preview and rubric
    texts of the first recorded run, each run's score as recorded."""
    present = [r for r in records if r is not None]
    run_scores: dict[str, list[Optional[float]]] = {}
    for record in present:
        for result in record.criteria:
            run_scores.setdefault(result.criterion, []).append(result.score)
    criteria = tuple(
        CriterionBrief(
            result.criterion,
            result.status,
            result.score,
            result.reason_code,
            result.verdict.verdict if result.verdict is not None else None,
            tuple(RubricBrief(str(i), s, v) for i, s, v in _rubrics(result)),
            tuple(run_scores.get(result.criterion, ())),
        )
        for result in case.criteria
    )
    user = reply = ""
    texts: Mapping[str, str] = {}
    if present:
        first = index_entry(present[0], 0, 0)
        user, reply = first["preview"]["user"], first["preview"]["reply"]
        texts = first.get("rubric_texts") or {}
    return CaseBrief(entry, case.eval_id, row, case.status, criteria, bool(present), user, reply, texts)


def brief_line(
    brief: CaseBrief,
    places: Optional[Sequence[Optional[Sequence[int]]]] = None,
    hints: Optional[Mapping[str, str]] = None,
) -> dict[str, Any]:
    """A case's combined brief as a ``briefs.jsonl`` line (``docs/run-folder.md``): each
    criterion one array ``[criterion, status, score, reason_code, verdict, rubrics,
    run_scores]``, as in the index with the run scores added; ``marks``: what a listing
    decides on (``criteria_marks``); ``places``: each run's record as ``[offset, length]`` in
    ``results.jsonl`` (run order; a reader of the case seeks there), ``hints``: its
    INCONCLUSIVE verdicts' hints (``agenteval._verdicts.verdict_hints``: a reader of the case
    need not search for them again)."""
    criteria = [
        [
            c.name,
            c.status.value,
            c.score,
            c.reason_code,
            c.verdict,
            [list(r) for r in c.rubrics],
            list(c.run_scores),
        ]
        for c in brief.criteria
    ]
    # what a listing and a reader of a few cases need comes first: ``BRIEF_TAIL`` cuts the rest
    line: dict[str, Any] = {
        "key": [brief.entry.index, brief.case_id],
        "status": brief.status.value,
        "marks": list(criteria_marks(criteria)),
    }
    if places:
        line["at"] = [list(place) if place is not None else None for place in places]
    if hints:
        line["hints"] = dict(hints)
    line["criteria"] = criteria
    line["preview"] = {"user": brief.user, "reply": brief.reply}
    if brief.rubric_texts:
        line["rubric_texts"] = dict(brief.rubric_texts)
    return line


def brief_from_line(entry: EvalSetEntry, row: int, found: dict[str, Any]) -> CaseBrief:
    """The brief a ``briefs.jsonl`` line holds (``brief_line``), at ``row`` of the plan."""
    statuses, make, rubric = _STATUS, CriterionBrief._make, RubricBrief._make
    criteria = tuple(
        make(
            (
                name,
                statuses[status],
                score,
                reason_code,
                verdict,
                tuple(map(rubric, rubrics)) if rubrics else (),
                tuple(run_scores),
            )
        )
        for name, status, score, reason_code, verdict, rubrics, run_scores in found["criteria"]
    )
    return _recorded_brief(entry, row, found, criteria)
