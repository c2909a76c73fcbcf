"""Runs started from the browser: the engine's own run, in a background thread.

``RunJobs.start`` assembles the run as ``agenteval run`` does (``agenteval.assemble``:
the same settings merge, loader, config checks, criterion preflight and agent
``check_ready``; a problem is a ``RunRefused`` with the CLI's message, before anything
runs), opens it in the viewer's runs folder (a run folder like any CLI run's) and executes
it (``EvalRun.execute``) in a daemon thread. The criteria, thresholds, judge model and user
simulator chosen in the browser are written into the run folder as ``test_config.json``;
the manifest's ``argv`` is the ``agenteval run ... --config <that file>`` command, which
runs the same run again from a shell or CI. The run id is known at once, so the browser
opens the run's screen and follows it with the run's live events. ``criteria_catalog``
lists the installed criteria with their metadata and parameter schemas (what ``agenteval
criteria show`` prints).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from ._authoring_guard import WriteGuard

__all__ = ["RunJob", "RunJobs", "RunRefused", "criteria_catalog"]


class RunRefused(Exception):
    """A run that cannot start (HTTP 400): the engine's message, as the CLI prints it."""

    status = 400


@dataclass
class RunJob:
    run_id: str
    state: str = "running"
    error: Optional[str] = None
    counts: dict[str, int] = field(default_factory=dict)

    def describe(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "state": self.state, "error": self.error, "counts": self.counts}


def criteria_catalog() -> list[dict[str, Any]]:
    """Every installed criterion: name, distribution, version, description, score range,
    default threshold, what it needs, and its parameter schema; one that fails to load is
    listed with its ``error``."""
    from agenteval import Registry
    from agenteval.errors import AgentEvalError

    registry = Registry.installed()
    rows = []
    for ref in registry.refs():
        row: dict[str, Any] = {"name": ref.name, "distribution": ref.distribution, "version": ref.version}
        try:
            loaded = registry.load([ref.name])[ref.name]
        except AgentEvalError as exc:
            row["error"] = str(exc)
            rows.append(row)
            continue
        info = loaded.info
        row.update(
            description=info.description,
            min_score=info.min_score,
            max_score=info.max_score,
            higher_is_better=info.higher_is_better,
            default_threshold=None if info.informational else info.default_threshold,
            informational=info.informational,
            requires_expected=info.requires_expected,
            requires_rubrics=info.requires_rubrics,
            requires_judge=info.requires_judge,
            params_schema=loaded.evaluator_class.Params.model_json_schema(by_alias=False),
        )
        rows.append(row)
    return rows


def _config_data(criteria: Any, judge_model: Any, simulator: Any) -> Optional[dict[str, Any]]:
    """The run's ``test_config.json`` from the dialog: ``{name: {"threshold": t, ...params}}``;
    the judge model goes to every criterion whose parameters take ``judge_model_options``.
    ``None`` when no criterion was chosen (each file's own config applies)."""
    if not criteria:
        return None
    if not isinstance(criteria, dict):
        raise RunRefused("criteria: give an object {name: {threshold, parameters...}}")
    chosen: dict[str, Any] = {}
    if judge_model is not None and not isinstance(judge_model, str):
        raise RunRefused("judge_model: give a model name such as gemini-2.5-flash or openai:NAME")
    schemas = (
        {row["name"]: row.get("params_schema") or {} for row in criteria_catalog()} if judge_model else {}
    )
    for name, value in criteria.items():
        entry = dict(value) if isinstance(value, dict) else {"threshold": value}
        props = (schemas.get(name) or {}).get("properties") or {}
        if judge_model and "judge_model_options" in props:
            options = dict(entry.get("judge_model_options") or {})
            options.setdefault("judge_model", judge_model)
            entry["judge_model_options"] = options
        chosen[name] = entry
    data: dict[str, Any] = {"criteria": chosen}
    if simulator:
        data["user_simulator_config"] = simulator
    return data


class RunJobs:
    """The runs started from this viewer session, recorded in ``runs_dir``."""

    def __init__(self, runs_dir: Path, guard: WriteGuard, agent_timeout: float = 300.0) -> None:
        self.runs_dir = Path(runs_dir)
        self.guard = guard
        self.agent_timeout = agent_timeout
        self._jobs: dict[str, RunJob] = {}
        self._lock = threading.Lock()

    def start(self, request: dict[str, Any]) -> RunJob:
        """Plan and start a run: ``files`` ``[{root, path, case_ids?}]``, ``agent``
        (``--agent`` target), ``agent_type``, ``criteria`` (``{}``: each file's
        ``test_config.json``, else ADK's defaults), ``num_runs`` (absent: the config's
        ``statistics.num_runs``, else 1), ``judge_model``,
        ``user_simulator_config``, ``executor`` (absent: ``local``)."""
        from agenteval import EvalConfig, RunOptions, RunRequest, assemble, run_command
        from agenteval.errors import AgentEvalError
        from agenteval.plugins import CONFIG_FILE_NAME
        from agenteval.runs import new_run_id

        paths = self._paths(request.get("files"))
        target = request.get("agent")
        if not isinstance(target, str) or not target.strip():
            raise RunRefused("give the agent to run (anything --agent accepts)")
        agent_type = request.get("agent_type") or None
        if agent_type is not None and not isinstance(agent_type, str):
            raise RunRefused("agent_type: give the name of an agent adapter")
        num_runs = request.get("num_runs")  # None: the config's statistics.num_runs, else 1
        if num_runs is not None and (
            not isinstance(num_runs, int) or isinstance(num_runs, bool) or not 1 <= num_runs <= 100
        ):
            raise RunRefused("num_runs: a whole number from 1 to 100")
        executor = request.get("executor") or "local"
        if not isinstance(executor, str):
            raise RunRefused("executor: give the name of an installed executor (e.g. local)")
        data = _config_data(
            request.get("criteria"), request.get("judge_model"), request.get("user_simulator_config")
        )
        run_id = new_run_id()
        # What the browser chose is written into the run folder, so the command runs it again.
        config_file = self.runs_dir.resolve() / run_id / CONFIG_FILE_NAME if data is not None else None
        run_request = RunRequest(
            paths=tuple(paths),
            agent=target.strip(),
            agent_type=agent_type,
            config_path=config_file,
            options=RunOptions(num_runs=num_runs, agent_timeout=self.agent_timeout, executor=executor),
        )
        try:
            config = None if data is None else EvalConfig.from_data(data, source=config_file)
            assembled = assemble(dataclasses.replace(run_request, config=config, config_path=None))
            run = assembled.open(
                runs_dir=self.runs_dir, argv=run_command(run_request), run_id=run_id, keep_results=False
            )
        except AgentEvalError as exc:
            raise RunRefused(str(exc)) from None
        if config_file is not None:
            config_file.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        job = RunJob(run.run_id)
        with self._lock:
            self._jobs[job.run_id] = job
        threading.Thread(
            target=self._execute, args=(run, job), name=f"agenteval-view-run-{job.run_id}", daemon=True
        ).start()
        return job

    def _paths(self, files: Any) -> list[str]:
        """``files`` as ``agenteval run`` paths (``FILE`` or ``FILE:CASE,CASE``), each inside a root."""
        if not isinstance(files, list) or not files:
            raise RunRefused("choose the eval set (and cases) to run")
        paths = []
        for item in files:
            if not isinstance(item, dict):
                raise RunRefused("files: give [{root, path, case_ids}]")
            path = self.guard.resolve(item.get("root"), item.get("path"))
            ids = item.get("case_ids")
            if ids:
                if not isinstance(ids, list) or not all(isinstance(i, str) and i for i in ids):
                    raise RunRefused("case_ids: give a list of case ids")
                if any("," in i for i in ids):
                    raise RunRefused("case ids with a comma cannot be selected; rename the case")
                paths.append(f"{path}:{','.join(ids)}")
            else:
                paths.append(str(path))
        return paths

    def _execute(self, run: Any, job: RunJob) -> None:
        try:
            result = asyncio.run(run.execute())
            job.counts = {k: v for k, v in _counts(result).items() if v}
            job.state = "failed" if run.failed else ("interrupted" if run.stopped_by else "complete")
            job.error = run.failed
        except BaseException as exc:  # noqa: BLE001 - a crashed run is a job state, never the server's end
            job.state = "failed"
            job.error = f"{type(exc).__name__}: {exc}"

    def get(self, run_id: str) -> Optional[RunJob]:
        with self._lock:
            return self._jobs.get(run_id)


def _counts(result: Any) -> dict[str, int]:
    summary = getattr(result, "summary", None)
    counts = getattr(summary, "cases", None) or {}
    try:
        return {str(getattr(k, "value", k)): int(v) for k, v in dict(counts).items()}
    except (TypeError, ValueError):
        return {}
