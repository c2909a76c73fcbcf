"""``merge_shards``: the run folders of ``agenteval run --shard I/N`` as one run folder.

The shards must be one plan's (the same ``shard.plan_fingerprint`` and ``shard.count``),
every one of them there once, each complete, and no record in two of them. The merged
folder is the run one process would have written of the whole plan: its manifest lists the
plan's cases and has the plan's inputs fingerprint (so ``--resume`` and ``compare`` treat
it as that run), its records are the shards' records in plan order (with the merged run's
id), and its summary and verdicts are computed from them by the rules every reader applies.
Judge activity (calls, cache hits, time) is per process and is not summed: the merged
summary has none.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from .._version import __version__
from ..errors import ConfigError
from ._folder import RunWriter, utc_now
from ._reader import RecordedRun
from ._records import Manifest, RunState, SummaryDocument

__all__ = ["merge_shards"]


def merge_shards(shards: Sequence[RecordedRun], output: Path, argv: Sequence[str] = ()) -> RecordedRun:
    """Write the merged run of ``shards`` into the new folder ``output`` and return it;
    ``ConfigError`` (nothing written) says every reason the shards do not make one run."""
    ordered = _checked(shards)
    first = ordered[0].manifest
    shard = first.shard or {}
    plan_case_ids = shard["plan_case_ids"]
    owner: dict[tuple[int, str, int], RecordedRun] = {}
    by_case: dict[tuple[int, str], list[int]] = {}
    for run in ordered:
        for key in run.keys():
            if key in owner:
                raise ConfigError(
                    f"cannot merge: case {key[1]!r} (eval set {key[0]}, run {key[2]}) is recorded in both "
                    f"{owner[key].folder} and {run.folder}; the shards overlap"
                )
            owner[key] = run
            by_case.setdefault(key[:2], []).append(key[2])
    output = Path(output).absolute()
    if output.exists():
        raise ConfigError(f"cannot merge into {output}: it exists; give -o a new folder")
    manifest = _merged_manifest(ordered, output.name, plan_case_ids, argv)
    writer = RunWriter.create(output.parent, manifest)
    try:
        for set_index, case_ids in enumerate(plan_case_ids):
            for case_id in case_ids:
                for run_index in sorted(by_case.get((set_index, case_id), ())):
                    key = (set_index, case_id, run_index)
                    record = owner[key].record(key)
                    if record is not None:
                        writer.append(record.model_copy(update={"run_id": manifest.run_id}))
        manifest.state = RunState.COMPLETE
        manifest.finished_at = max((r.manifest.finished_at or "" for r in ordered), default=None) or utc_now()
        writer.write_manifest()
        summary = RecordedRun.open(writer.folder).result_summary()
        code = 0 if summary.status.ok else 1
        if code == 0 and shard.get("fail_on_inconclusive") and summary.inconclusive():
            code = 3  # the CLI's ExitCode.INCONCLUSIVE
        planned = sum(len(ids) for ids in plan_case_ids)
        writer.write_summary(
            SummaryDocument(
                run_id=manifest.run_id,
                state=RunState.COMPLETE,
                summary=summary,
                cases_recorded=planned,
                cases_planned=planned,
            )
        )
        manifest.exit_code = code
        writer.write_manifest()
    finally:
        writer.close()
    return RecordedRun.open(writer.folder)


def _checked(shards: Sequence[RecordedRun]) -> list[RecordedRun]:
    """The shards in shard order, or ``ConfigError`` listing what is wrong with them. A shard
    folder that did not complete is left out when another folder of the same shard did (a
    retried pod or CI job leaves the first attempt behind)."""
    if not shards:
        raise ConfigError("cannot merge: give the run folders of the shards")
    problems: list[str] = []
    complete = [r for r in shards if r.manifest.shard is not None and r.manifest.state is RunState.COMPLETE]
    done = {_slot(r) for r in complete}
    unfinished: set[int] = set()
    for run in shards:
        shard = run.manifest.shard
        if shard is None:
            problems.append(f"{run.folder} is not a shard (it was not run with --shard I/N)")
        elif run.manifest.state is not RunState.COMPLETE and _slot(run) not in done:
            unfinished.add(_slot(run)[1])
            problems.append(
                f"{run.folder} (shard {shard['index']}/{shard['count']}) is {run.manifest.state.value}, "
                "not complete: finish it first (run the command that started it again, adding "
                f"--resume {run.run_id})"
            )
    plans = {(r.manifest.shard or {})["plan_fingerprint"] for r in complete}
    counts = {(r.manifest.shard or {})["count"] for r in complete}
    if len(plans) > 1 or len(counts) > 1:
        listed = "; ".join(f"{r.folder}: shard {_name(r)} of plan {_slot(r)[0][:12]}" for r in complete)
        problems.append(
            "the shards come from different plans (different inputs, criteria, agent or runs per "
            f"case, or a different N): {listed}"
        )
    elif complete:
        (count,) = counts
        seen: dict[int, RecordedRun] = {}
        for run in complete:
            index = _slot(run)[1]
            if index in seen:
                problems.append(f"shard {_name(run)} is given twice: {seen[index].folder} and {run.folder}")
            seen[index] = run
        missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in seen and i not in unfinished]
        if missing:
            problems.append(f"shard(s) {', '.join(missing)} missing: merge needs all {count} shards")
    if problems:
        raise ConfigError("\n".join(["cannot merge these runs:", *(f"  - {p}" for p in problems)]))
    return sorted(complete, key=lambda r: _slot(r)[1])


def _slot(run: RecordedRun) -> tuple[str, int, int]:
    """A shard run's plan fingerprint, index and count."""
    shard = run.manifest.shard or {}
    return shard["plan_fingerprint"], shard["index"], shard["count"]


def _name(run: RecordedRun) -> str:
    _, index, count = _slot(run)
    return f"{index}/{count}"


def _merged_manifest(
    shards: list[RecordedRun], run_id: str, plan_case_ids: list[list[str]], argv: Sequence[str]
) -> Manifest:
    """The whole plan's manifest: the first shard's, with every case, the plan's fingerprint,
    what each shard brought (plugins, warnings) and where it came from."""
    first = shards[0].manifest
    distributions: dict[str, str] = {}
    warnings: list[str] = []
    for run in shards:
        distributions.update(run.manifest.distributions)
        warnings += [w for w in run.manifest.warnings if w not in warnings]
    return first.model_copy(
        update={
            "run_id": run_id,
            "state": RunState.RUNNING,
            "started_at": min(r.manifest.started_at for r in shards),
            "finished_at": None,
            "argv": list(argv),
            "cwd": os.getcwd(),
            "distributions": dict(sorted(distributions.items())),
            "eval_sets": [
                entry.model_copy(update={"case_ids": list(plan_case_ids[entry.index])})
                for entry in first.eval_sets
            ],
            "inputs_fingerprint": (first.shard or {})["plan_fingerprint"],
            "executor": {
                "name": "shards",
                "distribution": "agenteval-engine",
                "version": __version__,
                "workers": len(shards),
            },
            "shard": None,
            "merged_from": [r.run_id for r in shards],
            "resumed_from": None,
            "stopped_by": None,
            "exit_code": None,
            "error": None,
            "warnings": warnings,
        },
        deep=True,
    )
