"""``--shard I/N``: a stable slice of a plan, for runs spread over machines with no runtime.

A case belongs to shard ``shard_of(eval_set_id, case_id, N)``: the first 8 bytes of the
sha256 of ``"<eval_set_id>\\0<case_id>"`` as a big-endian integer, modulo ``N``, plus one. It
depends on nothing but the two ids and ``N``, so every machine given the same inputs makes
the same slices, whatever the order of the files or the paths they sit at; every run of a
case goes to its case's shard (the statistics over runs stay whole). The shards of a plan
are its partition: each case is in exactly one.

A shard's run folder records ``Manifest.shard`` (``ShardInfo``): its index and count, the
whole plan's fingerprint and case ids, so ``agenteval merge`` can check the shards are of
one plan, all there, and write the run one process would have written.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from ._plan import Plan

__all__ = ["ShardInfo", "parse_shard", "shard_of", "shard_plan"]

_SPELLING = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


def parse_shard(text: str) -> tuple[int, int]:
    """``"I/N"`` as ``(I, N)`` with ``1 <= I <= N``; ``ConfigError`` otherwise."""
    found = _SPELLING.fullmatch(text)
    index, count = (int(found.group(1)), int(found.group(2))) if found else (0, 0)
    if not found or not 1 <= index <= count:
        raise ConfigError(
            f"--shard {text!r}: give I/N, the shard I of N counted from 1 (1 <= I <= N), "
            "e.g. --shard 2/4; from a Kubernetes Indexed Job: --shard $((JOB_COMPLETION_INDEX + 1))/N"
        )
    return index, count


def shard_of(eval_set_id: str, case_id: str, count: int) -> int:
    """The shard (1 to ``count``) a case belongs to (see the module docstring)."""
    digest = hashlib.sha256(f"{eval_set_id}\0{case_id}".encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


@dataclass(frozen=True)
class ShardInfo:
    """Which slice of which plan a run is (``Manifest.shard``, as ``record()``)."""

    index: int
    count: int
    #: The whole plan's inputs fingerprint (``Plan.fingerprint``): the same for every shard.
    plan_fingerprint: str
    #: The whole plan's case ids, by eval set (in plan order).
    plan_case_ids: tuple[tuple[str, ...], ...]
    #: ``--fail-on-inconclusive``, which the merged run's exit code applies.
    fail_on_inconclusive: bool = False

    def record(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "count": self.count,
            "plan_fingerprint": self.plan_fingerprint,
            "plan_case_ids": [list(ids) for ids in self.plan_case_ids],
            "fail_on_inconclusive": self.fail_on_inconclusive,
        }


def shard_plan(plan: Plan, index: int, count: int, *, fail_on_inconclusive: bool = False) -> Plan:
    """The cases of ``plan`` in shard ``index`` of ``count`` (every eval set stays, maybe
    empty, so set indices are the whole plan's), with what the shard's manifest records
    (``Plan.shard``). ``ConfigError`` under ``--run-budget``: one budget over the whole
    plan cannot be split."""
    if plan.run_budget is not None:
        raise ConfigError(
            "--shard cannot be combined with --run-budget (one budget spans the whole plan, "
            "which no shard sees); give each shard fixed --num-runs, or --num-runs auto without a budget"
        )
    info = ShardInfo(
        index=index,
        count=count,
        plan_fingerprint=plan.fingerprint(),
        plan_case_ids=tuple(s.case_ids for s in plan.sets),
        fail_on_inconclusive=fail_on_inconclusive,
    )
    sets = tuple(
        dataclasses.replace(
            planned,
            case_ids=tuple(c for c in planned.case_ids if shard_of(planned.eval_set_id, c, count) == index),
        )
        for planned in plan.sets
    )
    return dataclasses.replace(plan, sets=sets, shard=info)
