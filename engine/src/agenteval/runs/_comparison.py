"""``agenteval compare A B``: did the candidate run B get better or worse than the baseline A?

Each side is an agenteval run folder (or its id in the runs folder) or ADK eval-history
results (``*.evalset_result.json`` files, or a folder of them), so ADK users compare the runs
they already have. Cases pair on (eval_set_id, eval_id); the unpaired are listed. A criterion
whose configuration differs between the sides (threshold, parameters, plugin version, judge
model) makes the comparison meaningless, so it is refused unless ``allow_config_change``.

Per criterion the case scores (each case's mean over its runs) are compared with the paired
statistics of ``agenteval._stats.compare_runs`` (Δ with an interval, one-sided sign-flip
tests, Holm across criteria, the minimum detectable effect, REGRESSED / IMPROVED / NO
DETECTABLE CHANGE); per case, verdict flips are listed, regressions first, with
Benjamini–Hochberg flags when both sides have repeated runs.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice, repeat
from pathlib import Path
from typing import Any, NamedTuple, Optional, cast

from .._gc import gc_paused
from .._results import Status
from ..errors import ConfigError, DataError
from ._briefs import _STATUS
from ._reader import RecordedRun, find_run
from ._records import CriterionEntry

__all__ = ["CaseFlip", "CompareReport", "Side", "compare_sides", "load_side", "load_sides", "render_markdown"]

_ADK_STATUS = {1: Status.PASSED, 2: Status.FAILED, 3: Status.NOT_EVALUATED, 4: Status.INFORMATIONAL}


@dataclass
class Side:
    """One side of a comparison: per (eval_set_id, case_id) and criterion, every run's score
    and the case's status under that criterion; and each criterion's configuration."""

    label: str
    source: str
    scores: dict[tuple[str, str], dict[str, list[Optional[float]]]] = field(default_factory=dict)
    statuses: dict[tuple[str, str], dict[str, Status]] = field(default_factory=dict)
    criteria: dict[str, dict[str, Any]] = field(default_factory=dict)


def _config_of(entry: CriterionEntry) -> dict[str, Any]:
    return {
        "threshold": entry.threshold,
        "params": entry.params,
        "version": f"{entry.distribution} {entry.version}",
        "judge_models": entry.judge_models,
        "higher_is_better": entry.higher_is_better,
        "informational": entry.informational,
        "min_score": entry.min_score,
        "max_score": entry.max_score,
    }


class _Columns(NamedTuple):
    """A run's recorded cases column by column, what ``compare_sides`` reads of a side: each
    case's (eval_set_id, case_id) in the run's order (a key written twice: its last place
    counts), and per criterion each case's status and runs' scores in that order."""

    keys: list[tuple[str, str]]
    statuses: dict[str, list[Status]]
    #: each case's runs' scores; with ``single`` (one run per case) its run's score itself
    scores: dict[str, list[Any]]
    single: bool


class _RunSide(Side):
    """A side read from a run folder by column (``_Columns``): its ``scores`` and
    ``statuses`` by case are made from the run when first asked for (``compare_sides``
    reads the columns until then; after, what a caller may have changed in them)."""

    def __init__(
        self,
        label: str,
        source: str,
        criteria: dict[str, dict[str, Any]],
        columns: _Columns,
        by_case: Callable[[Side], None],
    ) -> None:
        super().__init__(label, source, criteria=criteria)
        self.columns: Optional[_Columns] = columns
        self._by_case: Optional[Callable[[Side], None]] = by_case
        self._places: Optional[dict[tuple[str, str], int]] = None

    def places(self) -> dict[tuple[str, str], int]:
        """Each recorded key's place in ``columns`` (a key written twice: its last place),
        made once (pairing and reading the paired cases both look keys up)."""
        if self._places is None:
            assert self.columns is not None
            keys = self.columns.keys
            self._places = dict(zip(keys, range(len(keys)), strict=True))
        return self._places

    def _made(self) -> None:
        if self._by_case is not None:
            make, self._by_case, self.columns = self._by_case, None, None
            with gc_paused():
                make(self)

    @property
    def scores(self) -> dict[tuple[str, str], dict[str, list[Optional[float]]]]:
        self._made()
        return self.__dict__["_scores"]

    @scores.setter
    def scores(self, value: dict[tuple[str, str], dict[str, list[Optional[float]]]]) -> None:
        self.__dict__["_scores"] = value

    @property
    def statuses(self) -> dict[tuple[str, str], dict[str, Status]]:
        self._made()
        return self.__dict__["_statuses"]

    @statuses.setter
    def statuses(self, value: dict[tuple[str, str], dict[str, Status]]) -> None:
        self.__dict__["_statuses"] = value


def _from_run(run: RecordedRun, label: str) -> Side:
    """A side from a recorded run's case briefs (``RecordedRun.case_briefs``: a run of one
    run per case from its index, several runs combined from their records): each case's
    status under each criterion and, for the cases recorded, every run's score. A finished
    run of several runs per case, or one of one run per case read from its ``scores.jsonl``,
    is read by column (``_columns``) when its lines allow."""
    criteria: dict[str, dict[str, Any]] = {}
    for entry in run.manifest.eval_sets:
        for criterion in entry.criteria:
            criteria.setdefault(criterion.name, _config_of(criterion))
    source = f"run {run.run_id}"
    with gc_paused():  # 100k cases' columns: long-lived, no cycles
        columns = _columns(run)
    if columns is not None:
        return _RunSide(label, source, criteria, columns, lambda side: _by_case(run, side))
    side = Side(label=label, source=source, criteria=criteria)
    with gc_paused():  # 100k cases' dicts: long-lived, no cycles
        _by_case(run, side)
    return side


def _by_case(run: RecordedRun, side: Side) -> None:
    """``side``'s statuses and scores by case, from ``run`` (``_from_run``)."""
    statuses, scores = side.statuses, side.scores
    rows = run._listed_scores() if run.manifest.num_runs == 1 else None
    if rows is not None:
        _from_scores(run, rows, side)
        return
    if run.manifest.num_runs != 1 and _from_briefs(run, side):
        return
    for brief in run.case_briefs(previews=False):
        key = (brief.entry.eval_set_id, brief.case_id)
        criteria = brief.criteria
        statuses[key] = {c.name: c.status for c in criteria}
        if brief.recorded:
            scores[key] = {c.name: list(c.run_scores) for c in criteria}


_SET, _CASE, _RUN, _CRITERIA = (operator.itemgetter(n) for n in (0, 1, 2, 6))
_NAME, _STATUS_OF, _SCORE, _RUNS = (operator.itemgetter(n) for n in (0, 1, 2, 6))


def _columns(run: RecordedRun) -> Optional[_Columns]:
    """The run's recorded cases by column (``_Columns``), as ``_by_case`` gives them, read
    in C loops: a run of one run per case from its ``scores.jsonl`` lines when every line is
    a planned case's first run, a finished run of several runs per case from its written
    briefs (``RecordedRun._brief_criteria``); both when every case lists the same criteria
    in the same order. ``None`` otherwise (then by case)."""
    ids = {entry.index: entry.eval_set_id for entry in run.manifest.eval_sets}
    try:
        if run.manifest.num_runs == 1:
            rows = run._listed_scores()
            if not rows:
                return None
            sets, cases = list(map(_SET, rows)), list(map(_CASE, rows))
            if set(map(_RUN, rows)) != {1} or not _planned(run, sets, cases):
                return None  # a later run, or a case the plan does not have: by case
            keys = list(zip(map(ids.__getitem__, sets), cases, strict=True))
            return _criteria_columns(keys, list(map(_CRITERIA, rows)), single=True)
        briefed = run._brief_criteria()
        if not briefed or not briefed[2]:
            return None
        keys = list(zip(map(ids.__getitem__, briefed[0]), briefed[1], strict=True))
        return _criteria_columns(keys, briefed[2], single=False)
    except (TypeError, KeyError, IndexError, ValueError):
        return None


def _planned(run: RecordedRun, sets: list[int], cases: list[str]) -> bool:
    """Whether every (``sets[i]``, ``cases[i]``) is one of ``run``'s planned cases: compared in
    one C pass with the plan's first cases when they are those in that order (a run records its
    cases in plan order, nearly always), else each looked up."""
    planned_sets, planned_cases = run._planned_columns()
    count = len(cases)
    if cases == planned_cases[:count] and sets == planned_sets[:count]:
        return True
    plan = set(zip(planned_sets, planned_cases, strict=True))
    return all(map(plan.__contains__, zip(sets, cases, strict=True)))


def _criteria_columns(keys: list[tuple[str, str]], criteria: list[Any], single: bool) -> Optional[_Columns]:
    """``_Columns`` of ``keys`` and each one's criterion arrays (``[criterion, status, score,
    ...]``, the runs' scores seventh unless ``single``: one run, its score), when every case
    lists the same criteria in the same order; else ``None``."""
    if set(map(type, criteria)) != {list}:
        return None
    names = [item[0] for item in criteria[0]]
    if len(set(names)) != len(names) or set(map(len, criteria)) != {len(names)}:
        return None
    statuses: dict[str, list[Status]] = {}
    scores: dict[str, list[Any]] = {}
    for place, name in enumerate(names):
        column = list(map(operator.itemgetter(place), criteria))
        if set(map(type, column)) != {list} or set(map(_NAME, column)) != {name}:
            return None
        statuses[name] = list(map(_STATUS.__getitem__, map(_STATUS_OF, column)))
        if single:
            scores[name] = list(map(_SCORE, column))
        else:
            scores[name] = list(map(_RUNS, column))
            if set(map(type, scores[name])) != {list}:
                return None
    return _Columns(keys, statuses, scores, single)


def _from_scores(run: RecordedRun, rows: list[Any], side: Side) -> None:
    """``side``'s statuses and scores from a run's ``scores.jsonl`` lines, as its briefs give
    them (``RecordedRun.case_briefs``) without making one: a finished run of one run per case."""
    statuses, scores, status_of = side.statuses, side.scores, _STATUS
    plan, _ = run._plan()
    ids = {entry.index: entry.eval_set_id for entry in run.manifest.eval_sets}
    for line in rows:
        if line[2] != 1 or (line[0], line[1]) not in plan:
            continue  # a case the plan does not have
        key = (ids[line[0]], line[1])
        statuses[key] = {c[0]: status_of[c[1]] for c in line[6]}
        scores[key] = {c[0]: [c[2]] for c in line[6]}
    for entry in run.manifest.eval_sets:
        rest: Optional[dict[str, Status]] = None  # the same for every unrecorded case of the set
        for case_id in entry.case_ids:
            key = (entry.eval_set_id, case_id)
            if key not in scores:
                if rest is None:
                    rest = {r.criterion: r.status for r in run.case_result(entry, case_id, [None]).criteria}
                statuses[key] = dict(rest)


def _from_briefs(run: RecordedRun, side: Side) -> bool:
    """``side``'s statuses and scores from a run's ``briefs.jsonl`` lines, as its briefs give
    them (``RecordedRun.case_briefs``) without making one, when the run wrote every planned
    case's brief (several runs per case, finished); ``False`` (``side`` untouched) when not."""
    planned = run._planned_brief_lines()
    if planned is None:
        return False
    ids = {entry.index: entry.eval_set_id for entry in run.manifest.eval_sets}
    statuses, scores, status_of = side.statuses, side.scores, _STATUS
    for (eval_set, case_id), _, line in planned:
        key = (ids[eval_set], case_id)
        criteria = line["criteria"]
        statuses[key] = {c[0]: status_of[c[1]] for c in criteria}
        scores[key] = {c[0]: list(c[6]) for c in criteria}
    return True


def _adk_files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(path.rglob("*.evalset_result.json"))
    return [path]


def _from_adk(path: Path, label: str) -> Side:
    side = Side(label=label, source=str(path))
    files = _adk_files(path)
    if not files:
        raise ConfigError(f"{label}: {str(path)!r} holds no ADK *.evalset_result.json files")
    for file in files:
        try:
            document = json.loads(file.read_text(encoding="utf-8"))
            if isinstance(document, str):  # ADK before 1.22 wrote the JSON double-encoded
                document = json.loads(document)
            results = document["eval_case_results"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DataError(
                f"not an ADK eval-history result ({type(exc).__name__}: {exc})", source=str(file)
            ) from None
        if not isinstance(document, dict) or not isinstance(results, list):
            raise DataError("eval_case_results: expected a list of case results", source=str(file))
        set_id = str(document.get("eval_set_id", file.stem))
        for c, case in enumerate(results):
            metrics = case.get("overall_eval_metric_results") if isinstance(case, dict) else None
            if not isinstance(case, dict) or not isinstance(metrics or [], list):
                what = "an object" if not isinstance(case, dict) else "its overall_eval_metric_results a list"
                raise DataError(f"eval_case_results[{c}]: expected {what}", source=str(file))
            key = (str(case.get("eval_set_id") or set_id), str(case.get("eval_id")))
            per_case = side.scores.setdefault(key, {})
            statuses = side.statuses.setdefault(key, {})
            for m, metric in enumerate(metrics or []):
                score = metric.get("score") if isinstance(metric, dict) else None
                if not isinstance(metric, dict) or not isinstance(metric.get("metric_name"), str):
                    raise DataError(
                        f"eval_case_results[{c}].overall_eval_metric_results[{m}]: expected an object "
                        "with a metric_name",
                        source=str(file),
                    )
                if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
                    raise DataError(
                        f"eval_case_results[{c}].overall_eval_metric_results[{m}].score: expected a number "
                        f"or null, got {json.dumps(score)[:60]}",
                        source=str(file),
                    )
                name = metric["metric_name"]
                per_case.setdefault(name, []).append(score)
                found = metric.get("eval_status")
                status = (
                    _ADK_STATUS.get(found, Status.NOT_EVALUATED)
                    if isinstance(found, int)
                    else Status.NOT_EVALUATED
                )
                # ADK keeps one result per run of a case: the case fails if any run did.
                if statuses.get(name) not in (Status.FAILED, Status.NOT_EVALUATED) or status is Status.FAILED:
                    statuses[name] = status
                side.criteria.setdefault(
                    name,
                    {
                        "threshold": metric.get("threshold"),
                        "params": None,  # ADK spells criteria its own way: not compared
                        "version": "google-adk",
                        "judge_models": [],
                        "higher_is_better": True,
                        "informational": found == 4,
                        "min_score": 0.0,
                        "max_score": 1.0,
                    },
                )
    return side


def load_side(ref: str, runs_dir: Path, label: str) -> Side:
    """A comparison side from a run folder, a run id (or prefix) in ``runs_dir``, or ADK
    eval-history results (a file or a folder of them)."""
    path = Path(ref)
    if path.is_file() or (
        path.is_dir() and not (path / "manifest.json").exists() and any(path.rglob("*.evalset_result.json"))
    ):
        return _from_adk(path, label)
    return _from_run(find_run(runs_dir, ref), label)


def load_sides(baseline: str, candidate: str, runs_dir: Path) -> tuple[Side, Side]:
    """Both sides (``load_side``, labelled A and B); a run compared with itself (the same
    reference, or the same folder) is read once and its data shared by the two sides."""
    a = load_side(baseline, runs_dir, "A")
    if baseline == candidate or _same_path(baseline, candidate):
        if isinstance(a, _RunSide):
            b = copy.copy(a)
            b.label = "B"
            return a, b
        return a, dataclasses.replace(a, label="B")
    return a, load_side(candidate, runs_dir, "B")


def _same_path(first: str, second: str) -> bool:
    try:
        return Path(first).exists() and Path(first).resolve() == Path(second).resolve()
    except OSError:
        return False


#: The false discovery rate of the per-case flags (Benjamini–Hochberg).
CASE_FDR = 0.10


@dataclass(frozen=True)
class CaseFlip:
    """A case whose verdict under a criterion differs between A and B."""

    eval_set_id: str
    case_id: str
    criterion: str
    status_a: Status
    status_b: Status
    delta: Optional[float]
    flagged: Optional[bool] = None
    q_value: Optional[float] = None

    @property
    def regression(self) -> bool:
        return self.status_a is Status.PASSED and self.status_b is not Status.PASSED


@dataclass
class CompareReport:
    """Everything ``agenteval compare`` shows and decides."""

    a: Side
    b: Side
    paired: list[tuple[str, str]]
    only_a: list[tuple[str, str]]
    only_b: list[tuple[str, str]]
    comparison: Any  # agenteval._stats.Comparison
    flips: list[CaseFlip]
    config_changes: list[str]
    skipped: dict[str, str]

    @property
    def exit_code(self) -> int:
        return self.comparison.exit_code if self.comparison is not None else 0

    @property
    def case_flags(self) -> dict[str, Any]:
        """When a flipped case can be flagged: Benjamini–Hochberg q below ``fdr``, which
        needs ``min_runs_per_side`` runs on each side (the smallest p fewer runs can give is
        not below it); ``flips_not_testable`` counts the flips with fewer."""
        from .._stats import flag_min_runs

        return {
            "fdr": CASE_FDR,
            "min_runs_per_side": flag_min_runs(CASE_FDR),
            "flips_not_testable": sum(1 for f in self.flips if f.flagged is None),
        }

    def case_flags_note(self) -> Optional[str]:
        """One line for the terminal when some flips could not be flagged, else ``None``."""
        flags = self.case_flags
        if not flags["flips_not_testable"]:
            return None
        return (
            f"per-case flags (Benjamini–Hochberg q < {flags['fdr']:.2f}) need {flags['min_runs_per_side']} "
            f"runs or more per side; {flags['flips_not_testable']} flipped case(s) had fewer"
        )

    def to_json(self) -> dict[str, Any]:
        criteria = []
        for item in self.comparison.criteria if self.comparison is not None else ():
            criteria.append(
                {
                    "criterion": item.criterion,
                    "n_pairs": item.n_pairs,
                    "mean_a": item.mean_a,
                    "mean_b": item.mean_b,
                    "delta": item.delta,
                    "interval": {
                        "low": item.interval.low,
                        "high": item.interval.high,
                        "level": item.interval.level,
                        "method": item.interval.method,
                    },
                    "p_worse": item.p_worse,
                    "p_better": item.p_better,
                    "p_value": item.p_value,
                    "p_holm": item.p_holm,
                    "mde": item.mde,
                    "status": item.status.value,
                    "test": item.test_method,
                    "discordant": list(item.discordant) if item.discordant else None,
                    "non_inferior": item.non_inferior,
                }
            )
        return {
            "baseline": self.a.source,
            "candidate": self.b.source,
            "paired_cases": len(self.paired),
            "only_in_baseline": [list(k) for k in self.only_a],
            "only_in_candidate": [list(k) for k in self.only_b],
            "criteria": criteria,
            "not_compared": self.skipped,
            "config_changes": self.config_changes,
            "flips": [
                {
                    "eval_set_id": f.eval_set_id,
                    "case_id": f.case_id,
                    "criterion": f.criterion,
                    "baseline": f.status_a.value,
                    "candidate": f.status_b.value,
                    "delta": f.delta,
                    "flagged": f.flagged,
                    "q_value": f.q_value,
                }
                for f in self.flips
            ],
            "case_flags": self.case_flags,
            "exit_code": self.exit_code,
        }


def _config_changes(a: Side, b: Side, names: Sequence[str]) -> list[str]:
    changes = []
    for name in names:
        before, after = a.criteria.get(name, {}), b.criteria.get(name, {})
        for key, label in (
            ("threshold", "threshold"),
            ("params", "parameters"),
            ("judge_models", "judge model"),
            ("version", "plugin version"),
        ):
            if key in ("version", "params", "judge_models") and "google-adk" in (
                before.get("version"),
                after.get("version"),
            ):
                continue  # an ADK history file records neither versions nor agenteval's parameters
            if before.get(key) != after.get(key):
                changes.append(f"{name}: {label} {before.get(key)!r} -> {after.get(key)!r}")
    return changes


def _mean(values: Sequence[Optional[float]]) -> Optional[float]:
    if len(values) == 1:  # one run a case: its score (fsum of one value / 1 is the value)
        return None if values[0] is None else float(values[0])
    present = [v for v in values if v is not None]
    if len(present) != len(values) or not present:
        return None  # a run that was not scored makes the case not comparable
    return math.fsum(present) / len(present)


def _means(column: list[Optional[list[Optional[float]]]]) -> list[Optional[float]]:
    """Each case's mean score (``_mean``; ``None`` when it has none) of a column of its runs'
    scores: the one-run case, nearly every one, without a call; every case of several runs,
    each scored (a finished run of several runs per case), column by column in C loops."""
    try:
        given = cast(list[list[float]], column)  # (else ``TypeError``)
        lengths = list(map(len, given))
        if 0 not in lengths and 1 not in lengths and not any(map(operator.contains, given, repeat(None))):
            return list(map(operator.truediv, map(math.fsum, given), lengths))
    except TypeError:  # a case with no score under it, or a score not a number: one by one
        pass
    found: list[Optional[float]] = []
    for values in column:
        if values is None:
            found.append(None)
        elif len(values) == 1:
            found.append(None if values[0] is None else float(values[0]))
        else:
            found.append(_mean(values))
    return found


def _scored(values: Optional[list[Optional[float]]]) -> list[float]:
    """The runs of a case that have a score."""
    return [v for v in values if v is not None] if values else []


def _pair(a: Mapping[tuple[str, str], Any], b: Mapping[tuple[str, str], Any]) -> tuple[list, list, list]:
    """The keys of both, of ``a`` only and of ``b`` only, each sorted. Taken in each side's
    own order, nearly always sorted already (a run records its cases in plan order, more or
    less), sorting is about one pass, where a set's order costs a full sort."""
    if a is b or a.keys() == b.keys():  # a run compared with itself, or the same cases (one C pass)
        return sorted(a), [], []
    return (
        sorted([key for key in a if key in b]),
        sorted([key for key in a if key not in b]),
        sorted([key for key in b if key not in a]),
    )


def _pairs(a: Side, b: Side) -> tuple[list, list, list]:
    """``_pair`` of the sides' recorded cases; two sides read by column with the same keys in
    the same, strictly increasing order (two runs of the same plan, recorded in its order)
    pair as they are, with no dict made."""
    first, second = _columns_of(a), _columns_of(b)
    if first is not None and second is not None:
        keys = first.keys
        same = keys is second.keys or keys == second.keys
        if same and all(map(operator.lt, keys, islice(keys, 1, None))):
            return list(keys), [], []
    return _pair(_keyed(a), _keyed(b))


def _keyed(side: Side) -> Mapping[tuple[str, str], Any]:
    """``side``'s recorded cases by key: its ``scores`` (a side read by column: each key's
    last place in its columns, no dict made by case)."""
    if isinstance(side, _RunSide) and side.columns is not None:
        return side.places()
    return side.scores


def _columns_of(side: Side) -> Optional[_Columns]:
    """``side``'s columns when it is read by column and its dicts by case were never made."""
    return side.columns if isinstance(side, _RunSide) else None


class _Paired:
    """One side's data on the ``paired`` keys, criterion by criterion: each paired case's
    status (``None`` when it has none under that criterion) and its runs' scores (``None``
    likewise), in ``paired`` order."""

    def __init__(self, side: Side, paired: list[tuple[str, str]]) -> None:
        self.columns = _columns_of(side)
        self.size = len(paired)
        self.places: Optional[list[int]] = None
        if isinstance(side, _RunSide) and self.columns is not None:
            # the paired keys' places in the columns: none to look up when they are the same keys
            # in the same order (a run's cases recorded in plan order, nearly always)
            if self.columns.keys != paired:
                self.places = list(map(side.places().__getitem__, paired))
        else:
            self.statuses, self.scores = _in_order(side.statuses, paired), _in_order(side.scores, paired)

    def _taken(self, column: Optional[list[Any]]) -> list[Any]:
        if column is None:
            return [None] * self.size
        return column if self.places is None else list(map(column.__getitem__, self.places))

    def status(self, name: str) -> list[Optional[Status]]:
        if self.columns is not None:
            return self._taken(self.columns.statuses.get(name))
        return [s.get(name) for s in self.statuses]

    def _runs(self, name: str) -> list[Any]:
        if self.columns is not None:
            return self._taken(self.columns.scores.get(name))
        return [s.get(name) for s in self.scores]

    def means(self, name: str) -> list[Optional[float]]:
        """Each paired case's mean score under ``name`` (``_mean``; ``None`` when it has none)."""
        column = self._runs(name)
        if self.columns is None or not self.columns.single:
            return _means(column)
        if set(map(type, column)) == {float}:  # one run a case: its score, a float already
            return column
        return [None if value is None else float(value) for value in column]

    def runs(self, name: str, places: Sequence[int]) -> list[Optional[list[Optional[float]]]]:
        """The runs' scores of the paired cases at ``places``."""
        found = list(map(self._runs(name).__getitem__, places))
        if self.columns is not None and self.columns.single:
            return [None if name not in self.columns.scores else [value] for value in found]
        return found


def _in_order(found: dict[tuple[str, str], Any], paired: list[tuple[str, str]]) -> list[Any]:
    """``found``'s values of the ``paired`` keys, in their order (``{}`` for a key it lacks):
    its values as they are when it holds exactly those keys in that order (nearly always: a
    run records its cases in plan order), without a lookup each."""
    if len(found) == len(paired) and list(found) == paired:
        return list(found.values())
    return [found.get(key) or {} for key in paired]


def _both_scored(
    means_a: list[Optional[float]], means_b: list[Optional[float]]
) -> Optional[tuple[list[float], list[float]]]:
    """The paired cases' mean scores on each side, of the cases scored on both (``None``: no
    such case); the lists as they are when every case is."""
    if means_a and None not in means_a and None not in means_b:
        return cast(list[float], means_a), cast(list[float], means_b)
    both = [(x, y) for x, y in zip(means_a, means_b, strict=True) if x is not None and y is not None]
    return ([x for x, _ in both], [y for _, y in both]) if both else None


def _not_paired(both: Optional[tuple[list[float], list[float]]], lo: float, hi: float) -> Optional[str]:
    """Why a criterion's paired scores (``_both_scored``) cannot be compared, or ``None``."""
    if both is None:
        return "no paired case has a score on both sides"
    if not all(lo <= v <= hi for column in both for v in column):  # (NaN is never within)
        return f"a score is outside its range [{lo}, {hi}] (a hand-edited or foreign file)"
    return None


def compare_sides(
    a: Side,
    b: Side,
    *,
    alpha: float = 0.05,
    margin: Optional[float] = None,
    allow_config_change: bool = False,
    criteria: Optional[Sequence[str]] = None,
) -> CompareReport:
    """Pair ``a`` and ``b`` and compare them (see the module docstring). ``ConfigError``
    when no case pairs, or when a criterion's configuration changed and that is not allowed."""
    with gc_paused():  # per-case lists over 100k pairs: no cycles to find
        return _compare_sides(a, b, alpha, margin, allow_config_change, criteria)


def _compare_sides(
    a: Side,
    b: Side,
    alpha: float,
    margin: Optional[float],
    allow_config_change: bool,
    criteria: Optional[Sequence[str]],
) -> CompareReport:
    from .._stats import compare_case_runs, compare_runs, derive_seed, smallest_case_p

    paired, only_a, only_b = _pairs(a, b)
    if not paired:
        raise ConfigError(
            f"no case of {a.source} pairs with one of {b.source} on (eval_set_id, eval_id); "
            "compare runs of the same eval sets"
        )
    shared = [n for n in a.criteria if n in b.criteria]
    if criteria:
        unknown = [n for n in criteria if n not in shared]
        if unknown:
            raise ConfigError(
                f"--criteria: {', '.join(map(repr, unknown))} is not in both runs; "
                f"criteria in both: {', '.join(shared) or '(none)'}"
            )
        shared = list(criteria)
    changes = _config_changes(a, b, shared)
    if changes and not allow_config_change:
        raise ConfigError(
            "the runs applied a criterion differently, so their scores are not comparable: "
            + "; ".join(changes)
            + ". Compare runs with the same configuration, or pass --allow-config-change"
        )
    skipped: dict[str, str] = {}
    # column by column: each side's per-case data in ``paired`` order, looked up once
    side_a, side_b = _Paired(a, paired), _Paired(b, paired)
    scores: dict[str, tuple[list[float], list[float]]] = {}
    directions: dict[str, bool] = {}
    bounds: dict[str, tuple[float, float]] = {}
    for name in shared:
        config = a.criteria[name]
        if config.get("informational") or b.criteria[name].get("informational"):
            skipped[name] = "informational (a measurement, never pass/fail)"
            continue
        lo, hi = config.get("min_score"), config.get("max_score")
        if lo is None or hi is None:
            skipped[name] = "its score range is unbounded"
            continue
        both = _both_scored(side_a.means(name), side_b.means(name))
        unpaired = _not_paired(both, lo, hi)
        if both is None or unpaired is not None:
            skipped[name] = unpaired or ""
            continue
        scores[name] = both
        directions[name] = bool(config.get("higher_is_better", True))
        bounds[name] = (float(lo), float(hi))
    comparison = None
    if scores:
        comparison = compare_runs(
            scores,
            bounds=bounds,
            higher_is_better=directions,
            alpha=alpha,
            non_inferiority_margin=margin,
            seeds={n: derive_seed(a.source, b.source, n) for n in scores},
        )
    flips: list[CaseFlip] = []
    for name in shared:
        if name in skipped:
            continue
        column_a, column_b = side_a.status(name), side_b.status(name)
        # the paired cases with a status under ``name`` on both sides, by their place in ``paired``
        places: Sequence[int]
        if None in column_a or None in column_b:
            places = [
                i
                for i, (x, y) in enumerate(zip(column_a, column_b, strict=True))
                if x is not None and y is not None
            ]
            flipped = not all(column_a[i] is column_b[i] for i in places)
        else:  # every one (in C loops)
            places = range(len(column_a))
            flipped = not all(map(operator.is_, column_a, column_b))
        if not flipped:
            continue  # no verdict flipped: the per-case tests would only serve flips
        raw_a, raw_b = side_a.runs(name, places), side_b.runs(name, places)
        # how many runs of each case have a score (the runs themselves only for the cases tested)
        scored_a = [0 if v is None else len(v) - v.count(None) for v in raw_a]
        scored_b = [0 if v is None else len(v) - v.count(None) for v in raw_b]
        changes_by_place: dict[int, Any] = {}
        testable = [i for i in range(len(places)) if scored_a[i] and scored_b[i]]
        sizes = {(scored_a[i], scored_b[i]) for i in testable}
        if testable and not any(smallest_case_p(size_a, size_b) < CASE_FDR for size_a, size_b in sizes):
            # No case can be flagged (too few runs): only the flipped cases' deltas are shown,
            # and with no case tested there is no correction for the others to take part in.
            testable = [i for i in testable if column_a[places[i]] is not column_b[places[i]]]
        if testable:
            found = compare_case_runs(
                [_scored(raw_a[i]) for i in testable],
                [_scored(raw_b[i]) for i in testable],
                fdr=CASE_FDR,
                seed=derive_seed(a.source, b.source, name),
            )
            changes_by_place = {places[testable[c.index]]: c for c in found}
        for place in places:
            before, after = column_a[place], column_b[place]
            if before is after or before is None or after is None:  # (never None: ``places``)
                continue
            key = paired[place]
            change = changes_by_place.get(place)
            tested = change if change is not None and change.p_value is not None else None
            flips.append(
                CaseFlip(
                    key[0],
                    key[1],
                    name,
                    before,
                    after,
                    change.delta if change is not None else None,
                    tested.flagged if tested is not None else None,
                    tested.q_value if tested is not None else None,
                )
            )
    flips.sort(key=lambda f: (not f.regression, f.eval_set_id, f.case_id, f.criterion))
    return CompareReport(a, b, paired, only_a, only_b, comparison, flips, changes, skipped)


def render_markdown(report: CompareReport, *, limit: int = 50) -> str:
    """The comparison as Markdown, for a pull-request comment."""
    lines = [
        f"### agenteval compare: {report.b.source} vs {report.a.source}",
        "",
        f"{len(report.paired)} paired case(s)"
        + (f"; {len(report.only_a)} only in the baseline" if report.only_a else "")
        + (f"; {len(report.only_b)} only in the candidate" if report.only_b else ""),
        "",
    ]
    if report.comparison is not None:
        lines += [
            "| criterion | baseline | candidate | Δ | interval | p (Holm) | verdict |",
            "|---|---|---|---|---|---|---|",
        ]
        for item in report.comparison.criteria:
            lines.append(
                f"| `{item.criterion}` | {_num(item.mean_a)} | {_num(item.mean_b)} | {item.delta:+.3f} | "
                f"[{item.interval.low:+.3f}, {item.interval.high:+.3f}] | {item.p_holm:.3g} | "
                f"**{item.status.value}** |"
            )
    for name, why in report.skipped.items():
        lines.append(f"\n`{name}` not compared: {why}")
    regressions = [f for f in report.flips if f.regression]
    if report.flips:
        lines += ["", f"**Verdict flips** ({len(regressions)} regression(s) first):", ""]
        for flip in report.flips[:limit]:
            lines.append(
                f"- `{flip.eval_set_id}/{flip.case_id}` · `{flip.criterion}`: "
                f"{flip.status_a.value} → {flip.status_b.value}"
            )
        if len(report.flips) > limit:
            lines.append(f"- … and {len(report.flips) - limit} more")
    else:
        lines += ["", "No case changed its verdict."]
    return "\n".join(lines) + "\n"


def _num(value: Optional[float]) -> str:
    return "—" if value is None else f"{value:.3f}"
