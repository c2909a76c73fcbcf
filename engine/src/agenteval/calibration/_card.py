"""The calibration card: how a criterion's judge verdicts in one recorded run agree with
human labels, bound to what made those verdicts (criterion version, judge models, prompt)."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional, Union

from pydantic import BaseModel, ConfigDict, Field

from .._results import CaseResult, IntervalInfo, Status
from .._stats import derive_seed, judge_calibration
from .._verdicts import _interval_info
from ..runs import CriterionEntry, RecordedRun
from ..runs._folder import CALIBRATION, utc_now
from ._labels import HumanLabel

__all__ = ["CALIBRATION_FILE", "CalibrationCard", "UnmatchedLabel", "calibrate", "read_cards", "write_cards"]

#: Where ``agenteval calibrate`` keeps a run's cards, in its run folder.
CALIBRATION_FILE = CALIBRATION
_JUDGED = {Status.PASSED: True, Status.FAILED: False}


class UnmatchedLabel(BaseModel):
    """A label with no judge verdict to compare: ``reason`` is ``no_case``,
    ``no_criterion``, ``no_invocation`` or ``not_judged`` (the run's result is
    NOT_EVALUATED or ERRORED); ``line`` is its line in the labels file."""

    model_config = ConfigDict(frozen=True)

    line: int
    eval_id: str
    reason: str


class CalibrationCard(BaseModel):
    """A judge criterion's agreement with human labels (``agenteval._stats.JudgeCalibration``):
    ``kappa`` (Cohen's κ; ``None`` when undefined) with ``kappa_interval``, ``accuracy``,
    ``sensitivity`` and ``specificity`` (Clopper–Pearson), ``base_rate`` (share people
    passed), ``judge_rate``, and ``rank_correlation`` (Kendall's τ-b, graded scores only),
    over ``n`` matched labels (``unmatched`` lists the others). It is bound to the
    criterion's ``criterion_version``, ``judge_models`` and ``prompt_sha256``: a run whose
    criterion differs in any of them is not described by it (``current_for``)."""

    model_config = ConfigDict(frozen=True)

    criterion: str
    criterion_version: str
    judge_models: list[str] = Field(default_factory=list)
    prompt_version: Optional[str] = None
    prompt_sha256: Optional[str] = None
    run_id: str
    labels_file: str
    labels_sha256: str
    created_at: str
    n: int
    kappa: Optional[float]
    kappa_interval: IntervalInfo
    accuracy: IntervalInfo
    sensitivity: IntervalInfo
    specificity: IntervalInfo
    base_rate: float
    judge_rate: float
    rank_correlation: Optional[float] = None
    unmatched: list[UnmatchedLabel] = Field(default_factory=list)

    def kappa_text(self) -> str:
        """``"0.56 [-0.14, 1.00]"``: κ with its interval, or why it is undefined."""
        if self.kappa is None:
            return "undefined (one label throughout)"
        return f"{self.kappa:.2f} [{self.kappa_interval.low:.2f}, {self.kappa_interval.high:.2f}]"

    def current_for(self, entry: CriterionEntry, prompt_sha256: Optional[str]) -> Optional[str]:
        """Why the card does not describe ``entry`` (a run's criterion) whose results record
        ``prompt_sha256`` (their ``details``), or ``None`` when it does."""
        differences = []
        if entry.name != self.criterion:
            differences.append(f"criterion {entry.name!r} is not {self.criterion!r}")
        version = f"{entry.distribution}@{entry.version}"
        if version != self.criterion_version:
            differences.append(f"criterion version {version} (card: {self.criterion_version})")
        if sorted(entry.judge_models) != sorted(self.judge_models):
            differences.append(f"judge model(s) {', '.join(entry.judge_models) or 'none'}")
        if prompt_sha256 != self.prompt_sha256:
            differences.append("the judge prompt changed (prompt_sha256)")
        return "; ".join(differences) or None


def calibrate(
    run: RecordedRun, labels: Sequence[HumanLabel], labels_file: Path, level: float = 0.95
) -> list[CalibrationCard]:
    """One card per criterion the labels name, in the labels' order, comparing each label
    with the run's verdict for it (the case's criterion result, or the invocation's when
    the label names one). A criterion the run does not have gets no card (the caller says
    so: ``set(label.criterion) - {card.criterion}``)."""
    cases: dict[str, CaseResult] = {}
    entries: dict[str, CriterionEntry] = {}
    for eval_set, case in run.case_results():
        cases.setdefault(case.eval_id, case)
        for criterion in eval_set.criteria:
            entries.setdefault(criterion.name, criterion)
    digest = hashlib.sha256(labels_file.read_bytes()).hexdigest()
    cards = []
    for name in dict.fromkeys(label.criterion for label in labels):
        entry = entries.get(name)
        if entry is None:
            continue
        judge: list[bool] = []
        human: list[bool] = []
        judge_scores: list[float] = []
        human_scores: list[Optional[float]] = []
        unmatched = []
        prompt: dict[str, Optional[str]] = {}
        for label in (item for item in labels if item.criterion == name):
            verdict = _verdict_for(cases.get(label.eval_id), label)
            if isinstance(verdict, str):
                unmatched.append(UnmatchedLabel(line=label.line, eval_id=label.eval_id, reason=verdict))
                continue
            passed, score, details = verdict
            prompt = prompt or {k: details.get(k) for k in ("prompt_version", "prompt_sha256")}
            judge.append(passed)
            human.append(label.passed)
            judge_scores.append(score if score is not None else float(passed))
            human_scores.append(label.score)
        stats = judge_calibration(
            judge,
            human,
            level=level,
            seed=derive_seed(run.run_id, "calibration", name),
            judge_scores=judge_scores,
            human_scores=human_scores,
        )
        cards.append(
            CalibrationCard(
                criterion=name,
                criterion_version=f"{entry.distribution}@{entry.version}",
                judge_models=list(entry.judge_models),
                prompt_version=prompt.get("prompt_version"),
                prompt_sha256=prompt.get("prompt_sha256"),
                run_id=run.run_id,
                labels_file=str(labels_file),
                labels_sha256=digest,
                created_at=utc_now(),
                n=stats.n,
                kappa=stats.kappa,
                kappa_interval=_interval_info(stats.kappa_interval),
                accuracy=_interval_info(stats.accuracy),
                sensitivity=_interval_info(stats.sensitivity),
                specificity=_interval_info(stats.specificity),
                base_rate=stats.base_rate,
                judge_rate=stats.judge_rate,
                rank_correlation=stats.rank_correlation,
                unmatched=unmatched,
            )
        )
    return cards


def _verdict_for(
    case: Optional[CaseResult], label: HumanLabel
) -> Union[tuple[bool, Optional[float], dict[str, Any]], str]:
    """The judge's pass/fail, score and the criterion's details for what ``label`` names,
    or why there is none."""
    if case is None:
        return "no_case"
    result = next((c for c in case.criteria if c.criterion == label.criterion), None)
    if result is None:
        return "no_criterion"
    if label.invocation_id is None:
        return _judged(result.status, result.score, result.details)
    for candidate in (result, *result.runs):
        for item in candidate.per_invocation:
            if item.invocation_id == label.invocation_id:
                return _judged(item.status, item.score, candidate.details)
    return "no_invocation"


def _judged(
    status: Status, score: Optional[float], details: dict[str, Any]
) -> Union[tuple[bool, Optional[float], dict[str, Any]], str]:
    passed = _JUDGED.get(status)
    return "not_judged" if passed is None else (passed, score, details)


def read_cards(run: RecordedRun) -> dict[str, CalibrationCard]:
    """The cards kept in the run folder's ``calibration.json``, by criterion (empty when
    there is none; a damaged file or card is left out, never raised)."""
    path = run.folder / CALIBRATION_FILE
    try:
        found = json.loads(path.read_text(encoding="utf-8"))["cards"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    cards = {}
    for item in found if isinstance(found, list) else []:
        try:
            card = CalibrationCard.model_validate(item)
        except ValueError:
            continue
        cards[card.criterion] = card
    return cards


def write_cards(run: RecordedRun, cards: Sequence[CalibrationCard]) -> Path:
    """Keep ``cards`` in the run folder's ``calibration.json`` (a card replaces the one of
    the same criterion; written atomically); the file's path."""
    path = run.folder / CALIBRATION_FILE
    kept = {name: card.model_dump(mode="json") for name, card in read_cards(run).items()}
    for card in cards:
        kept[card.criterion] = card.model_dump(mode="json")
    temporary = path.with_name(f".{CALIBRATION_FILE}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps({"cards": list(kept.values())}, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, path)
    return path
