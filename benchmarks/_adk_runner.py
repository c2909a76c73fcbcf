"""The ADK side of ``throughput.py``: the same work through google-adk 2.13's own evaluators.

Run by ``throughput.py --adk-python PATH`` with an interpreter that has google-adk (and
rouge-score) installed; it must not import agenteval, which that interpreter lacks::

    PATH benchmarks/_adk_runner.py MANIFEST.json '{"label": {"metric": ..., "threshold": ...}}' [REPEAT]

For each metric it times what ADK does between reading eval files and holding results:

* load every expected and actual file with ADK's ``load_eval_set_from_file``;
* per eval case, as ``LocalEvalService._evaluate_metric`` does: get a fresh evaluator
  for the ``EvalMetric`` and call ``evaluate_invocations(actual, expected, scenario)``
  (awaiting it if needed), which scores every invocation and averages them. An exception
  counts as NOT_EVALUATED, as in ADK. The evaluator comes from
  ``DEFAULT_METRIC_EVALUATOR_REGISTRY`` when that module imports; it also imports the
  Vertex facades, which need pandas, so without pandas the runner constructs the same
  classes the registry maps these metrics to (``Cls(eval_metric=...)``, which is all
  ``get_evaluator`` does for them), and ``response_match_score`` goes straight to the
  ``RougeEvaluator`` that ``ResponseEvaluator`` delegates to.

Session handling, inference and result persistence are left out, so the ADK figures are
a lower bound on ADK's real cost. One case per metric is evaluated first, untimed, so
import costs are excluded as on the agenteval side. With REPEAT, each metric is timed that
many times and the fastest run is kept. Prints one JSON document on stdout.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import resource
import sys
import time
from typing import Any, Optional


def _metric(spec: dict[str, Any]) -> Any:
    from google.adk.evaluation.eval_metrics import EvalMetric, ToolTrajectoryCriterion

    name = spec["metric"]
    if "match_type" in spec:
        criterion = ToolTrajectoryCriterion(
            threshold=spec["threshold"],
            match_type=ToolTrajectoryCriterion.MatchType[spec["match_type"]],
        )
        return EvalMetric(metric_name=name, criterion=criterion)
    return EvalMetric(metric_name=name, threshold=spec.get("threshold"))


class _DirectRegistry:
    """The registry's mapping for the metrics benchmarked, without the pandas import.

    ``ResponseEvaluator`` also imports the Vertex facade (pandas); for
    ``response_match_score`` it only builds ``RougeEvaluator(EvalMetric(name, threshold))``
    on each ``evaluate_invocations`` call and delegates, which ``_ResponseMatch`` repeats.
    """

    def __init__(self) -> None:
        from google.adk.evaluation._efficiency_evaluators import _ToolCallCountV1Evaluator
        from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator

        self._classes = {
            "tool_trajectory_avg_score": TrajectoryEvaluator,
            "response_match_score": _ResponseMatch,
            "tool_call_count_v1": _ToolCallCountV1Evaluator,
        }

    def get_evaluator(self, eval_metric: Any) -> Any:
        return self._classes[eval_metric.metric_name](eval_metric=eval_metric)


class _ResponseMatch:
    """ADK's ``ResponseEvaluator`` for ``response_match_score``, minus its Vertex import."""

    def __init__(self, eval_metric: Any) -> None:
        from google.adk.evaluation.eval_metrics import _get_metric_threshold

        self._name = eval_metric.metric_name
        self._threshold = _get_metric_threshold(eval_metric)

    def evaluate_invocations(
        self, actual_invocations: Any, expected_invocations: Any = None, conversation_scenario: Any = None
    ) -> Any:
        from google.adk.evaluation.eval_metrics import EvalMetric
        from google.adk.evaluation.final_response_match_v1 import RougeEvaluator

        rouge = RougeEvaluator(EvalMetric(metric_name=self._name, threshold=self._threshold))
        return rouge.evaluate_invocations(actual_invocations, expected_invocations, conversation_scenario)


def _registry() -> tuple[Any, str]:
    try:
        from google.adk.evaluation.metric_evaluator_registry import DEFAULT_METRIC_EVALUATOR_REGISTRY
    except ImportError as exc:
        why = f"{type(exc).__name__}: {exc}"
        return _DirectRegistry(), f"direct construction (the registry module failed to import: {why})"
    return DEFAULT_METRIC_EVALUATOR_REGISTRY, "DEFAULT_METRIC_EVALUATOR_REGISTRY"


def _evaluate_case(registry: Any, metric: Any, case: Any, actual: list) -> Optional[float]:
    try:
        evaluator = registry.get_evaluator(eval_metric=metric)
        result = evaluator.evaluate_invocations(
            actual_invocations=actual,
            expected_invocations=case.conversation,
            conversation_scenario=case.conversation_scenario,
        )
        if inspect.isawaitable(result):
            result = asyncio.run(result)
    except Exception:  # ADK records NOT_EVALUATED and goes on
        return None
    return result.overall_score


def _run(manifest: dict[str, Any], metric: Any, registry: Any, limit: Optional[int] = None) -> dict[str, Any]:
    from google.adk.evaluation.local_eval_sets_manager import load_eval_set_from_file

    loading = evaluating = 0.0
    scores = []
    failures = 0
    for pair in manifest["pairs"]:
        started = time.perf_counter()
        expected = load_eval_set_from_file(pair["expected"], "expected")
        actual = load_eval_set_from_file(pair["actual"], "actual")
        loaded = time.perf_counter()
        actual_by_id = {case.eval_id: case.conversation for case in actual.eval_cases}
        for case in expected.eval_cases[:limit]:
            score = _evaluate_case(registry, metric, case, actual_by_id[case.eval_id])
            if score is None:
                failures += 1
            else:
                scores.append(score)
        evaluating += time.perf_counter() - loaded
        loading += loaded - started
        if limit is not None:
            break
    mean = sum(scores) / len(scores) if scores else None
    return {"load_seconds": loading, "evaluate_seconds": evaluating, "mean_score": mean, "failures": failures}


def main() -> int:
    manifest_path, specs_json = sys.argv[1], sys.argv[2]
    repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    with open(manifest_path, encoding="utf-8") as handle:
        manifest = json.load(handle)
    specs = json.loads(specs_json)

    import google.adk

    registry, route = _registry()
    metrics = {label: _metric(spec) for label, spec in specs.items()}
    for metric in metrics.values():  # warm-up: imports and first-call costs, untimed
        _run(manifest, metric, registry, limit=1)
    results = {}
    for label, metric in metrics.items():
        runs = [_run(manifest, metric, registry) for _ in range(repeat)]
        outcome = min(runs, key=lambda run: run["load_seconds"] + run["evaluate_seconds"])
        if outcome.pop("failures"):
            print(f"{label}: some cases were NOT_EVALUATED by ADK (an evaluator raised)", file=sys.stderr)
            return 1
        results[label] = outcome
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    report = {
        "adk_version": f"google-adk {google.adk.__version__}",
        "route": route,
        "results": results,
        "peak_rss_kb": peak,
    }
    json.dump(report, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
