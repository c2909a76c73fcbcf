"""The pytest plugin: each case of an eval file is a test, once an agent is named for it.

``*.test.json`` and ``*.evalset.json`` files, and the files of every installed data format
(e.g. agents-cli's ``*-dataset.json`` with agenteval-agent-platform), are collected only when
an agent is named for them, first match wins: the ``pytest_agenteval_agent`` hook in a
``conftest.py`` (scoped to its folder), ``--agenteval-agent TARGET``, or the
``agenteval_agent`` ini option. Other
JSON files, and eval files without an agent, are left alone.

The first test of a file runs the file's selected cases (all at once, concurrently)
through the engine's run assembler (``agenteval.assemble``, what ``agenteval run``
and ``agenteval.evaluate_agent`` call: the same settings, config and ``statistics`` block)
and keeps the result on the file's collector; every test then reads its own case. A case
passes when its status is PASSED or INFORMATIONAL, the rule of ``agenteval run``'s exit
code.

pytest loads this module in every run, so it imports nothing from agenteval itself: the
engine is imported when an eval file is collected.
"""

from __future__ import annotations

import asyncio
import dataclasses
import fnmatch
import functools
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

import pytest

from . import hookspecs

if TYPE_CHECKING:
    from agenteval import CaseResult, RunResult
    from agenteval.models import EvalCase

__all__ = ["EvalCaseItem", "EvalFile"]

#: ADK's names, which ``agenteval run FOLDER`` picks up without looking up any format plugin.
_EVAL_FILE = re.compile(r".*\.(test|evalset)\.json$", re.IGNORECASE)
#: The suffixes an installed data format's eval files may have (its patterns are looked up
#: only for names with one of them, so collecting a test suite loads no plugin).
_FORMAT_SUFFIXES = (".json", ".jsonl", ".csv")
#: ``path/to/agent.py:function`` (the function part may be dotted).
_FILE_TARGET = re.compile(r"^(?P<file>.+\.py):(?P<function>[A-Za-z_][A-Za-z0-9_.]*)$")
_NO_AGENT = (
    "no agent is named for this eval file, so its cases cannot run. Name one with the "
    "pytest_agenteval_agent(path) hook in a conftest.py, with --agenteval-agent TARGET, "
    "or with the agenteval_agent ini option (docs/pytest.md)"
)


@dataclasses.dataclass(frozen=True)
class _Settings:
    agent: Optional[str]
    #: runs per case, or ``"auto"`` (runs look by look while a case's verdict is undecided)
    #: ``None``: the config's ``statistics.num_runs``, else 1.
    num_runs: Union[int, str, None]
    criteria: Optional[tuple[str, ...]]
    #: Where each eval file's run is recorded (``None``: ``--agenteval-no-record``).
    runs_dir: Optional[Path]
    #: ``--agenteval-fail-on-inconclusive``: a case whose tri-state verdict is INCONCLUSIVE fails.
    #: ``None``: the config's ``statistics.fail_on_inconclusive``, else no.
    fail_on_inconclusive: Optional[bool] = None
    #: ``--agenteval-run-budget``: the most agent runs of each eval file's run (``auto`` only).
    run_budget: Optional[int] = None
    #: ``--agenteval-executor``: what runs the units of work (``None``: ``local``).
    executor: Optional[str] = None


_SETTINGS = pytest.StashKey[_Settings]()
_WARNINGS = pytest.StashKey[dict[str, list[str]]]()
_RECORDED = pytest.StashKey[list[str]]()
#: The INCONCLUSIVE cases, each with whether it failed (``fail_on_inconclusive``).
_INCONCLUSIVE = pytest.StashKey[list[tuple[str, bool]]]()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agenteval", "agenteval: eval files (*.test.json, *.evalset.json) as tests")
    group.addoption(
        "--agenteval-agent",
        metavar="TARGET",
        help=(
            "the agent under test for eval files no pytest_agenteval_agent hook names one for: an "
            "agenteval --agent target (pkg.module:function, path/to/agent.py:function, a folder...)"
        ),
    )
    group.addoption(
        "--agenteval-num-runs",
        metavar="N|auto",
        help=(
            "run each eval case N times; verdicts use the mean score, as ADK's num_runs (default 1); "
            "auto: 3, 6, 12, then 24 runs while a case's verdict is undecided "
            "(agenteval run --num-runs auto)"
        ),
    )
    group.addoption(
        "--agenteval-run-budget",
        metavar="N",
        help="with --agenteval-num-runs auto: the most agent runs of each eval file (as --run-budget)",
    )
    group.addoption(
        "--agenteval-executor",
        metavar="NAME",
        help="what runs each eval file's units of work (as agenteval run --executor; default local)",
    )
    group.addoption(
        "--agenteval-criteria",
        metavar="A,B",
        help=(
            "apply only these criteria (as agenteval run --criteria: thresholds and params "
            "from the test_config.json beside each file are kept)"
        ),
    )
    group.addoption(
        "--agenteval-runs-dir",
        metavar="DIR",
        help=(
            "record each eval file's run here (default: $AGENTEVAL_RUNS_DIR, else .agenteval/runs "
            "in the rootdir)"
        ),
    )
    group.addoption(
        "--agenteval-no-record", action="store_true", help="record no run folder for the eval files"
    )
    group.addoption(
        "--agenteval-fail-on-inconclusive",
        action="store_true",
        help=(
            "fail a case whose point verdict passes but whose tri-state verdict is INCONCLUSIVE "
            "(an interval over its runs contains the threshold), as agenteval run --fail-on-inconclusive"
        ),
    )
    parser.addini(
        "agenteval_agent",
        "the agent under test for eval files (as --agenteval-agent; a relative path is taken "
        "from the ini file's folder)",
    )
    parser.addini("agenteval_num_runs", "run each eval case this many times, or auto (default 1)")


def _ini_base(config: pytest.Config) -> Path:
    return config.inipath.parent if config.inipath is not None else config.rootpath


def _absolute_target(target: str, base: Path) -> str:
    """``target`` with a relative file or folder part made absolute against ``base``;
    module targets (``pkg.module:function``) and URLs are returned unchanged."""
    if "://" in target:
        return target
    match = _FILE_TARGET.match(target)
    path_part = match["file"] if match else target
    if Path(path_part).is_absolute() or not (base / path_part).exists():
        return target
    resolved = str(base / path_part)
    return f"{resolved}:{match['function']}" if match else resolved


def _num_runs(value: Any, where: str) -> Union[int, str]:
    if str(value).strip().lower() == "auto":
        return "auto"
    return _whole(value, where, "a whole number of runs, at least 1, or auto")


def _whole(value: Any, where: str, expected: str) -> int:
    try:
        number = int(str(value).strip())
    except ValueError:
        number = 0
    if number < 1:
        raise pytest.UsageError(f"{where}: expected {expected}; got {value!r}")
    return number


def pytest_configure(config: pytest.Config) -> None:
    option = config.getoption("agenteval_agent")
    ini = config.getini("agenteval_agent")
    agent = None
    if option:
        agent = _absolute_target(option, config.invocation_params.dir)
    elif ini:
        agent = _absolute_target(str(ini).strip(), _ini_base(config))
    runs_option = config.getoption("agenteval_num_runs")
    runs_ini = config.getini("agenteval_num_runs")
    if runs_option is not None:
        num_runs = _num_runs(runs_option, "--agenteval-num-runs")
    elif runs_ini:
        num_runs = _num_runs(runs_ini, "agenteval_num_runs")
    else:
        num_runs = None
    run_budget = None
    budget_option = config.getoption("agenteval_run_budget")
    if budget_option is not None:
        if num_runs != "auto":
            raise pytest.UsageError("--agenteval-run-budget caps --agenteval-num-runs auto; give both")
        run_budget = _whole(budget_option, "--agenteval-run-budget", "a whole number of agent runs")
    criteria = None
    criteria_option = config.getoption("agenteval_criteria")
    if criteria_option is not None:
        names = [n.strip() for n in criteria_option.split(",") if n.strip()]
        if not names:
            msg = "--agenteval-criteria: give at least one criterion name, e.g. response_match_score"
            raise pytest.UsageError(msg)
        criteria = tuple(dict.fromkeys(names))
    runs_dir: Optional[Path] = None
    if not config.getoption("agenteval_no_record"):
        given = config.getoption("agenteval_runs_dir") or os.environ.get("AGENTEVAL_RUNS_DIR")
        base = config.invocation_params.dir if given else config.rootpath
        runs_dir = (base / (given or Path(".agenteval") / "runs")).resolve()
    config.stash[_SETTINGS] = _Settings(
        agent=agent,
        num_runs=num_runs,
        criteria=criteria,
        runs_dir=runs_dir,
        fail_on_inconclusive=True if config.getoption("agenteval_fail_on_inconclusive") else None,
        run_budget=run_budget,
        executor=config.getoption("agenteval_executor"),
    )
    config.stash[_WARNINGS] = {}
    config.stash[_RECORDED] = []
    config.stash[_INCONCLUSIVE] = []


def _agent_for(file_path: Path, parent: pytest.Collector) -> Any:
    """The agent named for ``file_path``: the nearest conftest's hook, else the options."""
    hook = parent.session.gethookproxy(file_path)
    agent = hook.pytest_agenteval_agent(path=file_path, config=parent.config)
    if isinstance(agent, os.PathLike):
        agent = os.fspath(agent)
    if isinstance(agent, str):
        agent = _absolute_target(agent, parent.config.invocation_params.dir) if agent.strip() else None
    if agent is not None:
        return agent
    return parent.config.stash[_SETTINGS].agent


@functools.lru_cache(maxsize=1)
def _format_patterns() -> tuple[str, ...]:
    """The lower-cased file-name patterns of the installed data formats' eval files (this
    imports the engine and the format plugins: called only for a file an agent is named for)."""
    from agenteval.plugins import eval_file_patterns

    return tuple(pattern.lower() for pattern in eval_file_patterns())


def _in_a_format(name: str) -> bool:
    """Whether an installed data format takes ``name`` as an eval file (as ``agenteval run
    FOLDER`` would)."""
    lowered = name.lower()
    return lowered.endswith(_FORMAT_SUFFIXES) and any(
        fnmatch.fnmatchcase(lowered, pattern) for pattern in _format_patterns()
    )


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Optional[pytest.Collector]:
    adk_file = bool(_EVAL_FILE.match(file_path.name))
    if not adk_file and not file_path.name.lower().endswith(_FORMAT_SUFFIXES):
        return None
    agent = _agent_for(file_path, parent)
    named_here = parent.session.isinitpath(file_path)
    # Another format's names are looked up only where they could matter, so a test suite
    # with JSON fixtures and no agent named imports no engine.
    if not adk_file and not ((agent is not None or named_here) and _in_a_format(file_path.name)):
        return None
    if agent is None:
        if named_here:  # named on the command line: say why nothing runs
            return _UnnamedEvalFile.from_parent(parent, path=file_path)
        return None
    return EvalFile.from_parent(parent, path=file_path, agent=agent)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    recorded = config.stash.get(_RECORDED, [])
    settings = config.stash.get(_SETTINGS, None)
    if recorded and settings is not None and settings.runs_dir is not None:
        terminalreporter.line(
            f"agenteval: {len(recorded)} run(s) recorded in {settings.runs_dir} "
            f"(agenteval runs list --runs-dir {settings.runs_dir})"
        )
    inconclusive = config.stash.get(_INCONCLUSIVE, [])
    for failed in (True, False):
        nodes = [node for node, fails in inconclusive if fails is failed]
        if not nodes:
            continue
        what = "failed" if failed else "passed on their point verdict"
        terminalreporter.line(
            f"agenteval: {len(nodes)} case(s) INCONCLUSIVE ({what}): an interval over the runs "
            "contains the threshold; more runs (--agenteval-num-runs) would settle them: "
            + ", ".join(nodes[:10])
            + (" ..." if len(nodes) > 10 else "")
        )
    warnings = config.stash.get(_WARNINGS, {})
    if not warnings:
        return
    terminalreporter.section("agenteval warnings")
    for source, messages in warnings.items():
        for message in messages:
            terminalreporter.line(f"{source}: {message}")


class _UnnamedEvalFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        raise self.CollectError(f"{self.path.name}: {_NO_AGENT}")


class _EvalProblem(Exception):
    """Why a file's cases could not run (its text is the whole failure report)."""


class _CaseNotPassed(AssertionError):
    """A case whose status is not PASSED or INFORMATIONAL; its text is the report."""


class EvalFile(pytest.File):
    """An eval file; its items are its cases, and it runs them together once."""

    def __init__(self, *, agent: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.agent = agent
        self._outcome: Union[None, RunResult, _EvalProblem] = None
        #: Whether an INCONCLUSIVE case fails: the option, else the config's statistics block.
        self.fail_on_inconclusive = False
        self._case_ids: list[str] = []

    def collect(self) -> Iterator[EvalCaseItem]:
        from agenteval import load_eval_set
        from agenteval.errors import AgentEvalError
        from agenteval.plugins import Agent

        if not isinstance(self.agent, (str, Agent)):
            msg = (
                f"pytest_agenteval_agent returned {self.agent!r}; return an agenteval --agent "
                "target (a str) or an agenteval.plugins.Agent, or None"
            )
            raise self.CollectError(msg)
        try:
            eval_set = load_eval_set(self.path)
        except AgentEvalError as exc:
            raise self.CollectError(str(exc)) from None
        self._case_ids = [case.eval_id for case in eval_set.eval_cases]
        for case in eval_set.eval_cases:
            yield EvalCaseItem.from_parent(
                self, name=case.eval_id, case=case, eval_set_id=eval_set.eval_set_id
            )

    def _selection(self) -> str:
        """The ``agenteval run`` PATH for this file's cases selected in this session (all of
        them when a selection cannot be spelt ``FILE:ID,ID``)."""
        path = str(self.path)
        selected = [i.name for i in self.session.items if isinstance(i, EvalCaseItem) and i.parent is self]
        if not selected or set(selected) == set(self._case_ids):
            return path
        spellable = ":" not in os.path.splitdrive(path)[1] and all(
            name == name.strip() and "," not in name for name in selected
        )
        return f"{path}:{','.join(selected)}" if spellable else path

    def result(self) -> RunResult:
        """The file's run result, made by the first of its tests that asks for it."""
        if self._outcome is None:
            try:
                self._outcome = self._evaluate()
            except Exception as exc:  # an engine or plugin bug: the first test shows the traceback
                self._outcome = _EvalProblem(
                    f"evaluating {self.path.name} raised {type(exc).__name__}: {exc} "
                    "(the traceback is in the file's first failed test)"
                )
                raise
        if isinstance(self._outcome, _EvalProblem):
            raise self._outcome
        return self._outcome

    def _evaluate(self) -> Union[RunResult, _EvalProblem]:
        from agenteval import RunOptions, RunRequest, assemble
        from agenteval.errors import AgentEvalError

        settings = self.config.stash[_SETTINGS]
        request = RunRequest(
            paths=(self._selection(),),
            agent=self.agent,
            criteria_names=settings.criteria,
            options=RunOptions(
                num_runs=settings.num_runs,
                run_budget=settings.run_budget,
                fail_on_inconclusive=settings.fail_on_inconclusive,
                **({"executor": settings.executor} if settings.executor else {}),
            ),
        )
        try:
            assembled = assemble(request)
            run = assembled.open(runs_dir=settings.runs_dir, argv=["agenteval.evaluate_agent"])
        except AgentEvalError as exc:
            return _EvalProblem(f"agenteval could not run {self.path.name}: {exc}")
        self.fail_on_inconclusive = assembled.settings.fail_on_inconclusive
        result = asyncio.run(run.execute())
        if result.interrupted:  # Ctrl-C while scoring: stop the session, as pytest would
            raise KeyboardInterrupt
        if result.warnings:
            self.config.stash[_WARNINGS][self.nodeid] = list(result.warnings)
        if result.run_id is not None:
            self.config.stash[_RECORDED].append(result.run_id)
        return result


class EvalCaseItem(pytest.Item):
    """One eval case: passes when its status is PASSED or INFORMATIONAL."""

    def __init__(self, *, case: EvalCase, eval_set_id: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.eval_set_id = eval_set_id
        self.extra_keyword_matches.add(eval_set_id)
        self.case_result: Optional[CaseResult] = None

    def runtest(self) -> None:
        assert isinstance(self.parent, EvalFile)
        result = self.parent.result()
        found = next((c for c in result.cases() if c.eval_id == self.name), None)
        if found is None:
            raise _EvalProblem(f"case {self.name!r} has no result in the run of {self.path.name}")
        self.case_result = found
        from ._report import case_report, case_verdict, inconclusive_report

        self.user_properties.append(("agenteval_status", found.status.value))
        verdict = case_verdict(found)
        if verdict is not None:
            self.user_properties.append(("agenteval_verdict", verdict))
        for criterion in found.criteria:
            self.user_properties.append((f"agenteval.{criterion.criterion}", criterion.score))
        if not found.status.ok:
            raise _CaseNotPassed(case_report(found, self.case.conversation))
        if verdict == "INCONCLUSIVE":
            self.config.stash[_INCONCLUSIVE].append((self.nodeid, self.parent.fail_on_inconclusive))
            if self.parent.fail_on_inconclusive:
                raise _CaseNotPassed(inconclusive_report(found))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, (_CaseNotPassed, _EvalProblem)):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, Optional[int], str]:
        return self.path, None, f"{self.eval_set_id}::{self.name}"
