"""The two planners, which make a ``Plan`` after checking every input, before any work:
``plan_paths`` from command-line style inputs (eval files, ``--actual`` sources, configs,
``--criteria``, ``--num-runs``), ``plan_eval_sets`` from the embedding API's ``evaluate``
arguments. Anything wrong with an input is an ``AgentEvalError`` here, before the agent or
a judge is called; every input's problems are reported together.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Optional, Union

from .._agents import Agent, prepare_user_simulators
from .._auto_runs import auto_looks, check_num_runs
from .._criterion import Criterion
from .._judging import JudgeService
from .._loading import (
    ADK_FORMAT,
    EvalConfig,
    EvalTarget,
    LoadedEvalSet,
    config_from_data,
    expand_targets,
    load_config,
    read_eval_file,
    with_efficiency,
)
from .._loading._env import load_env_files
from .._loading._eval_files import check_unique_ids
from .._loading._eval_set_warnings import duplicate_invocation_ids, eval_set_warnings
from .._loading._statistics import StatisticsConfig
from .._local_criteria import LocalCriteria, is_local_reference, local_source
from .._registry import Registry
from .._resolve import ResolvedCriterion, resolve_criteria
from ..errors import AgentEvalError, ConfigError, DataError
from ..models import EvalCase, EvalSet
from ..runs import CriterionEntry
from ._case_notes import CaseNotes
from ._files import EvalFiles
from ._plan import Plan, PlannedSet
from ._problems import InputProblems
from ._recorded import InFile, Outcome, RecordedActuals, RecordedTurns, actuals_by_case, read_actual_sources
from ._settings import RunOptions, merge_settings

__all__ = [
    "CriteriaSpec",
    "as_config",
    "criteria_for",
    "criterion_entry",
    "plan_eval_sets",
    "plan_paths",
    "preflight_judges",
]

CriteriaSpec = Union[None, EvalConfig, Mapping[str, Any], Sequence[Union[str, Criterion]]]


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


class _TargetCases(CaseNotes):
    """What planning notes of each case of an eval file as it is read: its id, and the
    warning when two of its turns share an ``invocation_id``."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.ids: list[str] = []
        self.warnings: list[str] = []

    @staticmethod
    def note(path: Path, index: int, case: EvalCase) -> tuple[str, Optional[str]]:
        return case.eval_id, duplicate_invocation_ids(path, index, case)

    def add(self, index: int, note: tuple[str, Optional[str]]) -> None:
        self.ids.append(note[0])
        if note[1] is not None:
            self.warnings.append(note[1])


def _select(ids: Sequence[str], case_ids: Optional[Sequence[str]], where: str) -> tuple[str, ...]:
    """The ids of the selected cases, in file order (``ids``: every case of the file)."""
    if case_ids is None:
        return tuple(ids)
    known = set(ids)
    unknown = [i for i in case_ids if i not in known]
    if unknown:
        msg = (
            f"no case with eval_id {', '.join(map(repr, unknown))} in this file; "
            f"its cases are: {', '.join(sorted(known)) or '(none)'}"
        )
        raise DataError(msg, source=where)
    wanted = set(case_ids)
    return tuple(i for i in ids if i in wanted)


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
    check_num_runs(num_runs, run_budget, agent is not None)
    warnings: list[str] = []
    targets = expand_targets(list(paths))
    load_env_files((target.path.parent for target in targets), warn=warnings.append)
    shared = config if config is not None else load_config(config_path) if config_path else None
    problems = InputProblems()
    files = EvalFiles()
    to_read = [*([] if agent is not None else map(Path, actual_paths)), *(target.path for target in targets)]
    files.will_read(to_read)
    criteria_source = LocalCriteria(registry)
    # what planning reads with ``files.read``: expected files, and ADK-format actual files
    read_here = [*(() if format_in not in (None, ADK_FORMAT) else to_read), *(t.path for t in targets)]
    with files.checking_ahead(to_read, read_here):
        actuals = None if agent is not None else read_actual_sources(actual_paths, problems, files, format_in)
        if actuals is not None:
            warnings.extend(actuals.warnings)
        staged, requests = _stage_targets(
            targets, files, problems, warnings, shared, efficiency, criteria_names, criteria_source
        )
    problems.raise_any()
    statistics = _one_statistics([config for _, _, _, config, _ in staged])
    runs = merge_settings(
        RunOptions(num_runs=num_runs, run_budget=run_budget), statistics, runs_agent=agent is not None
    )
    num_runs, run_budget = runs.num_runs, runs.run_budget
    check_num_runs(num_runs, run_budget, agent is not None)
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
        refs = _recorded_refs(actuals, sets, warnings)
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
    files.start_run()
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


def _stage_targets(
    targets: Sequence[EvalTarget],
    files: EvalFiles,
    problems: InputProblems,
    warnings: list[str],
    shared: Optional[EvalConfig],
    efficiency: bool,
    criteria_names: Optional[Sequence[str]],
    criteria_source: LocalCriteria,
) -> tuple[list[tuple[EvalTarget, str, tuple[str, ...], EvalConfig, int]], list[tuple[Criterion, str]]]:
    """Each eval file read and checked with its config and criteria (every file's problems
    collected in ``problems``): the staged eval sets, and the criteria each asks for."""
    configs: dict[Optional[Path], Optional[EvalConfig]] = {}
    staged = []
    requests: list[tuple[Criterion, str]] = []
    set_config: Optional[EvalConfig]
    for target in targets:
        with problems.collect():
            noted = _TargetCases(target.path)
            header = files.read(target.path, noted)  # the files keep the cases that fit their budget
            warnings.extend(header.warnings)
            warnings.extend(eval_set_warnings(target.path, header.eval_set))  # the header's own
            warnings.extend(noted.warnings)
            case_ids = _select(noted.ids, target.case_ids, str(target.path))
            set_id = header.eval_set.eval_set_id
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
    return staged, requests


def _recorded_refs(
    actuals: RecordedActuals, sets: Sequence[PlannedSet], warnings: list[str]
) -> dict[tuple[int, str], list[Union[Outcome, InFile]]]:
    """Each planned case's recorded runs (or where they are), by (eval set index, case id);
    the ``--actual`` files in another data format are read first, for the selected cases
    (read only then), their warnings added to ``warnings``."""
    if actuals.in_format:
        cases = {case.eval_id: case for planned in sets for case in planned.cases}
        warnings.extend(actuals.read_in_formats(list(cases.values())))
    return {
        (planned.index, case_id): actuals.runs_for(planned.eval_set_id, case_id, str(planned.source))
        for planned in sets
        for case_id in planned.case_ids
    }


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


def _uses(
    sets: Sequence[PlannedSet], refs: Mapping[tuple[int, str], Sequence[Union[Outcome, InFile]]]
) -> dict[Path, list[int]]:
    """Which eval sets use each file: its own file, and the ``--actual`` files of its cases."""
    uses: dict[Path, set[int]] = {}
    for planned in sets:
        if planned.source is not None:
            uses.setdefault(Path(planned.source), set()).add(planned.index)
    for (index, _), found in refs.items():
        for ref in found:
            if isinstance(ref, InFile):
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
    problems = InputProblems()
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
    actual_map = actuals_by_case(actual, [c for item in loaded for c in item.eval_set.eval_cases], warnings)
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
