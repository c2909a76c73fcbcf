"""Hypothesis strategies: ADK eval sets with every field the Agent Platform mapping touches."""

from __future__ import annotations

import base64
from typing import Any

from agenteval.models import EvalSet
from hypothesis import strategies as st

_names = st.sampled_from(["find_order", "get_weather", "refund", "transfer_to_agent"])
_authors = st.sampled_from(["root_agent", "shop_agent", "helper"])
_ids = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | _text,
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(_ids, inner, max_size=2),
    max_leaves=4,
)
_args = st.dictionaries(_ids, _json, max_size=2)
_call = st.fixed_dictionaries({"name": _names}, optional={"args": _args, "id": _ids})
_answer = st.fixed_dictionaries({"name": _names}, optional={"response": _args, "id": _ids})
_signature = st.binary(min_size=1, max_size=6).map(lambda b: base64.b64encode(b).decode())
_text_part = st.fixed_dictionaries(
    {"text": _text}, optional={"thought": st.booleans(), "thought_signature": _signature}
)
_role = st.sampled_from([None, "user", "model"])


def _content(
    parts: st.SearchStrategy[dict[str, Any]], role: st.SearchStrategy[Any] = _role
) -> st.SearchStrategy[Any]:
    return st.builds(
        lambda ps, r: {"parts": ps, **({"role": r} if r else {})},
        st.lists(parts, min_size=1, max_size=2),
        role,
    )


_legacy = st.fixed_dictionaries(
    {},
    optional={
        "tool_uses": st.lists(_call, max_size=2),
        "tool_responses": st.lists(_answer, max_size=2),
        "intermediate_responses": st.lists(st.tuples(_authors, st.lists(_text_part, max_size=2)), max_size=2),
    },
)
_event = st.fixed_dictionaries(
    {"author": _authors},
    optional={
        "content": _content(
            st.one_of(
                _text_part,
                _call.map(lambda c: {"function_call": c}),
                _answer.map(lambda a: {"function_response": a}),
            )
        ),
        "model_version": st.just("gemini-x"),
    },
)
_events = st.fixed_dictionaries({"invocation_events": st.lists(_event, max_size=3)})
_rubric = st.fixed_dictionaries(
    {"rubric_content": st.fixed_dictionaries({}, optional={"text_property": _text})},
    optional={
        "type": st.sampled_from(["FINAL_RESPONSE_QUALITY", "TOOL_USE_QUALITY", "TRAJECTORY_QUALITY"]),
        "description": _text,
    },
)
_invocation = st.fixed_dictionaries(
    {"user_content": _content(_text_part)},
    optional={
        "invocation_id": st.sampled_from(["", "t1", "t2", "inv-9"]),
        "final_response": _content(_text_part),
        "intermediate_data": st.one_of(_legacy, _events),
        "creation_timestamp": st.sampled_from([0.0, 1700000000.0, 1700000123.25]),
        "duration": st.just(1.5),
        "rubrics": st.lists(_rubric, max_size=2),
    },
)
_scenario = st.fixed_dictionaries(
    {"starting_prompt": _text, "conversation_plan": _text}, optional={"user_persona": st.just("NOVICE")}
)
_session = st.fixed_dictionaries(
    {"app_name": _ids, "user_id": _ids},
    optional={"state": st.dictionaries(_ids, _json, max_size=2), "session_id": _ids},
)


@st.composite
def eval_sets(draw: Any) -> EvalSet:
    """An ADK eval set (as a loaded file gives it: only the fields the file set)."""
    ids = draw(st.lists(_ids, min_size=1, max_size=3, unique=True))
    cases = []
    for eval_id in ids:
        case: dict[str, Any] = {"eval_id": eval_id}
        if draw(st.booleans()) or len(ids) == 1:
            case["conversation"] = draw(st.lists(_invocation, min_size=1, max_size=3))
        else:
            case["conversation_scenario"] = draw(_scenario)
        for key, strategy in (
            ("session_input", _session),
            ("rubrics", st.lists(_rubric, max_size=2)),
            ("final_session_state", st.dictionaries(_ids, _json, max_size=1)),
            ("creation_timestamp", st.just(1700000000.0)),
            ("custom_tag", _text),
        ):
            if draw(st.booleans()):
                case[key] = draw(strategy)
        _number_rubrics(case)
        cases.append(case)
    data = {"eval_set_id": draw(_ids), "eval_cases": cases}
    if draw(st.booleans()):
        data["name"] = "a name"
    return EvalSet.model_validate(data)


def _number_rubrics(case: dict[str, Any]) -> None:
    """Rubric ids unique in the case (ADK requires it)."""
    count = 0
    for owner in [case, *case.get("conversation", ())]:
        for rubric in owner.get("rubrics") or ():
            count += 1
            rubric["rubric_id"] = f"r{count}"
