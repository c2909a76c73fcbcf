"""EvalSet -> EvaluationDataset -> EvalSet loses only the documented fields
(``docs/data-model.md``, "What each direction loses"), and the writer names each loss."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Optional

from agenteval.models import Content, EvalSet
from agenteval_agent_platform import AgentPlatformReader
from agenteval_agent_platform._to_dataset import content_json
from agenteval_agent_platform._writer import AgentPlatformWriter
from hypothesis import HealthCheck, given, settings

from tests.plugins.agent_platform._strategies import eval_sets

_TYPES = ("FINAL_RESPONSE_QUALITY", "TOOL_USE_QUALITY", "TRAJECTORY_QUALITY")


def _message(content: Optional[dict[str, Any]], role: str) -> Optional[dict[str, Any]]:
    """A message as both sides compare it: a role filled in (documented), bytes as genai re-encodes them."""
    if not content:
        return None
    return content_json(Content.model_validate(content).model_dump(mode="json", exclude_none=True), "", role)


def _steps(turn: dict[str, Any]) -> list[tuple[Optional[str], Any]]:
    """A turn's intermediate steps, whatever their form: (author or None, content)."""
    data = turn.get("intermediate_data") or {}
    if "invocation_events" in data:
        return [
            (e["author"], _message(e["content"], "")) for e in data["invocation_events"] if e.get("content")
        ]
    steps: list[tuple[Optional[str], Any]] = []
    if data.get("tool_uses"):
        steps.append((None, _message({"parts": [{"function_call": c} for c in data["tool_uses"]]}, "model")))
    if data.get("tool_responses"):
        answers = [{"function_response": r} for r in data["tool_responses"]]
        steps.append((None, _message({"parts": answers}, "user")))
    steps += [(a, _message({"parts": p}, "model")) for a, p in data.get("intermediate_responses") or ()]
    return steps


def _rubrics(rubrics: list[dict[str, Any]]) -> Optional[list[Any]]:
    """Grouped by type, as the dataset keeps them (the description is a documented loss)."""
    kept = [(r.get("type") or "", r["rubric_id"], r["rubric_content"].get("text_property")) for r in rubrics]
    order = list(dict.fromkeys(kind for kind, *_ in kept))
    return sorted(kept, key=lambda r: order.index(r[0])) or None


def _kept(eval_set: EvalSet) -> list[dict[str, Any]]:
    """What the dataset keeps of each case (everything else is a documented loss)."""
    cases = []
    for case in eval_set.model_dump(mode="json", exclude_unset=True)["eval_cases"]:
        kept: dict[str, Any] = {"eval_id": case["eval_id"]}
        scenario = case.get("conversation_scenario")
        turns = case.get("conversation") or []
        rubrics = list(case.get("rubrics") or ())
        if scenario:
            kept["scenario"] = (scenario["starting_prompt"], scenario["conversation_plan"])
        for n, turn in enumerate(turns):
            last = n == len(turns) - 1
            steps = _steps(turn)
            if last:
                rubrics += turn.get("rubrics") or ()
                steps = [(None, s) for _, c in steps for s in _calls(c)]
            kept.setdefault("turns", []).append(
                {
                    "id": None if last else turn.get("invocation_id") or str(n),
                    "time": None if last else round(turn.get("creation_timestamp") or 0, 6) or None,
                    "user": _message(turn["user_content"], "user"),
                    "final": _message(turn.get("final_response"), "model"),
                    "steps": steps,
                }
            )
        kept["rubrics"] = _rubrics(rubrics)
        session = case.get("session_input")
        kept["session"] = (
            {k: session[k] for k in ("app_name", "user_id", "state") if k in session} if session else None
        )
        kept["extra"] = case.get("custom_tag")
        cases.append(kept)
    return cases


def _calls(content: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"parts": [p], "role": "model"} for p in content.get("parts") or () if p.get("function_call")]


def _round_trip(eval_set: EvalSet) -> tuple[EvalSet, list[str]]:
    with tempfile.TemporaryDirectory() as folder:
        writer = AgentPlatformWriter()
        (path,) = writer.write(eval_set, Path(folder))
        return AgentPlatformReader().read_eval_set(path), writer.warnings


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(eval_set=eval_sets())
def test_a_round_trip_loses_only_the_documented_fields(eval_set: EvalSet) -> None:
    back, _ = _round_trip(eval_set)
    assert back.eval_set_id == eval_set.eval_set_id.removesuffix("-dataset")
    assert _kept(back) == _kept(eval_set)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(eval_set=eval_sets())
def test_the_writer_names_every_documented_loss(eval_set: EvalSet) -> None:
    _, warnings = _round_trip(eval_set)
    said = "\n".join(warnings)
    for n, case in enumerate(eval_set.eval_cases):
        if case.final_session_state:
            assert f"eval_cases[{n}] ({case.eval_id}): " in said and "final_session_state" in said
        if case.conversation_scenario is not None and case.conversation_scenario.user_persona is not None:
            assert "conversation_scenario.user_persona" in said
        if case.session_input is not None and case.session_input.session_id is not None:
            assert "session_input.session_id" in said
        for t, turn in enumerate(case.conversation or ()):
            if turn.duration is not None:
                assert f"conversation[{t}].duration" in said
            if turn.rubrics and t < len(case.conversation) - 1:
                assert f"conversation[{t}].rubrics" in said
    if eval_set.name:
        assert "name" in said
