"""The run folder's records: ``manifest.json``, one ``results.jsonl`` line per case × run,
``summary.json``. This is a public, versioned schema (``docs/run-folder.md``).

Records are pydantic models; extra keys are ignored when reading so that a newer writer's
additions never break an older reader of the same major schema version.
"""

from __future__ import annotations

import enum
import functools
import hashlib
from typing import Any, Optional

import pydantic_core
from pydantic import BaseModel, ConfigDict, Field

from .._jsonsafe import dump_model
from .._results import AgentRunRecord, CriterionResult, ErrorInfo, RunSummary, Status
from ..models import Invocation

__all__ = [
    "MANIFEST_SCHEMA",
    "RECORD_SCHEMA",
    "SUMMARY_SCHEMA",
    "CalibrationGate",
    "CaseRecord",
    "CriterionEntry",
    "EvalSetEntry",
    "InputFile",
    "Manifest",
    "RunState",
    "SummaryDocument",
    "summary_digest",
]

MANIFEST_SCHEMA = "agenteval.run/1"
RECORD_SCHEMA = "agenteval.record/1"
SUMMARY_SCHEMA = "agenteval.summary/1"


class _Doc(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class RunState(str, enum.Enum):
    """Where a run is: still going, finished, or stopped before the end."""

    RUNNING = "running"
    COMPLETE = "complete"
    INTERRUPTED = "interrupted"
    #: stopped by an error of its own (disk full, bad input found mid-run): what was
    #: written before is kept.
    FAILED = "failed"


class CalibrationGate(_Doc):
    """The calibration gate's finding for a gating judge criterion (``statistics.calibration``,
    ``--calibration``), made when the run was planned: the card found for it in
    ``cards_file`` (its ``kappa`` and κ interval's ``kappa_low``, ``n`` labels, the run it
    was made from and the ``prompt_sha256`` it is bound to), the floor ``min_kappa`` (on
    κ's lower bound), and ``problem``: why its verdicts cannot be trusted (no card, a stale
    card naming what changed, κ below the floor; ``None``: current). ``reason_code`` is
    ``calibration_missing``, ``calibration_stale`` or ``calibration_below_floor``. A
    result whose ``details["prompt_sha256"]`` differs from the card's is stale too."""

    cards_file: str
    min_kappa: Optional[float] = None
    kappa: Optional[float] = None
    kappa_low: Optional[float] = None
    kappa_high: Optional[float] = None
    n: Optional[int] = None
    card_run_id: Optional[str] = None
    prompt_sha256: Optional[str] = None
    problem: Optional[str] = None
    reason_code: Optional[str] = None


class CriterionEntry(_Doc):
    """One criterion as the run applied it to an eval set."""

    name: str
    distribution: str
    version: str
    entry_point: str
    threshold: Optional[float]
    params: dict[str, Any] = Field(default_factory=dict)
    higher_is_better: bool = True
    informational: bool = False
    min_score: Optional[float] = 0.0
    max_score: Optional[float] = 1.0
    requires_judge: bool = False
    #: its ``EvaluatorInfo.shows_trajectory``: reports show tool calls as its evidence.
    shows_trajectory: bool = False
    #: the judge models it calls (``gemini-2.5-flash``, ``openai:gpt-4o``...), when any.
    judge_models: list[str] = Field(default_factory=list)
    #: whatever the evaluator says about itself for provenance (prompt version, hash...).
    describe: dict[str, Any] = Field(default_factory=dict)
    #: The calibration gate's finding, when the run has one (``statistics.calibration``).
    calibration: Optional[CalibrationGate] = None


class EvalSetEntry(_Doc):
    """One eval set (file) of the run, and what was applied to it."""

    index: int
    eval_set_id: str
    path: Optional[str] = None
    sha256: Optional[str] = None
    #: the selected cases, in run order.
    case_ids: list[str]
    config: Optional[str] = None
    criteria: list[CriterionEntry]


class InputFile(_Doc):
    """A recorded-actuals input (``--actual``): its path and content hash."""

    path: str
    sha256: Optional[str] = None


class Manifest(_Doc):
    """``manifest.json``: what the run is, written at start and replaced at the end."""

    schema_: str = Field(MANIFEST_SCHEMA, alias="schema")
    run_id: str
    state: RunState = RunState.RUNNING
    started_at: str
    finished_at: Optional[str] = None
    engine_version: str
    #: every distribution that took part (the engine and the plugins used), by version.
    distributions: dict[str, str] = Field(default_factory=dict)
    argv: list[str] = Field(default_factory=list)
    cwd: Optional[str] = None
    git_commit: Optional[str] = None
    eval_sets: list[EvalSetEntry] = Field(default_factory=list)
    actual_files: list[InputFile] = Field(default_factory=list)
    #: the ``--agent`` target and the adapter that ran it, else ``None``.
    agent: Optional[dict[str, Any]] = None
    #: Runs per case: every case's (``fixed``), or the most a case may get (``auto``).
    num_runs: int = Field(default=1, ge=1)
    #: ``fixed`` (every case gets ``num_runs``) or ``auto`` (``--num-runs auto``: a case
    #: gets runs up to each of ``looks`` in turn while its verdict is undecided, so it may
    #: have fewer than ``num_runs``; runs it never needed are not missing).
    num_runs_policy: str = "fixed"
    #: ``auto``: the planned looks (runs at which a case's verdict is checked).
    looks: list[int] = Field(default_factory=list)
    #: ``auto``: the most agent runs of the whole run (``--run-budget``), if capped.
    run_budget: Optional[int] = None
    #: The level of the per-case tri-state verdicts' intervals (``None``: no statistics);
    #: ``auto``: each look's level, 1 - (1 - set_confidence) / len(looks).
    confidence: Optional[float] = Field(default=0.95, gt=0, lt=1)
    #: ``auto``: the level asked for, which the eval sets' statistics use (``None``:
    #: ``confidence``).
    set_confidence: Optional[float] = Field(default=None, gt=0, lt=1)
    #: The eval sets' verdict rule (``statistics.set_verdict``; ``agenteval._stats.set_verdict``).
    set_verdict: str = "holm"
    #: Judge model -> ``{"input_per_mtok", "output_per_mtok"}`` (``statistics.judge_prices``):
    #: the prices of the summary's ``judge_cost``.
    judge_prices: dict[str, dict[str, float]] = Field(default_factory=dict)
    #: sha256 over everything that decides what a case's result is (eval files, criteria,
    #: thresholds, params, agent target, num_runs): ``--resume`` refuses a changed input.
    inputs_fingerprint: str = ""
    #: What ran the units (``--executor``): its ``name``, ``distribution``, ``version`` and
    #: number of ``workers`` (``None``: an older engine, which ran them in one process).
    executor: Optional[dict[str, Any]] = None
    #: ``--shard I/N``: this run is slice ``index`` of ``count`` of a plan (``ShardInfo``).
    shard: Optional[dict[str, Any]] = None
    #: ``agenteval merge``: the run ids of the shards this run was merged from.
    merged_from: list[str] = Field(default_factory=list)
    #: the run this one resumed, if any; and the signal that stopped it, if any.
    resumed_from: Optional[str] = None
    stopped_by: Optional[str] = None
    exit_code: Optional[int] = None
    error: Optional[str] = None
    warnings: list[str] = Field(default_factory=list)
    #: ``2``: ``index.jsonl`` is kept in step with ``results.jsonl`` by its writer (``--resume``
    #: first drops the lines that do not match their records), so a reader checks each line
    #: against its record only when ``results.jsonl`` changed after the index. ``1`` (older
    #: engines, whose resume could leave stale lines): every line is checked.
    index_version: int = 1

    def dump(self) -> str:
        return dump_model(self, by_alias=True, indent=2) + "\n"


class CaseRecord(_Doc):
    """One line of ``results.jsonl``: one case under one run of the agent (``run_index``
    from 1). Flat keys first, so ``jq``, pandas and duckdb filter without unnesting."""

    # its validator is built when first used: a reader of a run's summary or scores alone
    # never parses a record, and the CLI starts without building it
    model_config = ConfigDict(extra="ignore", populate_by_name=True, defer_build=True)

    schema_: str = Field(RECORD_SCHEMA, alias="schema")
    run_id: str
    eval_set_index: int
    eval_set_id: str
    eval_set_file: Optional[str] = None
    case_id: str
    run_index: int = 1
    status: Status
    reason: Optional[str] = None
    reason_code: Optional[str] = None
    duration_s: float = 0.0
    scores: dict[str, Optional[float]] = Field(default_factory=dict)
    statuses: dict[str, Status] = Field(default_factory=dict)
    criteria: list[CriterionResult] = Field(default_factory=list)
    #: the case's expected turns (``None`` for a conversation scenario).
    expected: Optional[list[Invocation]] = None
    #: what the agent did in this run (or what the ``--actual`` file holds): its turns,
    #: or why there are none.
    actual: Optional[AgentRunRecord] = None
    #: how this run's actual turns were obtained: ``agent`` or ``recorded``.
    origin: str = "recorded"
    error: Optional[ErrorInfo] = None

    @property
    def key(self) -> tuple[int, str, int]:
        """What identifies a record: the last line for a key wins."""
        return (self.eval_set_index, self.case_id, self.run_index)

    def dump(self) -> str:
        return record_line(self).decode("utf-8", "surrogatepass")


def record_line(record: CaseRecord) -> bytes:
    """``record``'s ``results.jsonl`` line as UTF-8, by pydantic's fast encoder straight to
    bytes; when it refuses a value, ``dump_model``'s fallback (every field written). ``dump()``
    is this line decoded.

    The turns (``expected``, ``actual``) leave out every model field whose value is ``None``
    (``None`` inside a plain JSON value, such as a tool's arguments, stays): a turn's parts
    have seventeen fields and use one or two, so written out the unset ones made half of a
    line's bytes, and of every reader's parse. Each such field of a turn's models defaults to
    ``None``, so the line reads back as the same record. The fields around the turns are
    written whole (a ``reason`` of ``null`` is there for ``jq``)."""
    before, turns, after = _record_parts(type(record))
    serializer = type(record).__pydantic_serializer__
    try:
        parts = (
            serializer.to_json(record, by_alias=True, include=before)[:-1],  # '{"schema":...'
            serializer.to_json(record, by_alias=True, include=turns, exclude_none=True)[1:-1],
            serializer.to_json(record, by_alias=True, include=after)[1:-1],
        )
    except (pydantic_core.PydanticSerializationError, ValueError, RecursionError):
        return (dump_model(record, by_alias=True) + "\n").encode("utf-8", "surrogatepass")
    return b",".join([part for part in parts if part]) + b"}\n"


@functools.cache
def _record_parts(kind: type[CaseRecord]) -> tuple[set[str], set[str], set[str]]:
    """A record model's fields before its turns, its turns, and the fields after them (sets,
    as the encoder's ``include`` takes them; never changed)."""
    names = list(kind.model_fields)
    first, last = names.index("expected"), names.index("actual") + 1
    return set(names[:first]), set(names[first:last]), set(names[last:])


class SummaryDocument(_Doc):
    """``summary.json``: the run's summary, at the end and at interruption."""

    schema_: str = Field(SUMMARY_SCHEMA, alias="schema")
    run_id: str
    state: RunState
    summary: RunSummary
    cases_recorded: int
    cases_planned: int
    #: the sizes of ``results.jsonl`` and ``index.jsonl`` when the summary was written: a
    #: reader takes the summary as the run's only while the records are still those.
    results_bytes: Optional[int] = None
    index_bytes: Optional[int] = None
    #: the size of ``briefs.jsonl`` (a run of several runs per case: each finished case's
    #: combined brief) when the summary was written; ``None`` when the run wrote none.
    briefs_bytes: Optional[int] = None
    #: the size and sha256 of ``scores.jsonl`` when the summary was written (``None``: the
    #: run wrote none, or an older engine): readers list cases from it only while it is that.
    scores_bytes: Optional[int] = None
    scores_sha256: Optional[str] = None
    #: ``summary_digest`` of the document: a summary changed by anything but its writer
    #: does not check, and is recomputed from the records.
    sha256: Optional[str] = None

    def dump(self) -> str:
        return dump_model(self, by_alias=True, indent=2) + "\n"

    def sealed(self) -> str:
        """The document as its writer writes it: ``dump()`` with ``sha256`` set."""
        data = pydantic_core.from_json(self.dump())
        data["sha256"] = summary_digest(data)
        return pydantic_core.to_json(data, indent=2).decode("utf-8") + "\n"


def summary_digest(data: dict[str, Any]) -> str:
    """The sha256 of a ``summary.json`` document (plain JSON data) without its ``sha256``
    key: the same for the writer and any reader of the same content, whatever its spacing."""
    body = {key: value for key, value in data.items() if key != "sha256"}
    return hashlib.sha256(pydantic_core.to_json(body)).hexdigest()
