"""The plan: everything a run will do, decided before it starts.

A ``Plan`` says which cases of which eval sets run under which criteria (its
``PlannedSet``s), where their actual turns come from (the agent, or recorded turns:
``agenteval._run._recorded``), and how many runs each case gets (a fixed number, or
``--num-runs auto``'s looks: ``agenteval._auto_runs``). It is made by the planners
(``agenteval._run._planners``), which check every input first, and is frozen.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from .._agents import Agent
from .._auto_runs import look_confidence
from .._loading import EvalConfig
from .._loading._statistics import StatisticsConfig
from .._resolve import ResolvedCriterion
from ..errors import DataError
from ..models import EvalCase, EvalSet
from ..runs import CriterionEntry, EvalSetEntry, InputFile
from ._files import EvalFiles
from ._recorded import Outcome, RecordedTurns

__all__ = ["Plan", "PlannedSet"]


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

    @functools.cached_property
    def scored(self) -> tuple[tuple[ResolvedCriterion, CriterionEntry], ...]:
        """Each criterion with its entry (made once: every unit of the set asks for them)."""
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
        each look's share of it (``agenteval._auto_runs.look_confidence``)."""
        if confidence is None or not self.looks:
            return confidence
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
