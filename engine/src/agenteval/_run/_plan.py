"""The plan stage: every input loaded, checked and resolved before any work.

A ``Plan`` says which cases of which eval sets run under which criteria, where their
actual turns come from (the agent, or recorded ``--actual`` files and run folders), and
how many runs each case gets. Anything wrong with an input is an ``AgentEvalError`` here,
before the agent or a judge is called.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from .._agents import Agent, AgentFailure, prepare_user_simulators
from .._criterion import Criterion
from .._judging import JudgeService
from .._loading import (
    EvalConfig,
    LoadedEvalSet,
    config_from_data,
    expand_targets,
    load_config,
    read_eval_file,
    with_efficiency,
)
from .._loading._env import load_env_files
from .._loading._eval_files import AGENT_ERROR_KEY, check_unique_ids
from .._loading._eval_set_warnings import eval_set_warnings
from .._loading._formats import FormatReader, choose_format, read_in_format
from .._loading._statistics import StatisticsConfig
from .._local_criteria import LocalCriteria, is_local_reference, local_source
from .._registry import Registry
from .._resolve import ResolvedCriterion, resolve_criteria
from ..errors import AgentEvalError, ConfigError, DataError
from ..models import EvalCase, EvalSet, Invocation
from ..runs import CriterionEntry, EvalSetEntry, InputFile, RecordedRun
from ._files import EvalFiles
from ._settings import RunOptions, merge_settings

__all__ = [
    "AGENT_ERROR_KEY",
    "CriteriaSpec",
    "Plan",
    "PlannedSet",
    "RecordedActuals",
    "RecordedTurns",
    "as_config",
    "auto_looks",
    "plan_eval_sets",
    "plan_paths",
]

CriteriaSpec = Union[None, EvalConfig, Mapping[str, Any], Sequence[Union[str, Criterion]]]


#: One run's outcome for a case: its actual turns, or why the agent produced none.
Outcome = Union[Sequence[Invocation], AgentFailure]


def as_config(criteria: CriteriaSpec) -> EvalConfig:
    """The embedding API's ``criteria`` argument as an ``EvalConfig``."""
    if criteria is None:
        return EvalConfig.default()
    if isinstance(criteria, EvalConfig):
        return criteria
    if isinstance(criteria, Mapping):
        return config_from_data({"criteria": dict(criteria)})
    items = [c if isinstance(c, Criterion) else Criterion(name=c) for c in criteria]
    return EvalConfig(criteria=items)


def criteria_for(
    config: EvalConfig, names: Optional[Sequence[str]], registry: Union[Registry, LocalCriteria]
) -> list[Criterion]:
    """``--criteria`` picks names; configured thresholds and params are kept.

    Local criteria (``file.py:fn``, ``package.module:fn``, and ADK ``custom_metrics``) are
    imported now and added to ``registry`` (a ``LocalCriteria``); an import problem is a
    ``ConfigError`` naming the file and the error, before any work."""
    chosen = list(config.criteria) if not names else [config.get(n) or Criterion(name=n) for n in names]
    where = str(config.source) if config.source else "<config>"
    config_dir = config.source.resolve().parent if config.source else None
    for criterion in chosen:
        custom = config.custom_metrics.get(criterion.name)
        if custom is None and not is_local_reference(criterion.name):
            continue
        if not isinstance(registry, LocalCriteria):
            raise ConfigError(f"criterion {criterion.name!r} is local code, which this caller cannot load")
        if custom is not None:
            registry.add_custom_metric(criterion.name, custom, criterion.params, config_dir, where)
        else:
            origin = where if config.get(criterion.name) else "--criteria"
            registry.add_function(criterion.name, config_dir, origin)
    return chosen


def criterion_entry(resolved: ResolvedCriterion) -> CriterionEntry:
    """What the run folder records about a resolved criterion."""
    evaluator = resolved.evaluator
    params = getattr(evaluator, "params", None)
    info = resolved.info
    return CriterionEntry(
        name=resolved.name,
        distribution=resolved.plugin.distribution,
        version=resolved.plugin.version,
        entry_point=resolved.plugin.entry_point,
        threshold=resolved.threshold,
        params=params.model_dump(mode="json") if params is not None else {},
        higher_is_better=info.higher_is_better,
        informational=info.informational,
        min_score=info.min_score,
        max_score=info.max_score,
        requires_judge=info.requires_judge,
        shows_trajectory=info.shows_trajectory,
        judge_models=list(evaluator.judge_models()) if info.requires_judge else [],
        describe=local_source(evaluator),
    )


@dataclass(frozen=True)
class PlannedSet:
    """One eval set of the run: its selected cases and the criteria applied to them.

    The cases themselves are read when needed (``cases``, ``case``): from the eval set
    given as an object (``held``), or from the file through the run's ``EvalFiles``, which
    keeps only what fits its memory budget."""

    index: int
    eval_set_id: str
    case_ids: tuple[str, ...]
    criteria: tuple[ResolvedCriterion, ...]
    entries: tuple[CriterionEntry, ...]
    source: Optional[Path] = None
    sha256: Optional[str] = None
    config: Optional[EvalConfig] = None
    #: Makes the user simulator of each conversation scenario (``--agent`` runs), else None.
    user_simulator: Optional[Any] = None
    #: The eval set, when it was given as an object rather than read from ``source``.
    held: Optional[EvalSet] = field(default=None, repr=False, compare=False)
    files: Optional[EvalFiles] = field(default=None, repr=False, compare=False)

    @classmethod
    def of(
        cls,
        index: int,
        eval_set: EvalSet,
        cases: Sequence[EvalCase],
        criteria: Sequence[ResolvedCriterion],
        entries: Sequence[CriterionEntry],
        **more: Any,
    ) -> PlannedSet:
        """A planned set whose eval set is held in memory (the embedding API, tests)."""
        return cls(
            index=index,
            eval_set_id=eval_set.eval_set_id,
            case_ids=tuple(case.eval_id for case in cases),
            criteria=tuple(criteria),
            entries=tuple(entries),
            held=eval_set,
            **more,
        )

    @property
    def scored(self) -> tuple[tuple[ResolvedCriterion, CriterionEntry], ...]:
        return tuple(zip(self.criteria, self.entries, strict=True))

    @property
    def eval_set(self) -> EvalSet:
        if self.held is not None:
            return self.held
        assert self.files is not None and self.source is not None
        return self.files.get(self.source).eval_set

    @functools.cached_property
    def _held_by_id(self) -> dict[str, EvalCase]:
        assert self.held is not None
        return {case.eval_id: case for case in self.held.eval_cases}

    def case(self, case_id: str) -> EvalCase:
        """One selected case, by id."""
        if self.held is not None:
            return self._held_by_id[case_id]
        assert self.files is not None and self.source is not None
        found = self.files.case(self.source, case_id)
        if found is None:
            raise DataError(f"case {case_id!r} is no longer in the file", source=str(self.source))
        return found

    @property
    def cases(self) -> tuple[EvalCase, ...]:
        """The selected cases, in run order (read from the file when it is not in memory)."""
        return tuple(self.case(case_id) for case_id in self.case_ids)

    @functools.cached_property
    def entry(self) -> EvalSetEntry:
        """What the run folder's manifest records of this set (made once: it lists every case)."""
        return EvalSetEntry(
            index=self.index,
            eval_set_id=self.eval_set_id,
            path=str(self.source) if self.source is not None else None,
            sha256=self.sha256,
            case_ids=list(self.case_ids),
            config=str(self.config.source) if self.config is not None and self.config.source else None,
            criteria=list(self.entries),
        )


@dataclass(frozen=True)
class _InFile:
    """A recorded run of a case that stays in its ``--actual`` file until it is needed."""

    path: Path
    case_id: str


class RecordedActuals:
    """The agent's turns recorded earlier, found by case id in O(1).

    Each ``--actual`` file is one run of the agent; a run folder contributes one run per
    run index. When several sources hold a case, each is a run; sources of the case's own
    eval set win over others. Turns from files are read from the file when a case needs
    them (``EvalFiles`` keeps what fits its budget), so a large run does not hold them all.
    """

    def __init__(self, files: Optional[EvalFiles] = None) -> None:
        self.eval_files = files if files is not None else EvalFiles()
        self._by_id: dict[str, list[tuple[str, Union[Outcome, _InFile]]]] = {}
        self.files: list[InputFile] = []
        self.warnings: list[str] = []
        self._described: list[str] = []
        #: ``--actual`` files in another data format, read once the selected cases are known.
        self.in_format: list[tuple[Path, type[FormatReader]]] = []

    def add_file(self, path: Path) -> None:
        loaded = self.eval_files.read(path)
        self.files.append(InputFile(path=str(loaded.source), sha256=loaded.sha256))
        self._described.append(str(loaded.source))
        self.warnings.extend(loaded.warnings)
        set_id = loaded.eval_set.eval_set_id
        for case in loaded.eval_set.eval_cases:
            _outcome_of(case, str(loaded.source))  # a scenario is an error now, not mid-run
            self._by_id.setdefault(case.eval_id, []).append((set_id, _InFile(Path(path), case.eval_id)))

    def add_in_format(self, path: Path, reader: type[FormatReader], cases: Sequence[EvalCase]) -> None:
        """A file in another data format (``agenteval.formats``), read now for ``cases``; its
        turns are held in memory."""
        eval_set, digest, warnings = read_in_format(reader, path, cases)
        self.warnings.extend(warnings)
        self.files.append(InputFile(path=str(path), sha256=digest))
        self._described.append(str(path))
        for case in eval_set.eval_cases:
            outcome = _outcome_of(case, str(path))
            self._by_id.setdefault(case.eval_id, []).append((eval_set.eval_set_id, outcome))

    def add_run(self, run: RecordedRun) -> None:
        self.files.append(InputFile(path=str(run.folder)))
        self._described.append(str(run.folder))
        for record in run.records():
            if record.actual is None:
                continue
            actual = record.actual
            outcome: Outcome
            if actual.error is not None:
                outcome = AgentFailure(
                    actual.error.message, actual.error_code or "agent_error", actual.error.traceback
                )
            else:
                outcome = actual.invocations
            self._by_id.setdefault(record.case_id, []).append((record.eval_set_id, outcome))

    def runs_for(self, eval_set_id: str, case_id: str, where: str) -> list[Union[Outcome, _InFile]]:
        """The case's actual conversations (or where they are), one per source that holds it."""
        matches = self._by_id.get(case_id)
        if not matches:
            files = ", ".join(self._described)
            raise DataError(
                f"case {case_id!r} has no actual invocations: no case with that eval_id in "
                f"{files}. Add it there (an eval set whose cases carry the same eval_ids), or "
                f"select only the cases you have, e.g. {where}:<case_id>",
                source=where,
            )
        same_set = [outcome for set_id, outcome in matches if set_id == eval_set_id]
        return same_set or [outcome for _, outcome in matches]

    def outcome(self, ref: Union[Outcome, _InFile]) -> Outcome:
        """A recorded run's turns, read from its file when they are not in memory."""
        if not isinstance(ref, _InFile):
            return ref
        case = self.eval_files.case(ref.path, ref.case_id)
        if case is None:
            raise DataError(f"case {ref.case_id!r} is no longer in the file", source=str(ref.path))
        return _outcome_of(case, str(ref.path))


class RecordedTurns(Mapping[tuple[int, str], Sequence[Outcome]]):
    """The recorded runs of each planned case, by (eval set index, case id); each case's
    turns are read when it is looked up (see ``RecordedActuals``)."""

    def __init__(
        self,
        refs: Mapping[tuple[int, str], Sequence[Union[Outcome, _InFile]]],
        actuals: Optional[RecordedActuals] = None,
    ) -> None:
        self._refs = refs
        self._actuals = actuals

    def _outcome(self, ref: Union[Outcome, _InFile]) -> Outcome:
        # without recorded actuals no ref is in a file
        return self._actuals.outcome(ref) if self._actuals is not None else ref  # type: ignore[return-value]

    def __getitem__(self, key: tuple[int, str]) -> Sequence[Outcome]:
        return [self._outcome(ref) for ref in self._refs[key]]

    def run(self, key: tuple[int, str], run_index: int) -> Optional[Outcome]:
        """The case's turns of one run (1-based), or ``None`` when no source has that run."""
        refs = self._refs.get(key, ())
        return self._outcome(refs[run_index - 1]) if run_index <= len(refs) else None

    def __iter__(self) -> Iterator[tuple[int, str]]:
        return iter(self._refs)

    def __len__(self) -> int:
        return len(self._refs)

    def runs(self, key: tuple[int, str]) -> int:
        """How many recorded runs the case has (nothing is read)."""
        return len(self._refs.get(key, ()))


def _outcome_of(case: EvalCase, where: str) -> Outcome:
    error = (case.model_extra or {}).get(AGENT_ERROR_KEY)
    if isinstance(error, dict):
        return AgentFailure(str(error.get("message", "")), str(error.get("code") or "agent_error"))
    if case.conversation is None:
        raise DataError(
            f"eval_cases[{case.eval_id!r}] holds a conversation scenario, "
            "not the agent's actual conversation",
            source=where,
        )
    return case.conversation


@dataclass(frozen=True)
class Plan:
    """Everything a run will do, decided before it starts (see the module docstring)."""

    sets: tuple[PlannedSet, ...]
    #: Recorded runs per (eval set index, case id), when the turns come from files.
    recorded: Mapping[tuple[int, str], Sequence[Outcome]] = field(default_factory=dict)
    actual_files: tuple[InputFile, ...] = ()
    agent: Optional[Agent] = None
    agent_target: Optional[str] = None
    #: Runs per case; with ``looks``, the most a case may get.
    num_runs: int = 1
    warnings: tuple[str, ...] = ()
    #: The eval files the cases are read from, when they came from files.
    files: Optional[EvalFiles] = field(default=None, compare=False)
    #: ``--num-runs auto``: the runs at which each case's verdict is checked (``()``: every
    #: case gets ``num_runs``), and ``--run-budget``, the most agent runs of the whole run.
    looks: tuple[int, ...] = ()
    run_budget: Optional[int] = None
    #: The configs' ``statistics`` block (one for the whole run), if any.
    statistics: Optional[StatisticsConfig] = None
    #: ``--shard I/N``: which slice of a whole plan this one is (``_shards.ShardInfo``).
    shard: Optional[Any] = None
    #: Judge model -> price per million input / output tokens (``statistics.judge_prices``).
    judge_prices: Mapping[str, Mapping[str, float]] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.recorded, RecordedTurns):
            object.__setattr__(self, "recorded", RecordedTurns(self.recorded))

    @property
    def case_count(self) -> int:
        return sum(len(s.case_ids) for s in self.sets)

    @property
    def auto_runs(self) -> bool:
        """Whether cases get runs look by look (``--num-runs auto``)."""
        return bool(self.looks)

    def case_confidence(self, confidence: Optional[float]) -> Optional[float]:
        """The level of each case's verdict: ``confidence``, or under ``--num-runs auto``
        each look's share of it (``agenteval._verdicts.look_confidence``)."""
        if confidence is None or not self.looks:
            return confidence
        from .._verdicts import look_confidence

        return look_confidence(confidence, len(self.looks))

    def fingerprint(self) -> str:
        """A hash of everything that decides a case's result; ``--resume`` compares it."""
        material: dict[str, Any] = {
            "sets": [
                {
                    "id": s.eval_set_id,
                    "path": str(s.source) if s.source else None,
                    "sha256": s.sha256 or _content_hash(s.cases),
                    "cases": list(s.case_ids),
                    # the calibration gate decides verdicts, which are read again from the
                    # manifest, not results: a resume may use newer cards
                    "criteria": [e.model_dump(mode="json", exclude={"calibration"}) for e in s.entries],
                }
                for s in self.sets
            ],
            "actual": [f.model_dump(mode="json") for f in self.actual_files],
            "agent": self.agent_target,
            "num_runs": self.num_runs,
        }
        if self.looks:  # only then, so fixed runs keep the fingerprints they always had
            material["looks"] = list(self.looks)
            material["run_budget"] = self.run_budget
        if self.shard is not None:  # two shards' slices may hold the same (say, no) cases
            material["shard"] = [self.shard.index, self.shard.count, self.shard.plan_fingerprint]
        blob = json.dumps(material, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


def _content_hash(cases: Sequence[EvalCase]) -> str:
    digest = hashlib.sha256()
    for case in cases:
        digest.update(case.model_dump_json().encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class _Problems:
    """Input problems gathered across files, so one run reports them all (up to ``CAP``)."""

    CAP = 20

    def __init__(self) -> None:
        self.found: list[AgentEvalError] = []

    @contextlib.contextmanager
    def collect(self) -> Iterator[None]:
        try:
            yield
        except AgentEvalError as exc:
            if str(exc) not in {str(found) for found in self.found}:  # one file read twice: said once
                self.found.append(exc)

    def raise_any(self) -> None:
        """Raise the one problem as it is, or every problem in one error of the first's kind."""
        if not self.found:
            return
        if len(self.found) == 1:
            raise self.found[0]
        shown = self.found[: self.CAP]
        lines = [f"{len(self.found)} problems stop this run (fix them all, then run again):"]
        lines += [f"  - {problem}" for problem in shown]
        if len(self.found) > len(shown):
            lines.append(f"  ... and {len(self.found) - len(shown)} more")
        raise type(self.found[0])("\n".join(lines))


def _read_actual_sources(
    paths: Sequence[Union[str, Path]], problems: _Problems, files: EvalFiles, format_in: Optional[str] = None
) -> RecordedActuals:
    """The ``--actual`` sources: run folders and ADK files now; files in another data format
    wait in ``in_format`` until the selected cases are known (``_read_in_format``)."""
    actuals = RecordedActuals(files)
    for raw in paths:
        path = Path(raw)
        with problems.collect():
            if path.is_dir():
                actuals.add_run(RecordedRun.open(path))
                continue
            reader = choose_format(path, format_in)
            if reader is None:
                actuals.add_file(path)
            else:
                actuals.in_format.append((path, reader))
    return actuals


def _read_in_format(actuals: RecordedActuals, sets: Sequence[PlannedSet]) -> list[str]:
    """Read the ``--actual`` files in another data format for the selected cases of ``sets``;
    their readers' warnings."""
    if not actuals.in_format:
        return []
    before = len(actuals.warnings)
    cases = list({case.eval_id: case for planned in sets for case in planned.cases}.values())
    problems = _Problems()
    for path, reader in actuals.in_format:
        with problems.collect():
            actuals.add_in_format(path, reader, cases)
    problems.raise_any()
    return actuals.warnings[before:]


def _select(loaded: LoadedEvalSet, case_ids: Optional[Sequence[str]], where: str) -> tuple[str, ...]:
    """The ids of the selected cases, in file order."""
    cases = loaded.eval_set.eval_cases
    if case_ids is None:
        return tuple(c.eval_id for c in cases)
    known = {c.eval_id for c in cases}
    unknown = [i for i in case_ids if i not in known]
    if unknown:
        msg = (
            f"no case with eval_id {', '.join(map(repr, unknown))} in this file; "
            f"its cases are: {', '.join(sorted(known)) or '(none)'}"
        )
        raise DataError(msg, source=where)
    wanted = set(case_ids)
    return tuple(c.eval_id for c in cases if c.eval_id in wanted)


def plan_paths(
    paths: Sequence[str],
    actual_paths: Sequence[Union[str, Path]] = (),
    *,
    registry: Registry,
    judge: JudgeService,
    criteria_names: Optional[Sequence[str]] = None,
    config_path: Optional[Union[str, Path]] = None,
    config: Optional[EvalConfig] = None,
    agent: Optional[Agent] = None,
    agent_target: Optional[str] = None,
    num_runs: Union[int, str, None] = 1,
    efficiency: bool = False,
    run_budget: Optional[int] = None,
    format_in: Optional[str] = None,
) -> Plan:
    """Plan a run from command-line style inputs (see ``agenteval run --help``).

    ``config`` (or the file ``config_path``) applies to every eval file; without either,
    each file uses the ``test_config.json`` beside it, else ADK's defaults. ``efficiency``
    appends ADK's four informational efficiency criteria to every config that lacks them.
    ``num_runs`` ``"auto"`` (with ``agent``) gives each case runs look by look
    (``AUTO_LOOKS``), at most ``run_budget`` agent runs in all. ``None`` for either: the
    configs' ``statistics`` block decides (its ``num_runs`` only when the agent runs), else
    one run. ``format_in`` names the data format of every ``--actual`` file (default: each
    file's content decides, ``agenteval._loading._formats``).
    """
    _check_runs(num_runs, run_budget, agent)
    warnings: list[str] = []
    targets = expand_targets(list(paths))
    load_env_files((target.path.parent for target in targets), warn=warnings.append)
    shared = config if config is not None else load_config(config_path) if config_path else None
    problems = _Problems()
    files = EvalFiles()
    actuals = None if agent is not None else _read_actual_sources(actual_paths, problems, files, format_in)
    if actuals is not None:
        warnings.extend(actuals.warnings)
    configs: dict[Optional[Path], Optional[EvalConfig]] = {}
    criteria_source = LocalCriteria(registry)
    staged = []
    requests: list[tuple[Criterion, str]] = []
    set_config: Optional[EvalConfig]
    for target in targets:
        with problems.collect():
            loaded = files.read(target.path)
            warnings.extend(loaded.warnings)
            warnings.extend(eval_set_warnings(target.path, loaded.eval_set))
            case_ids = _select(loaded, target.case_ids, str(target.path))
            set_id = loaded.eval_set.eval_set_id
            del loaded  # the files keep what fits their budget; the rest is read again when run
            if shared is not None:
                set_config = shared
            else:
                config_file = target.beside_config()
                if config_file not in configs:
                    configs[config_file] = None  # a broken config is reported once
                    configs[config_file] = load_config(config_file) if config_file else EvalConfig.default()
                set_config = configs[config_file]
                if set_config is None:
                    continue
            warnings.extend(set_config.warnings)
            if efficiency:
                set_config = with_efficiency(set_config)
            where = str(set_config.source) if set_config.source else "default criteria"
            chosen = criteria_for(set_config, criteria_names, criteria_source)
            requests.extend((c, where if set_config.get(c.name) else "--criteria") for c in chosen)
            staged.append((target, set_id, case_ids, set_config, len(chosen)))
    problems.raise_any()
    statistics = _one_statistics([config for _, _, _, config, _ in staged])
    runs = merge_settings(
        RunOptions(num_runs=num_runs, run_budget=run_budget), statistics, runs_agent=agent is not None
    )
    num_runs, run_budget = runs.num_runs, runs.run_budget
    _check_runs(num_runs, run_budget, agent)
    auto = num_runs == "auto"
    resolved = _resolve_each(requests, [count for *_, count in staged], criteria_source, warnings, judge)
    if agent is not None:
        agent.check_ready()
    sets = []
    position = 0
    for index, (target, set_id, case_ids, set_config, count) in enumerate(staged):
        criteria = tuple(resolved[position : position + count])
        position += count
        sets.append(
            PlannedSet(
                index=index,
                eval_set_id=set_id,
                case_ids=case_ids,
                criteria=criteria,
                entries=tuple(criterion_entry(c) for c in criteria),
                source=target.path,
                sha256=files.sha256(target.path),
                config=set_config,
                files=files,
            )
        )
    recorded: Mapping[tuple[int, str], Sequence[Outcome]] = {}
    if actuals is not None:
        warnings.extend(_read_in_format(actuals, sets))
        refs = {}
        for planned in sets:
            for case_id in planned.case_ids:
                refs[(planned.index, case_id)] = actuals.runs_for(
                    planned.eval_set_id, case_id, str(planned.source)
                )
        num_runs = max((len(r) for r in refs.values()), default=1)
        recorded = RecordedTurns(refs, actuals)
    files.schedule(_uses(sets, refs if actuals is not None else {}))
    looks: tuple[int, ...] = ()
    if auto:
        looks = auto_looks(sum(len(s.case_ids) for s in sets), run_budget)
        num_runs = looks[-1]
    if agent is not None:
        groups = [(s.config.user_simulator if s.config else None, s.cases) for s in sets]
        factories = prepare_user_simulators(groups, judge)
        sets = [_with(s, user_simulator=f) for s, f in zip(sets, factories, strict=True)]
    return Plan(
        sets=tuple(sets),
        recorded=recorded,
        actual_files=tuple(actuals.files) if actuals is not None else (),
        agent=agent,
        agent_target=agent_target,
        num_runs=num_runs,  # type: ignore[arg-type]  # an int by now: "auto" became looks[-1]
        warnings=tuple(dict.fromkeys(warnings)),
        files=files,
        looks=looks,
        run_budget=run_budget if auto else None,
        statistics=statistics,
    )


def _check_runs(num_runs: Union[int, str, None], run_budget: Optional[int], agent: Optional[Agent]) -> None:
    """``ConfigError`` for a ``num_runs`` / ``run_budget`` pair that cannot be run."""
    if num_runs is None:  # the config may still say auto
        return
    auto = num_runs == "auto"
    if not auto and (isinstance(num_runs, bool) or not isinstance(num_runs, int) or num_runs < 1):
        raise ConfigError(f"--num-runs must be a whole number of at least 1, or auto, not {num_runs!r}")
    if run_budget is not None and not auto:
        raise ConfigError("--run-budget caps the runs of --num-runs auto; give --num-runs auto as well")
    if auto and agent is None:
        raise ConfigError("--num-runs auto runs the agent until each case is decided; it needs --agent")


def _one_statistics(configs: Sequence[EvalConfig]) -> Optional[StatisticsConfig]:
    """The run's ``statistics`` block: the one its configs share (``ConfigError`` naming two
    configs whose blocks differ, since the settings are the whole run's)."""
    found: dict[StatisticsConfig, str] = {}
    for config in configs:
        if config.statistics is not None:
            found.setdefault(config.statistics, str(config.source or "<config>"))
    if len(found) > 1:
        first, second = list(found.values())[:2]
        raise ConfigError(
            f"the configs {first} and {second} have different statistics blocks, but these settings are "
            "the whole run's; make the blocks equal, or give one --config for the run"
        )
    return next(iter(found), None)


def auto_looks(cases: int, run_budget: Optional[int]) -> tuple[int, ...]:
    """The looks of ``--num-runs auto`` that ``run_budget`` leaves room for (every case's
    first look, and one case going on to each later one); ``ConfigError`` when the budget
    cannot give every case its first look."""
    from .._verdicts import AUTO_LOOKS

    if run_budget is None:
        return AUTO_LOOKS
    first = AUTO_LOOKS[0]
    if run_budget < first * max(cases, 1):
        raise ConfigError(
            f"--run-budget {run_budget} is too small: --num-runs auto starts every case with {first} "
            f"runs, so {cases} case(s) need at least {first * max(cases, 1)}; raise the budget or select "
            "fewer cases"
        )
    spare = run_budget - first * max(cases - 1, 0)
    return tuple(look for look in AUTO_LOOKS if look <= spare)


def _uses(
    sets: Sequence[PlannedSet], refs: Mapping[tuple[int, str], Sequence[Union[Outcome, _InFile]]]
) -> dict[Path, list[int]]:
    """Which eval sets use each file: its own file, and the ``--actual`` files of its cases."""
    uses: dict[Path, set[int]] = {}
    for planned in sets:
        if planned.source is not None:
            uses.setdefault(Path(planned.source), set()).add(planned.index)
    for (index, _), found in refs.items():
        for ref in found:
            if isinstance(ref, _InFile):
                uses.setdefault(ref.path, set()).add(index)
    return {path: sorted(indices) for path, indices in uses.items()}


def _with(planned: PlannedSet, **changes: Any) -> PlannedSet:
    import dataclasses

    return dataclasses.replace(planned, **changes)


def preflight_judges(resolved: Iterable[ResolvedCriterion], judge: JudgeService) -> None:
    """Resolve and check every judge model the criteria will call, before any work."""
    specs = [spec for r in resolved if r.info.requires_judge for spec in r.evaluator.judge_models()]
    if specs:
        judge.preflight(specs)


def _resolve_each(
    requests: Sequence[tuple[Criterion, str]],
    counts: Sequence[int],
    source: LocalCriteria,
    warnings: list[str],
    judge: JudgeService,
) -> list[ResolvedCriterion]:
    """The criteria of each eval file (``counts`` requests each, in order) resolved and their
    judges checked: the problems of every config reported together (each once), a judge's
    problem naming the config that asked for it."""
    problems = _Problems()
    resolved: list[ResolvedCriterion] = []
    evaluators: dict = {}
    checked: dict[str, Optional[AgentEvalError]] = {}  # judge model -> its preflight's problem
    start = 0
    for count in counts:
        group = requests[start : start + count]
        start += count
        with problems.collect():
            done = resolve_criteria(group, source, warnings, cache=evaluators)
            for item, (_, where) in zip(done, group, strict=True):
                for spec in item.evaluator.judge_models() if item.info.requires_judge else ():
                    if spec not in checked:
                        try:
                            judge.preflight([spec])
                            checked[spec] = None
                        except AgentEvalError as exc:
                            checked[spec] = exc
                    failure = checked[spec]
                    if failure is not None:
                        raise type(failure)(failure.message, source=failure.source or where)
            warnings.extend(_defaulted(group, done))
            resolved.extend(done)
    problems.raise_any()
    return resolved


def _defaulted(group: Sequence[tuple[Criterion, str]], done: Sequence[ResolvedCriterion]) -> list[str]:
    """A warning for each criterion a config names as an object without a threshold, which
    runs with its default (ADK refuses such a config at load); informational ones take none."""
    return [
        f'{where}: criteria.{item.name} has no "threshold": agenteval applies its default, '
        f"{item.threshold:g}; ADK refuses a criterion object without one at load. Add "
        f'"threshold": {item.threshold:g} to run this config in ADK too'
        for (criterion, where), item in zip(group, done, strict=True)
        if criterion.threshold is None
        and item.threshold is not None
        and not item.info.informational
        and where not in ("--criteria", "default criteria")
    ]


def plan_eval_sets(
    eval_sets: Sequence[Union[EvalSet, str, Path]],
    actual: Any,
    criteria: CriteriaSpec,
    *,
    registry: Registry,
    judge: Optional[JudgeService],
) -> Plan:
    """Plan the embedding API's ``evaluate``: eval sets (objects or paths), actual turns
    (an ``EvalSet``, its path or a file in another data format, or a mapping
    ``eval_id -> [Invocation]``)."""
    warnings: list[str] = []
    loaded: list[LoadedEvalSet] = []
    for item in eval_sets:
        if isinstance(item, EvalSet):
            check_unique_ids(item, f"<eval set {item.eval_set_id!r}>")
            loaded.append(LoadedEvalSet(item, None, "evalset"))
        else:
            loaded.append(read_eval_file(Path(item)))
            warnings.extend(loaded[-1].warnings)
    config = as_config(criteria)
    actual_map = _actual_map(actual, [c for item in loaded for c in item.eval_set.eval_cases], warnings)
    criteria_source = LocalCriteria(registry)
    chosen = criteria_for(config, None, criteria_source)
    resolved = resolve_criteria([(c, "criteria") for c in chosen], criteria_source, warnings)
    if judge is not None:
        preflight_judges(resolved, judge)
    entries = tuple(criterion_entry(c) for c in resolved)
    sets = []
    recorded: dict[tuple[int, str], Sequence[Outcome]] = {}
    for index, loaded_set in enumerate(loaded):
        cases = tuple(loaded_set.eval_set.eval_cases)
        missing = [c.eval_id for c in cases if c.eval_id not in actual_map]
        if missing:
            raise DataError(f"no actual invocations for case(s) {', '.join(map(repr, missing))}")
        for case in cases:
            recorded[(index, case.eval_id)] = [actual_map[case.eval_id]]
        sets.append(
            PlannedSet.of(
                index,
                loaded_set.eval_set,
                cases,
                resolved,
                entries,
                source=loaded_set.source,
                sha256=loaded_set.sha256,
            )
        )
    return Plan(
        sets=tuple(sets),
        recorded=recorded,
        warnings=tuple(dict.fromkeys([*warnings, *config.warnings])),
        statistics=config.statistics,
    )


def _actual_map(actual: Any, cases: Sequence[EvalCase], warnings: list[str]) -> Mapping[str, Outcome]:
    """The actual turns by case id: an ``EvalSet``, a file of it (or in another data format,
    read for ``cases``), or a mapping as given."""
    if isinstance(actual, (str, Path)):
        path = Path(actual)
        reader = choose_format(path)
        if reader is None:
            actual = read_eval_file(path).eval_set
        else:
            actual, _, found = read_in_format(reader, path, cases)
            warnings.extend(found)
    if isinstance(actual, EvalSet):
        scenarios = [
            c.eval_id
            for c in actual.eval_cases
            if c.conversation is None and AGENT_ERROR_KEY not in (c.model_extra or {})
        ]
        if scenarios:
            msg = (
                f"actual case(s) {', '.join(map(repr, scenarios))} hold a conversation scenario, "
                "not the agent's actual conversation"
            )
            raise DataError(msg)
        return {c.eval_id: _outcome_of(c, "<actual>") for c in actual.eval_cases}
    return actual
