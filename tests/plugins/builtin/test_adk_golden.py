"""Equivalence with google-adk 2.13.0's own scores (within 1e-9).

The golden files are written by ``tests/fixtures/adk_golden/generate.py`` (run with a
scratch interpreter that has google-adk 2.13.0; see its docstring):

* ``synthetic.json``: seeded synthetic cases (inputs and ADK's scores per invocation and
  overall) for ``tool_trajectory_avg_score`` (every match type, with and without
  ``ignore_args``), ``response_match_score`` and ``tool_call_count_v1``; plus ADK's
  tokenizer output for a set of texts;
* ``real_evalsets.json``: ADK's scores of the real eval files in ``../shared/real-evalsets``
  (read in place, skipped when absent) against themselves and two perturbations.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import pytest
from agenteval import Evaluator, Score
from agenteval.models import Content, EvalSet, FunctionCall, IntermediateData, Invocation, Part
from agenteval_builtin._tokenizer import tokenize
from agenteval_builtin.response_match import ResponseMatchScore
from agenteval_builtin.tool_call_count import ToolCallCount
from agenteval_builtin.trajectory import ToolTrajectoryAvgScore
from agenteval_builtin_test_helpers import context

try:
    from agenteval import load_eval_set
except ImportError:  # pragma: no cover - an engine without the loader
    load_eval_set = None

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "adk_golden"
SYNTHETIC = json.loads((GOLDEN / "synthetic.json").read_text(encoding="utf-8"))
REAL = json.loads((GOLDEN / "real_evalsets.json").read_text(encoding="utf-8"))
TOLERANCE = 1e-9

EVALUATORS: dict[str, type[Evaluator]] = {
    "tool_trajectory_avg_score": ToolTrajectoryAvgScore,
    "response_match_score": ResponseMatchScore,
    "tool_call_count_v1": ToolCallCount,
}


def our_scores(actual: list[Invocation], expected: list[Invocation]) -> dict[str, Score]:
    out = {}
    for criterion in SYNTHETIC["criteria"]:
        cls = EVALUATORS[criterion["name"]]
        evaluator = cls(cls.Params.model_validate(criterion["params"]))
        out[criterion["key"]] = evaluator.evaluate(context(actual, expected, criterion["threshold"]))
    return out


def _close(ours: Optional[float], theirs: Optional[float]) -> bool:
    if ours is None or theirs is None:
        return ours is None and theirs is None
    return abs(ours - theirs) <= TOLERANCE


def mismatches(ours: dict[str, Score], adk: dict[str, Any]) -> list[str]:
    problems = []
    for key, theirs in adk.items():
        score = ours[key]
        mine = [s.score for s in score.per_invocation]
        if len(mine) != len(theirs["per_invocation"]) or not all(
            _close(a, b) for a, b in zip(mine, theirs["per_invocation"], strict=True)
        ):
            problems.append(f"{key}: per invocation {mine} != ADK {theirs['per_invocation']}")
        if not _close(score.value, theirs["overall"]):
            problems.append(f"{key}: overall {score.value} != ADK {theirs['overall']}")
    return problems


@pytest.mark.parametrize("case", SYNTHETIC["cases"], ids=[c["name"] for c in SYNTHETIC["cases"]])
def test_synthetic_case_matches_adk(case):
    actual = [Invocation.model_validate(i) for i in case["actual"]]
    expected = [Invocation.model_validate(i) for i in case["expected"]]
    assert mismatches(our_scores(actual, expected), case["adk_scores"]) == []


def test_synthetic_set_is_substantial():
    invocations = sum(len(c["actual"]) for c in SYNTHETIC["cases"])
    assert invocations >= 250
    assert SYNTHETIC["google_adk"] == "2.13.0"


def test_tokenizer_matches_adk():
    wrong = [
        (s["text"], list(tokenize(s["text"])), s["tokens"])
        for s in SYNTHETIC["tokenizer"]
        if list(tokenize(s["text"])) != s["tokens"]
    ]
    assert wrong == []
    assert len(SYNTHETIC["tokenizer"]) >= 200


# --- real eval files ------------------------------------------------------------------------

REAL_FILES = [f for f in REAL["files"] if "cases" in f]


def _load(path: Path, form: str) -> EvalSet:
    if load_eval_set is not None:
        return load_eval_set(path)
    if form != "new":  # pragma: no cover
        pytest.skip("legacy files need agenteval.load_eval_set")
    return EvalSet.model_validate_json(path.read_bytes())


def perturb(conversation: list[Invocation], how: str) -> list[Invocation]:
    """The actual side ``generate.py`` built for ``how`` (see its docstring)."""
    if how == "self":
        return conversation
    out = []
    for invocation in conversation:
        calls, text = invocation.tool_calls(), invocation.final_text()
        if how == "reverse_calls_halve_text":
            calls, text = calls[::-1], text[: len(text) // 2]
        elif how == "drop_first_call_reverse_words":
            calls, text = calls[1:] + calls[-1:], " ".join(reversed(text.split()))
        else:  # pragma: no cover
            raise ValueError(how)
        out.append(
            Invocation(
                user_content=invocation.user_content,
                final_response=Content(role="model", parts=[Part(text=text)]),
                intermediate_data=IntermediateData(
                    tool_uses=[FunctionCall(name=c.name, args=c.args) for c in calls]
                ),
            )
        )
    return out


@pytest.mark.parametrize("entry", REAL_FILES, ids=[f["file"].split("/")[-1] for f in REAL_FILES])
def test_real_evalset_matches_adk(entry, real_evalsets_dir):
    path = real_evalsets_dir / entry["file"]
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    eval_set = _load(path, entry["form"])
    problems = []
    for scored in entry["cases"]:
        case = eval_set.eval_cases[scored["case_index"]]
        if entry["form"] == "new":
            assert case.eval_id == scored["eval_id"]
        conversation = list(case.conversation or [])
        assert len(conversation) == scored["invocations"]
        for how, adk in scored["scores"].items():
            for problem in mismatches(our_scores(perturb(conversation, how), conversation), adk):
                problems.append(f"case #{scored['case_index']} ({scored['eval_id']}), {how}: {problem}")
    assert problems == []


def test_real_golden_covers_every_form():
    forms = {f["form"] for f in REAL_FILES}
    assert {"new", "legacy_flat", "legacy_multi"} <= forms
    assert sum(len(f["cases"]) for f in REAL_FILES) >= 20
