"""``run_summary(run)``: the run header and one entry per criterion (pass rate, mean, the
engine's intervals when ``summary.json`` has them, a score histogram, NOT_EVALUATED and
ERRORED counts by reason code, a rubric table, the calibration card) — ``docs/viewer.md``,
"summary"."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any, Optional

from agenteval.calibration import read_cards
from agenteval.plugins import rerun_command
from agenteval.runs import RecordedRun

from ._scan import Scan, scan

__all__ = ["HISTOGRAM_BINS", "SUMMARY_SCHEMA", "run_summary"]

SUMMARY_SCHEMA = "agenteval.viewer.summary/1"
HISTOGRAM_BINS = 10


def _duration(started: Optional[str], finished: Optional[str]) -> Optional[float]:
    if not started or not finished:
        return None
    try:
        return round((datetime.fromisoformat(finished) - datetime.fromisoformat(started)).total_seconds(), 3)
    except ValueError:
        return None


def _histogram(scores: list[float], low: Optional[float], high: Optional[float]) -> Optional[dict]:
    """``HISTOGRAM_BINS`` equal bins over the criterion's range (else the scores' own),
    each score counted once (one outside the range in the nearest end bin). An empty or
    upside-down range is widened above ``lo`` by at least 1, or by ``|lo|`` where adding 1
    would change nothing (a range far from 0)."""
    if not scores:
        return None
    lo = low if low is not None else min(scores)
    hi = high if high is not None else max(scores)
    if not hi > lo:
        hi = lo + max(1.0, abs(lo))
    counts = [0] * HISTOGRAM_BINS
    span = hi - lo
    for value in scores:
        # scaled before the division: (0.3 - 0) / 0.1 is 2.9999999999999996, a bin too low
        place = (value - lo) * HISTOGRAM_BINS / span  # not finite only past the largest float
        index = int(place) if math.isfinite(place) else HISTOGRAM_BINS - 1 if place > 0 else 0
        counts[min(max(index, 0), HISTOGRAM_BINS - 1)] += 1
    return {"low": lo, "high": hi, "counts": counts}


def _interval(info: Any) -> Optional[dict[str, Any]]:
    if info is None:
        return None
    return {
        "low": info.low,
        "high": info.high,
        "method": info.method,
        "level": info.level,
        "n": info.n,
        "estimate": getattr(info, "estimate", None),
    }


def _set_statistics(written: Any) -> dict[str, list[dict[str, Any]]]:
    """Per criterion, the engine's per-eval-set statistics from ``summary.json`` (when the
    engine records them)."""
    found: dict[str, list[dict[str, Any]]] = {}
    eval_sets = (getattr(written.summary, "eval_sets", None) or []) if written is not None else []
    for eval_set in eval_sets:
        for item in eval_set.criteria:
            found.setdefault(item.criterion, []).append(
                {
                    "eval_set_id": eval_set.eval_set_id,
                    "n_cases": item.n_cases,
                    "verdict": item.verdict,
                    "verdict_rule": getattr(item, "verdict_rule", None),
                    "verdict_reason": getattr(item, "verdict_reason", None),
                    "guarantee": getattr(item, "guarantee", None),
                    "verdict_counts": dict(item.verdict_counts),
                    "mean": _interval(item.mean),
                    "pass_rate": _interval(item.pass_rate),
                    "flaky_cases": item.flaky_cases,
                }
            )
    return found


def _budget(written: Any) -> Optional[dict[str, Any]]:
    """The run's judge budgets and their use (``summary.budget``), when it had any."""
    budget = getattr(written.summary, "budget", None) if written is not None else None
    return None if budget is None else budget.model_dump(mode="json")


def _judge_cost(written: Any) -> Optional[dict[str, Any]]:
    """What the judge calls cost at the config's prices (``summary.judge_cost``), if priced."""
    return _dumped(getattr(written.summary, "judge_cost", None) if written is not None else None)


def _dumped(record: Any) -> Optional[dict[str, Any]]:
    return None if record is None else record.model_dump(mode="json")


def run_summary(run: RecordedRun, scanned: Optional[Scan] = None) -> dict[str, Any]:
    """The run header and the criteria panel (``docs/viewer.md``, "summary")."""
    scanned = scanned or scan(run)
    manifest = run.manifest
    written = run.summary()
    judge = written.summary.judge if written is not None else None
    entries: dict[str, Any] = {}
    judge_models: list[str] = []
    for entry in manifest.eval_sets:
        for criterion in entry.criteria:
            entries.setdefault(criterion.name, criterion)
            for model in criterion.judge_models:
                if model not in judge_models:
                    judge_models.append(model)
    statistics = _set_statistics(written)
    cards = read_cards(run)
    spent = {c.criterion: c for c in written.summary.criteria} if written is not None else {}
    criteria = []
    for name, agg in scanned.criteria.items():
        entry = entries[name]
        total = sum(agg.counts.values())
        passed = agg.counts["PASSED"]
        stats = statistics.get(name, [])
        criteria.append(
            {
                "name": name,
                "version": entry.version,
                "distribution": entry.distribution,
                "threshold": entry.threshold,
                "informational": entry.informational,
                "higher_is_better": entry.higher_is_better,
                "min_score": entry.min_score,
                "max_score": entry.max_score,
                "judge_models": list(entry.judge_models),
                "total": total,
                "counts": agg.counts,
                "pass_rate": None if entry.informational or not total else passed / total,
                "mean": math.fsum(agg.scores) / len(agg.scores) if agg.scores else None,  # any order
                "scored": len(agg.scores),
                "pass_rate_interval": stats[0]["pass_rate"] if len(stats) == 1 else None,
                "mean_interval": stats[0]["mean"] if len(stats) == 1 else None,
                "eval_sets": stats,
                "calibration": cards[name].model_dump(mode="json") if name in cards else None,
                "calibration_gate": entry.calibration.model_dump(mode="json") if entry.calibration else None,
                # the criterion's judge calls and tokens over the run, and their cost if priced
                "judge": _dumped(getattr(spent.get(name), "judge", None)),
                "judge_cost": _dumped(getattr(spent.get(name), "judge_cost", None)),
                "verdicts": agg.verdicts,
                "histogram": _histogram(agg.scores, entry.min_score, entry.max_score),
                "not_evaluated": agg.reasons["NOT_EVALUATED"],
                "errored": agg.reasons["ERRORED"],
                "rubrics": [
                    {
                        "rubric_id": rid,
                        "text": scanned.rubric_texts.get(rid, ""),
                        "fails": fails,
                        "total": count,
                        "never_fails": fails == 0,
                    }
                    for rid, (fails, count) in sorted(agg.rubrics.items(), key=lambda kv: (-kv[1][0], kv[0]))
                ],
            }
        )
    counts = scanned.counts
    worst = next((s for s in ("FAILED", "ERRORED", "NOT_EVALUATED") if counts[s]), None)
    status = worst or "PASSED"
    tokens = None
    if judge is not None:
        tokens = {
            "calls": judge.calls,
            "cache_hits": judge.cache_hits,
            "retries": judge.retries,
            "failures": dict(judge.failures),
            "input_tokens": judge.input_tokens,
            "output_tokens": judge.output_tokens,
        }
    return {
        "schema": SUMMARY_SCHEMA,
        "run_id": run.run_id,
        "state": manifest.state.value,
        "started_at": manifest.started_at,
        "finished_at": manifest.finished_at,
        "duration_s": _duration(manifest.started_at, manifest.finished_at),
        "agent": manifest.agent,
        "actual_files": [f.path for f in manifest.actual_files],
        "eval_sets": [
            {
                "index": e.index,
                "eval_set_id": e.eval_set_id,
                "path": e.path,
                "sha256": e.sha256,
                "cases": len(e.case_ids),
            }
            for e in manifest.eval_sets
        ],
        "num_runs": manifest.num_runs,
        "engine_version": manifest.engine_version,
        "distributions": dict(manifest.distributions),
        "git_commit": manifest.git_commit,
        "judge_models": judge_models,
        "judge": tokens,
        "budget": _budget(written),
        "judge_cost": _judge_cost(written),
        "status": status,
        "verdict": "RUNNING" if scanned.pending else "PASS" if status == "PASSED" else "FAIL",
        "counts": counts,
        "cases": len(scanned.status),
        "cases_recorded": scanned.recorded,
        "inconclusive": sum(agg.verdicts.get("INCONCLUSIVE", 0) for agg in scanned.criteria.values()),
        "warnings": list(manifest.warnings),
        "rerun": rerun_command(run),
        "criteria": criteria,
    }
