"""Starting a recorded run: the manifest, a new run folder or the one being resumed.

``open_run`` is what the CLI, the embedding API and the pytest plugin call to turn a
``Plan`` into an ``EvalRun`` that records (or not) as it goes.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

from .._secrets import redact_argv, redact_secrets
from .._version import __version__
from ..errors import ConfigError
from ..runs import Manifest, RecordedRun, RunState, RunWriter, find_run, list_runs, new_run_id, utc_now
from ._evalrun import EvalRun
from ._plan import Plan

__all__ = ["describe_changes", "open_run"]


def _git_commit(folder: Path) -> Optional[str]:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=folder, capture_output=True, text=True, timeout=3, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and re.fullmatch(r"[0-9a-f]{40,64}", commit) else None


def _distributions(plan: Plan) -> dict[str, str]:
    found = {"agenteval-engine": __version__}
    for planned in plan.sets:
        for entry in planned.entries:
            found[entry.distribution] = entry.version
    if plan.agent is not None:
        module = type(plan.agent).__module__.split(".")[0]
        for dist in importlib.metadata.packages_distributions().get(module, []):
            try:
                found[dist] = importlib.metadata.version(dist)
            except importlib.metadata.PackageNotFoundError:
                pass
    return dict(sorted(found.items()))


def build_manifest(
    plan: Plan,
    run_id: str,
    argv: Sequence[str],
    confidence: Optional[float] = 0.95,
    set_verdict: str = "holm",
) -> Manifest:
    """The manifest of a new run of ``plan``."""
    agent = None
    if plan.agent is not None:
        agent = {
            "target": plan.agent_target,
            "adapter": f"{type(plan.agent).__module__}:{type(plan.agent).__qualname__}",
        }
    manifest = Manifest(
        run_id=run_id,
        started_at=utc_now(),
        engine_version=__version__,
        distributions=_distributions(plan),
        argv=redact_argv(argv),
        cwd=os.getcwd(),
        git_commit=_git_commit(Path.cwd()),
        eval_sets=[s.entry for s in plan.sets],
        actual_files=list(plan.actual_files),
        agent=agent,
        num_runs=plan.num_runs,
        num_runs_policy="auto" if plan.auto_runs else "fixed",
        looks=list(plan.looks),
        run_budget=plan.run_budget,
        confidence=plan.case_confidence(confidence),
        set_confidence=confidence if plan.auto_runs else None,
        set_verdict=set_verdict,
        judge_prices={model: dict(price) for model, price in plan.judge_prices.items()},
        inputs_fingerprint=plan.fingerprint(),
        shard=plan.shard.record() if plan.shard is not None else None,
        warnings=list(plan.warnings),
    )
    return redact_secrets(manifest)  # no key from --agent's URL or a judge config on disk


def describe_changes(old: Manifest, new: Manifest) -> list[str]:
    """What differs between two runs' inputs, one sentence each."""
    changes: list[str] = []
    if (old.agent or {}).get("target") != (new.agent or {}).get("target"):
        changes.append(
            f"the agent: {(old.agent or {}).get('target')!r} -> {(new.agent or {}).get('target')!r}"
        )
    if old.num_runs != new.num_runs or old.num_runs_policy != new.num_runs_policy:
        runs_before, runs_after = (
            m.num_runs_policy if m.num_runs_policy == "auto" else m.num_runs for m in (old, new)
        )
        changes.append(f"runs per case: {runs_before} -> {runs_after}")
    if old.run_budget != new.run_budget:
        changes.append(f"--run-budget: {old.run_budget} -> {new.run_budget}")
    old_sets = {(s.path or s.eval_set_id): s for s in old.eval_sets}
    new_sets = {(s.path or s.eval_set_id): s for s in new.eval_sets}
    for name in sorted(set(old_sets) | set(new_sets)):
        before, after = old_sets.get(name), new_sets.get(name)
        if before is None or after is None:
            changes.append(f"eval set {name}: {'added' if before is None else 'no longer given'}")
            continue
        if before.sha256 != after.sha256:
            changes.append(f"eval set {name}: the file's content changed")
        if before.case_ids != after.case_ids:
            changes.append(f"eval set {name}: the selected cases changed")
        old_criteria = {c.name: c for c in before.criteria}
        new_criteria = {c.name: c for c in after.criteria}
        for criterion in sorted(set(old_criteria) | set(new_criteria)):
            a, b = old_criteria.get(criterion), new_criteria.get(criterion)
            if a is None or b is None:
                changes.append(f"criterion {criterion} {'added' if a is None else 'removed'} for {name}")
            elif a.threshold != b.threshold:
                changes.append(f"criterion {criterion}: threshold {a.threshold} -> {b.threshold}")
            elif a.params != b.params:
                changes.append(f"criterion {criterion}: parameters changed")
            elif (a.distribution, a.version) != (b.distribution, b.version):
                changes.append(f"criterion {criterion}: plugin {a.distribution} {a.version} -> {b.version}")
            elif a.describe != b.describe:  # e.g. a local criterion's file (its sha256)
                keys = sorted(k for k in {*a.describe, *b.describe} if a.describe.get(k) != b.describe.get(k))
                file = f" ({b.describe['file']})" if b.describe.get("file") else ""
                changes.append(f"criterion {criterion}: {', '.join(keys)} changed{file}")
    if [f.sha256 for f in old.actual_files] != [f.sha256 for f in new.actual_files] or [
        f.path for f in old.actual_files
    ] != [f.path for f in new.actual_files]:
        changes.append("the --actual inputs changed")
    return changes or ["the inputs' fingerprint differs"]


_UNFINISHED = (RunState.INTERRUPTED, RunState.RUNNING, RunState.FAILED)


def _resumable(runs_dir: Path, manifest: Manifest, ref: Optional[str]) -> RecordedRun:
    if ref is not None:
        run = find_run(runs_dir, ref)
        if run.manifest.state is RunState.COMPLETE:
            raise ConfigError(
                f"run {run.run_id} is complete; there is nothing to resume "
                f"(see it with: agenteval runs show {run.run_id})"
            )
        if run.manifest.inputs_fingerprint != manifest.inputs_fingerprint:
            changed = "; ".join(describe_changes(run.manifest, manifest))
            raise ConfigError(
                f"cannot resume run {run.run_id}: its inputs changed ({changed}). "
                "Run again without --resume to start a new run with the new inputs"
            )
        return run
    unfinished = [r for r in reversed(list_runs(runs_dir)) if r.manifest.state in _UNFINISHED]
    for run in unfinished:
        if run.manifest.inputs_fingerprint == manifest.inputs_fingerprint:
            return run
    if unfinished:
        latest = unfinished[0]
        changed = "; ".join(describe_changes(latest.manifest, manifest))
        raise ConfigError(
            f"no interrupted run in {str(runs_dir)!r} has these inputs; the latest one, "
            f"{latest.run_id}, differs: {changed}. Give --resume RUN_ID to pick one, or run "
            "without --resume"
        )
    raise ConfigError(f"there is no interrupted run to resume in {str(runs_dir)!r}; run without --resume")


def open_run(
    plan: Plan,
    *,
    runs_dir: Optional[Path],
    resume: Optional[str] = None,
    argv: Optional[Sequence[str]] = None,
    run_id: Optional[str] = None,
    **options: Any,
) -> EvalRun:
    """An ``EvalRun`` of ``plan`` recording into ``runs_dir`` (``None``: no record).

    ``resume`` is ``"latest"`` (the newest unfinished run with the same inputs) or a run
    id; the run then continues in that run's folder. ``run_id`` names a new run (default: a
    new id), for a caller that needs its folder in ``argv``. ``options`` go to ``EvalRun``.
    """
    argv = list(sys.argv if argv is None else argv)
    if runs_dir is None:
        if resume is not None:
            raise ConfigError("--resume continues a recorded run; it cannot be combined with --no-record")
        return EvalRun(plan, writer=None, run_id=run_id or new_run_id(), **options)
    runs_dir = Path(runs_dir).resolve()
    if resume is not None:
        manifest = build_manifest(plan, "pending", argv)
        previous = _resumable(runs_dir, manifest, None if resume == "latest" else resume)
        continued = previous.manifest.model_copy(
            update={
                "state": RunState.RUNNING,
                "finished_at": None,
                "stopped_by": None,
                "exit_code": None,
                "error": None,
                "resumed_from": previous.run_id,
                "argv": manifest.argv,
                "confidence": plan.case_confidence(options.get("confidence", 0.95)),
                "set_confidence": options.get("confidence", 0.95) if plan.auto_runs else None,
                "set_verdict": options.get("set_verdict", "holm"),
                "judge_prices": manifest.judge_prices,
            }
        )
        writer = RunWriter.reopen(previous.folder, continued)
        return EvalRun(plan, writer=writer, resume_from=previous, **options)
    confidence = options.get("confidence", 0.95)
    manifest = build_manifest(
        plan, run_id or new_run_id(), argv, confidence, options.get("set_verdict", "holm")
    )
    writer = RunWriter.create(runs_dir, manifest)
    return EvalRun(plan, writer=writer, **options)
