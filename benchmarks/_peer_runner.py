"""The peer side of ``peers.py``: one tool scores every case's trajectory, in its own interpreter.

Run by ``peers.py`` with the interpreter of a virtual environment that holds the tool; it must
not import agenteval, which that environment lacks::

    PYTHON benchmarks/_peer_runner.py TOOL MANIFEST.json VERDICTS.json

TOOL is one of:

* ``agentevals`` — LangChain agentevals' ``create_trajectory_match_evaluator`` in ``strict``
  mode with ``tool_args_match_mode="exact"``, over OpenAI-style messages built from each
  invocation (the user's text, one assistant message per tool call with its tool message, the
  final answer);
* ``deepeval`` — DeepEval's ``ToolCorrectnessMetric(should_exact_match=True,
  evaluation_params=[INPUT_PARAMETERS], threshold=1)``, synchronous, no reason (no model call:
  ``available_tools`` is not given, so the metric never asks an LLM);
* ``adk`` — google-adk's ``TrajectoryEvaluator`` (EXACT, threshold 1) over eval sets loaded
  with ADK's own ``load_eval_set_from_file``.

Each reads the files the way its users would (plain ``json.load`` for the first two), scores
every invocation of every expected case against the actual case with the same ``eval_id``, and
writes ``{eval_id: passed}`` (a case passes when every invocation does) to VERDICTS.json, so
``peers.py`` can check that every tool reached the same verdicts. Everything is inside the
timed process, imports included: the figure is what a user waits for.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

Calls = list[tuple[str, dict[str, Any]]]


def _text(content: Any) -> str:
    if not isinstance(content, dict):
        return ""
    return "".join(part.get("text") or "" for part in content.get("parts") or [] if isinstance(part, dict))


def calls_of(invocation: dict[str, Any]) -> Calls:
    """The invocation's tool calls, ``(name, args)`` in order, from either ADK form."""
    data = invocation.get("intermediate_data") or {}
    if "tool_uses" in data:
        return [(use["name"], use.get("args") or {}) for use in data["tool_uses"]]
    calls: Calls = []
    for event in data.get("invocation_events") or []:
        for part in (event.get("content") or {}).get("parts") or []:
            call = part.get("function_call")
            if call:
                calls.append((call["name"], call.get("args") or {}))
    return calls


def invocation_pairs(manifest: dict[str, Any]) -> Iterator[tuple[str, list[tuple[dict, dict]]]]:
    """Per expected case: its id and its (expected, actual) invocations, paired by position."""
    for pair in manifest["pairs"]:
        with open(pair["expected"], encoding="utf-8") as handle:
            expected = json.load(handle)
        with open(pair["actual"], encoding="utf-8") as handle:
            actual = {case["eval_id"]: case for case in json.load(handle)["eval_cases"]}
        for case in expected["eval_cases"]:
            recorded = actual[case["eval_id"]]["conversation"]
            yield case["eval_id"], list(zip(case["conversation"], recorded, strict=True))


def messages(invocation: dict[str, Any]) -> list[dict[str, Any]]:
    """OpenAI-style messages for one invocation, as LangChain agentevals reads them."""
    built: list[dict[str, Any]] = [{"role": "user", "content": _text(invocation.get("user_content"))}]
    for index, (name, args) in enumerate(calls_of(invocation)):
        call_id = f"call_{index}"
        built.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": call_id, "function": {"name": name, "arguments": json.dumps(args)}}],
            }
        )
        built.append({"role": "tool", "tool_call_id": call_id, "content": ""})
    built.append({"role": "assistant", "content": _text(invocation.get("final_response"))})
    return built


def _agentevals() -> Callable[[dict, dict], bool]:
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    evaluator = create_trajectory_match_evaluator(
        trajectory_match_mode="strict", tool_args_match_mode="exact"
    )

    def passed(expected: dict, actual: dict) -> bool:
        return bool(evaluator(outputs=messages(actual), reference_outputs=messages(expected))["score"])

    return passed


def _deepeval() -> Callable[[dict, dict], bool]:
    import os

    os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
    # The metric builds its (unused) judge model on construction, which insists on a key.
    os.environ.setdefault("OPENAI_API_KEY", "sk-unused-no-model-is-called")
    from deepeval.metrics import ToolCorrectnessMetric
    from deepeval.test_case import LLMTestCase, ToolCall, ToolCallParams

    metric = ToolCorrectnessMetric(
        evaluation_params=[ToolCallParams.INPUT_PARAMETERS],
        should_exact_match=True,
        threshold=1.0,
        async_mode=False,
        include_reason=False,
    )

    def tools(invocation: dict) -> list[Any]:
        return [ToolCall(name=name, input_parameters=args) for name, args in calls_of(invocation)]

    def passed(expected: dict, actual: dict) -> bool:
        case = LLMTestCase(
            input=_text(actual.get("user_content")) or "-",
            actual_output=_text(actual.get("final_response")) or "-",
            tools_called=tools(actual),
            expected_tools=tools(expected),
        )
        metric.measure(case, _show_indicator=False)
        return bool(metric.success)

    return passed


def _adk(manifest: dict[str, Any]) -> dict[str, bool]:
    from google.adk.evaluation.eval_metrics import EvalMetric, ToolTrajectoryCriterion
    from google.adk.evaluation.local_eval_sets_manager import load_eval_set_from_file
    from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator

    criterion = ToolTrajectoryCriterion(threshold=1.0, match_type=ToolTrajectoryCriterion.MatchType.EXACT)
    metric = EvalMetric(metric_name="tool_trajectory_avg_score", criterion=criterion)
    verdicts: dict[str, bool] = {}
    for pair in manifest["pairs"]:
        expected = load_eval_set_from_file(pair["expected"], "expected")
        actual = {
            case.eval_id: case.conversation
            for case in load_eval_set_from_file(pair["actual"], "actual").eval_cases
        }
        for case in expected.eval_cases:
            result = TrajectoryEvaluator(eval_metric=metric).evaluate_invocations(
                actual_invocations=actual[case.eval_id], expected_invocations=case.conversation
            )
            verdicts[case.eval_id] = result.overall_score is not None and result.overall_score >= 1.0
    return verdicts


def main() -> int:
    tool, manifest_path, out_path = sys.argv[1:4]
    with open(manifest_path, encoding="utf-8") as handle:
        manifest = json.load(handle)
    if tool == "adk":
        verdicts = _adk(manifest)
    else:
        passed = {"agentevals": _agentevals, "deepeval": _deepeval}[tool]()
        verdicts = {
            eval_id: all(passed(expected, actual) for expected, actual in invocations)
            for eval_id, invocations in invocation_pairs(manifest)
        }
    with open(out_path, "w", encoding="utf-8") as handle:
        json.dump(verdicts, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
