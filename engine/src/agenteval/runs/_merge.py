"""``merge_shards``: the run folders of ``agenteval run --shard I/N`` as one run folder.

The shards must be one plan's (the same ``shard.plan_fingerprint`` and ``shard.count``),
every one of them there once, each complete, and no record in two of them. The merged
folder is the run one process would have written of the whole plan: its manifest lists the
plan's cases and has the plan's inputs fingerprint (so ``--resume`` and ``compare`` treat
it as that run), its records are the shards' records in plan order (with the merged run's
id: a shard this engine wrote has its lines copied with the id spliced in, ``_Copier``; any
other is read and written again, the same bytes), and its summary and verdicts are computed
from them by the rules every reader applies.
Judge activity (calls, cache hits, time) is per process and is not summed: the merged
summary has none.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

import pydantic_core

from .._version import __version__
from ..errors import ConfigError
from ._folder import RESULTS, RunWriter, utc_now
from ._index import INDEX_VERSION, read_index
from ._reader import RecordedRun
from ._records import RECORD_SCHEMA, Manifest, RunState, SummaryDocument
from ._scores import SCORES

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
    copiers = {id(run): _Copier(run, manifest.run_id) for run in ordered}
    try:
        for set_index, case_ids in enumerate(plan_case_ids):
            for case_id in case_ids:
                for run_index in sorted(by_case.get((set_index, case_id), ())):
                    key = (set_index, case_id, run_index)
                    if copiers[id(owner[key])].copy(key, writer):
                        continue
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
        for copier in copiers.values():
            copier.close()
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


#: The head of a ``scores.jsonl`` line: eval set index, case id (JSON), run index, offset,
#: length (``score_line``'s first five items, as ``score_data`` writes them).
_SCORES_HEAD = re.compile(rb'\[(\d+),("(?:[^"\\]|\\.)*"),(\d+),(\d+),(\d+),')


class _Copier:
    """A shard's records copied as bytes into the merged folder, where its records are this
    engine's own: written by the same engine version, with an index of the current version.
    A record's line is the merged run's line but for the run id, which is spliced in; its
    index and scores lines but for the record's place, which is put in. Whatever is not laid
    out as expected (a line missing, another head, another place) is not copied: ``copy``
    says so, and the caller reads and writes that record as a model."""

    def __init__(self, run: RecordedRun, run_id: str) -> None:
        self.lines: dict[tuple[int, str, int], tuple[int, int, bytes]] = {}
        self.scores: dict[tuple[int, str, int], bytes] = {}
        self._fd: Optional[int] = None
        manifest = run.manifest
        ours = manifest.engine_version == __version__ and manifest.index_version == INDEX_VERSION
        if not ours or not hasattr(os, "pread"):
            return
        try:
            schema = b'{"schema":' + pydantic_core.to_json(RECORD_SCHEMA) + b',"run_id":'
            self._heads = tuple(
                schema + pydantic_core.to_json(value) + b"," for value in (run.run_id, run_id)
            )
            # as the reader takes the index: checked against the records when they changed after it
            for key, offset, length, _, line in read_index(run.folder, RESULTS, verify=False) or ():
                self.lines[key] = (offset, length, line)
            with open(run.folder / SCORES, "rb") as handle:
                for line in handle:
                    head = _SCORES_HEAD.match(line)
                    if head is not None and line.endswith(b"\n"):
                        numbers = [int(head.group(n)) for n in (1, 3, 4, 5)]
                        key = (numbers[0], pydantic_core.from_json(head.group(2)), numbers[1])
                        if self.lines.get(key, (None, None))[:2] == (numbers[2], numbers[3]):
                            self.scores[key] = line[head.end() :].rstrip(b"\n")
            self._fd = os.open(run.folder / RESULTS, os.O_RDONLY)
        except (OSError, ValueError, pydantic_core.PydanticSerializationError):
            self.lines, self.scores = {}, {}

    def copy(self, key: tuple[int, str, int], writer: RunWriter) -> bool:
        """Append ``key``'s record to ``writer`` copied (see the class docstring); ``False``
        when it cannot be."""
        found, rest = self.lines.get(key), self.scores.get(key)
        if found is None or rest is None or self._fd is None:
            return False
        offset, length, index_line = found
        set_index, case_id, run_index = key
        try:
            record = os.pread(self._fd, length, offset)
            case_json, key_json = pydantic_core.to_json(case_id), pydantic_core.to_json(list(key))
        except (OSError, ValueError, pydantic_core.PydanticSerializationError):
            return False
        index_head = b'{"key":' + key_json + b',"at":[%d,%d]' % (offset, length)
        old, new = self._heads
        if len(record) != length or not record.startswith(old) or not record.endswith(b"\n"):
            return False
        if not index_line.startswith(index_head) or not index_line.endswith(b"\n"):
            return False
        index_rest = index_line[len(index_head) : -1]
        if not all(map(_utf8, (record, index_rest, rest))):  # damaged by hand: read as a model
            return False
        writer.append_lines(
            key,
            new + record[len(old) :],
            lambda at, size: b'{"key":' + key_json + b',"at":[%d,%d]' % (at, size) + index_rest,
            lambda at, size: b"[%d," % set_index + case_json + b",%d,%d,%d," % (run_index, at, size) + rest,
        )
        return True

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _utf8(data: bytes) -> bool:
    """Whether ``data`` is UTF-8 as the writer writes it (lone surrogates passed through)."""
    if data.isascii():
        return True
    try:
        data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return False
    return True
