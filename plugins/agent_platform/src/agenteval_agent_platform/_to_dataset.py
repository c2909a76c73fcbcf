"""An ADK eval set as an Agent Platform ``EvaluationDataset``, by the rules of
google-cloud-aiplatform 2.7's ``AdkEvalSetConverter`` (``docs/data-model.md``).

Per case: ``eval_id`` -> ``eval_case_id``; a scenario -> ``user_scenario`` (starting prompt
and plan); a fixed conversation: the last turn's user content -> ``prompt`` (role ``user``
when unset), its final response -> ``reference``, its tool calls -> the extra field
``reference_trajectory`` (one ``model`` content per call), the earlier turns ->
``conversation_history`` (the user message with the turn's id and time, each intermediate
event, the final response without an author); the case's and the last turn's rubrics ->
``rubric_groups`` keyed by rubric type (``adk_rubrics`` when unset); ``session_input`` -> the
extra field ``session_inputs`` (``app_name``, ``user_id``, ``state``); other case keys are
kept unless they collide with a field. Keys come out in the order the SDK's models dump them,
so the file is the SDK's ``model_dump(mode="json", exclude_none=True)`` byte for byte.

What the format cannot hold is listed per case (``lost``), never dropped unsaid.
"""

from __future__ import annotations

import datetime
from typing import Any, Optional

from agenteval.errors import DataError
from agenteval.models import EvalCase, EvalSet
from pydantic import ConfigDict, TypeAdapter, ValidationError
from pydantic.alias_generators import to_snake

__all__ = ["DEFAULT_RUBRIC_GROUP", "EVAL_CASE_FIELDS", "dataset_of"]

DEFAULT_RUBRIC_GROUP = "adk_rubrics"
#: ``EvalCase``'s fields in the SDK's order (extras follow them, in the order they were set).
EVAL_CASE_FIELDS = (
    "prompt",
    "responses",
    "reference",
    "system_instruction",
    "conversation_history",
    "rubric_groups",
    "eval_case_id",
    "intermediate_events",
    "agent_info",
    "agent_data",
    "user_scenario",
)
_ADK_CASE_KEYS = frozenset(
    {"eval_id", "conversation", "conversation_scenario", "session_input", "creation_timestamp", "rubrics"}
    | {"final_session_state"}
)
#: genai's field order of the objects a content holds.
_PART_ORDER = (
    "media_resolution",
    "code_execution_result",
    "executable_code",
    "file_data",
    "function_call",
    "function_response",
    "inline_data",
    "text",
    "thought",
    "thought_signature",
    "video_metadata",
    "tool_call",
    "tool_response",
    "part_metadata",
    "audio_transcription",
    "media_processing",
    "speech_metadata",
)
_ORDER = {
    "function_call": ("id", "args", "name", "partial_args", "will_continue"),
    "function_response": ("will_continue", "scheduling", "parts", "id", "name", "response"),
    "inline_data": ("data", "display_name", "mime_type"),
    "file_data": ("display_name", "file_uri", "mime_type"),
}
_BYTES = TypeAdapter(bytes, config=ConfigDict(ser_json_bytes="base64", val_json_bytes="base64"))
_TIME = TypeAdapter(datetime.datetime)


def _snake_keys(value: dict[str, Any]) -> dict[str, Any]:
    return {to_snake(key): item for key, item in value.items()}


def _ordered(value: dict[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    """``value`` without ``None``s, known keys in ``order`` first (genai's dump order)."""
    known = {key: value[key] for key in order if value.get(key) is not None}
    return {**known, **{k: v for k, v in value.items() if k not in known and v is not None}}


def _base64(text: Any, where: str) -> str:
    """Bytes as genai re-encodes them (it decodes them on reading)."""
    try:
        return _BYTES.dump_python(_BYTES.validate_json(f'"{text}"'), mode="json")
    except (ValidationError, TypeError):
        raise DataError(f"{where}: not base64 ({str(text)[:40]!r}); Google's SDK refuses it") from None


def _part(part: dict[str, Any], where: str) -> dict[str, Any]:
    out = dict(part)
    for key, order in _ORDER.items():
        if isinstance(out.get(key), dict):
            out[key] = _ordered(
                _snake_keys(out[key]) if key in ("inline_data", "file_data") else out[key], order
            )
    if isinstance(out.get("inline_data"), dict) and out["inline_data"].get("data") is not None:
        out["inline_data"]["data"] = _base64(out["inline_data"]["data"], f"{where}.inline_data.data")
    if out.get("thought_signature") is not None:
        out["thought_signature"] = _base64(out["thought_signature"], f"{where}.thought_signature")
    return _ordered(out, _PART_ORDER)


def content_json(content: Optional[dict[str, Any]], where: str, role: Optional[str] = None) -> dict[str, Any]:
    """A content as genai dumps it: ``parts`` then ``role`` (``role`` filled when unset)."""
    content = content or {}
    parts = content.get("parts")
    out: dict[str, Any] = {}
    if parts is not None:
        out["parts"] = [_part(p, f"{where}.parts[{n}]") for n, p in enumerate(parts)]
    if content.get("role") or role:
        out["role"] = content.get("role") or role
    return out


def _events(data: Optional[dict[str, Any]], where: str) -> list[tuple[Optional[str], dict[str, Any]]]:
    """A turn's intermediate steps as (author, content): events with content, or the legacy
    form's tool calls, tool responses and intermediate responses, in that order."""
    if not data:
        return []
    if "invocation_events" in data:
        return [
            (event.get("author"), content_json(event["content"], f"{where}.invocation_events[{n}].content"))
            for n, event in enumerate(data["invocation_events"])
            if event.get("content")
        ]
    steps: list[tuple[Optional[str], dict[str, Any]]] = []
    for key, part_key, role in (
        ("tool_uses", "function_call", "model"),
        ("tool_responses", "function_response", "user"),
    ):
        if data.get(key):
            parts = [{part_key: call} for call in data[key]]
            steps.append((None, content_json({"parts": parts, "role": role}, f"{where}.{key}")))
    for n, (author, parts) in enumerate(data.get("intermediate_responses") or []):
        steps.append(
            (author, content_json({"parts": parts, "role": "model"}, f"{where}.intermediate_responses[{n}]"))
        )
    return steps


def _timestamp(value: Any, where: str) -> Optional[str]:
    """A turn's time as the SDK writes a message's (``None`` for 0, as it does)."""
    if not value:
        return None
    try:
        moment = datetime.datetime.fromtimestamp(value, tz=datetime.timezone.utc)
    except (OverflowError, OSError, ValueError):
        raise DataError(f"{where}: {value!r} is not a time a dataset can hold (seconds since 1970)") from None
    return _TIME.dump_python(moment, mode="json")


def _history(turn: dict[str, Any], index: int, where: str) -> list[dict[str, Any]]:
    turn_id = turn.get("invocation_id") or str(index)
    messages = [
        _ordered(
            {
                "turn_id": turn_id,
                "content": content_json(turn["user_content"], f"{where}.user_content", "user"),
                "creation_timestamp": _timestamp(
                    turn.get("creation_timestamp"), f"{where}.creation_timestamp"
                ),
                "author": "user",
            },
            (),
        )
    ]
    for author, content in _events(turn.get("intermediate_data"), f"{where}.intermediate_data"):
        messages.append(_ordered({"turn_id": turn_id, "content": content, "author": author}, ()))
    if turn.get("final_response"):
        content = content_json(turn["final_response"], f"{where}.final_response", "model")
        messages.append({"turn_id": turn_id, "content": content})
    return messages


def _rubric_groups(rubrics: list[dict[str, Any]]) -> dict[str, Any]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for rubric in rubrics:
        text = (rubric.get("rubric_content") or {}).get("text_property")
        entry = {
            "rubric_id": rubric.get("rubric_id"),
            "content": {"property": _ordered({"description": text}, ())},
            "type": rubric.get("type"),
        }
        groups.setdefault(rubric.get("type") or DEFAULT_RUBRIC_GROUP, []).append(_ordered(entry, ()))
    return {name: {"rubrics": group} for name, group in groups.items()}


def _lost(case: dict[str, Any], model: EvalCase) -> list[str]:
    """The case's data an Agent Platform dataset does not hold (see ``docs/data-model.md``)."""
    lost = [key for key in ("final_session_state", "creation_timestamp") if case.get(key)]
    scenario = case.get("conversation_scenario") or {}
    if scenario.get("user_persona") is not None:
        lost.append("conversation_scenario.user_persona")
    session = case.get("session_input") or {}
    lost += [f"session_input.{key}" for key in session if key not in ("app_name", "user_id", "state")]
    rubrics = [*(case.get("rubrics") or ())]
    turns = case.get("conversation") or []
    for n, turn in enumerate(turns):
        at = f"conversation[{n}]"
        last = n == len(turns) - 1
        rubrics += turn.get("rubrics") or () if last else ()
        dropped = ["duration", "model_duration", "tool_duration", "app_details"]
        dropped += ["invocation_id", "creation_timestamp"] if last else ["rubrics"]
        lost += [f"{at}.{key}" for key in dropped if turn.get(key)]
        events = (turn.get("intermediate_data") or {}).get("invocation_events") or []
        for e, event in enumerate(events):
            extra = [k for k in event if k not in ("author", "content")]
            lost += [f"{at}.intermediate_data.invocation_events[{e}].{k}" for k in extra]
            if not event.get("content"):
                lost.append(f"{at}.intermediate_data.invocation_events[{e}] (no content)")
        if last and model.conversation:
            invocation = model.conversation[-1]
            if invocation.tool_responses() or invocation.intermediate_texts():
                lost.append(f"{at}.intermediate_data (all but its tool calls)")
    lost += [f"rubrics[{r['rubric_id']!r}].description" for r in rubrics if r.get("description")]
    return lost


def _case(case: dict[str, Any], model: EvalCase, where: str, warnings: list[str]) -> dict[str, Any]:
    fields: dict[str, Any] = {"eval_case_id": case["eval_id"]}
    rubrics = list(case.get("rubrics") or [])
    scenario = case.get("conversation_scenario")
    if scenario is not None:
        fields["user_scenario"] = {
            "starting_prompt": scenario["starting_prompt"],
            "conversation_plan": scenario["conversation_plan"],
        }
    else:
        *earlier, last = case["conversation"]
        at = f"{where}.conversation[{len(earlier)}]"
        fields["prompt"] = content_json(last["user_content"], f"{at}.user_content", "user")
        history = [
            m for n, turn in enumerate(earlier) for m in _history(turn, n, f"{where}.conversation[{n}]")
        ]
        if history:
            fields["conversation_history"] = history
        if last.get("final_response"):
            response = content_json(last["final_response"], f"{at}.final_response", "model")
            fields["reference"] = {"response": response}
        trajectory = [
            {"parts": [{"function_call": part["function_call"]}], "role": "model"}
            for _, content in _events(last.get("intermediate_data"), f"{at}.intermediate_data")
            for part in content.get("parts") or ()
            if part.get("function_call")
        ]
        if trajectory:
            fields["reference_trajectory"] = trajectory
        rubrics += last.get("rubrics") or []
    if rubrics:
        fields["rubric_groups"] = _rubric_groups(rubrics)
    if case.get("session_input"):
        session = case["session_input"]
        fields["session_inputs"] = {
            k: session[k] for k in ("app_name", "user_id", "state") if session.get(k) is not None
        }
    reserved = set(fields) | set(EVAL_CASE_FIELDS)
    for key, value in case.items():
        if key in _ADK_CASE_KEYS:
            continue
        if key in reserved:
            warnings.append(f"{where}.{key}: the case key collides with an Agent Platform field; not written")
            continue
        fields[key] = value
    known = {key: fields[key] for key in EVAL_CASE_FIELDS if key in fields}
    return {**known, **{k: v for k, v in fields.items() if k not in known}}


def dataset_of(eval_set: EvalSet, warnings: list[str]) -> dict[str, Any]:
    """The ``EvaluationDataset`` JSON of ``eval_set``; what it cannot hold goes to ``warnings``
    (one line per case naming the fields). ``DataError`` for what Google's SDK refuses."""
    data = eval_set.model_dump(mode="json", exclude_unset=True, by_alias=False)
    lost_set = [key for key in ("name", "description", "creation_timestamp") if data.get(key)]
    lost_set += [
        key
        for key in data
        if key not in ("eval_set_id", "eval_cases", *lost_set) and key in (eval_set.model_extra or {})
    ]
    if lost_set:
        warnings.append(
            f"eval set {eval_set.eval_set_id!r}: not in an Agent Platform dataset: {', '.join(lost_set)}"
        )
    cases = []
    for n, (case, model) in enumerate(zip(data["eval_cases"], eval_set.eval_cases, strict=True)):
        where = f"eval_cases[{n}]"
        if case.get("conversation") is not None and not case["conversation"]:
            raise DataError(f"{where}.conversation: empty; Google's converter needs at least one turn")
        cases.append(_case(case, model, where, warnings))
        lost = _lost(case, model)
        if lost:
            warnings.append(f"{where} ({model.eval_id}): not in an Agent Platform dataset: {', '.join(lost)}")
    return {"eval_cases": cases}
