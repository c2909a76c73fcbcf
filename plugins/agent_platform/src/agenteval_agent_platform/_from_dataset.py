"""Agent Platform ``EvaluationDataset`` cases as ADK eval cases (``docs/data-model.md``).

* ``prompt`` (and ``reference``) -> the last turn's user content (and expected final response);
* ``conversation_history`` -> the earlier turns, context only (the case's ``context_turns``:
  criteria score the last turn, as Google's evaluation scores ``responses`` against
  ``reference``), split at each user message (a ``user``
  message without tool responses); in a turn, the last message without an author and without
  tool calls or responses is its final response, the others its intermediate steps (events
  when they all have an author, else ADK's legacy form, as Google's converter wrote them);
* ``reference_trajectory`` -> the last turn's expected tool calls;
* ``agent_data`` -> turns split at each event authored ``user``; the agent's events are the
  recorded (actual) turns, the expected last reply is ``reference``; the turns before the last
  are context, as a history is. Beside ``prompt`` (as
  agents-cli's ``eval generate`` writes it) ``agent_data`` is the recorded run of the same turns;
* ``responses[0]`` (and ``intermediate_events``) -> the recorded actual last turn;
* ``session_inputs`` -> ``session_input``; ``user_scenario`` -> ``conversation_scenario``;
  ``rubric_groups`` -> the case's rubrics.

What has no place in an ADK eval set is a warning naming it; a value that cannot be read is a
``DataError`` naming the field.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any, Optional

from agenteval.errors import DataError
from agenteval.models import RUBRIC_TYPES, Content, EvalCase, Invocation
from agenteval.plugins import describe_validation_error, json_path
from pydantic import ValidationError

from ._to_dataset import DEFAULT_RUBRIC_GROUP, EVAL_CASE_FIELDS

__all__ = ["CASE_KEYS", "ReadCase", "read_case"]

#: The case keys this reader maps (``EvalCase`` fields and the converter's extra fields).
CASE_KEYS = frozenset({*EVAL_CASE_FIELDS, "reference_trajectory", "session_inputs"})
#: Read, but with no place in an ADK eval set.
_NOT_IN_ADK = {
    "system_instruction": "ADK eval sets have no system instruction (the agent's own applies)",
    "agent_info": "ADK eval sets carry no agent description",
}


@dataclass
class ReadCase:
    """One dataset case read: the expected case and, when the file recorded them, the actual turns."""

    expected: EvalCase
    actual: Optional[list[Invocation]] = None
    warnings: list[str] = field(default_factory=list)


def _at(loc: list[Any]) -> str:
    """A place in the file: a JSON path, after ``line N`` / ``row N`` in a table form."""
    if loc and isinstance(loc[0], str) and loc[0].startswith(("line ", "row ")):
        rest = json_path(loc[1:])
        return loc[0] if rest == "$" else f"{loc[0]}: {rest}"
    return json_path(loc)


def _invalid(exc: ValidationError, model: type[Any], loc: list[Any], where: str) -> DataError:
    """A validation problem at ``loc`` of the file, said as the engine's loader says it."""
    if loc and isinstance(loc[0], str) and loc[0].startswith(("line ", "row ")):
        return DataError(f"{loc[0]}: " + describe_validation_error(exc, model, prefix=loc[1:]), source=where)
    return DataError(describe_validation_error(exc, model, prefix=loc), source=where)


def _content(value: Any, loc: list[Any], where: str, role: Optional[str] = None) -> dict[str, Any]:
    """A content as JSON, checked (``DataError`` naming its path); text is a one-part content."""
    if isinstance(value, str):
        value = {"parts": [{"text": value}]}
    if isinstance(value, dict) and isinstance(value.get("content"), str) and "parts" not in value:
        value = {"role": value.get("role"), "parts": [{"text": value["content"]}]}
    if isinstance(value, dict) and value.get("role") == "assistant":
        value = {**value, "role": "model"}
    try:
        checked = Content.model_validate(value)
    except ValidationError as exc:
        raise _invalid(exc, Content, loc, where) from None
    data = checked.model_dump(mode="json", exclude_none=True)
    if role and not data.get("role"):
        data["role"] = role
    return data


def _response(value: Any, loc: list[Any], where: str) -> dict[str, Any]:
    """``{"response": Content}`` (or, in the table form, the content or text itself)."""
    if isinstance(value, dict) and "response" in value:
        extra = [k for k in value if k != "response"]
        if extra:
            raise DataError(
                f"{_at([*loc, extra[0]])}: unknown key; a response is {{'response': Content}}", source=where
            )
        return _content(value["response"], [*loc, "response"], where, "model")
    return _content(value, loc, where, "model")


def _calls(contents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [p["function_call"] for c in contents for p in c.get("parts") or () if p.get("function_call")]


def _has(content: dict[str, Any], key: str) -> bool:
    return any(p.get(key) for p in content.get("parts") or ())


def _is_user_turn(author: Optional[str], content: dict[str, Any], authored: bool) -> bool:
    """Whether a history message starts a turn: authored ``user`` when the history names its
    authors (as Google's converter writes it), else a ``user`` message answering no tool."""
    if authored:
        return author == "user"
    return content.get("role") == "user" and not _has(content, "function_response")


def _turn(
    user: dict[str, Any],
    steps: list[tuple[Optional[str], dict[str, Any]]],
    turn_id: str,
    when: Optional[float],
    *,
    authored_final: bool = False,
) -> dict[str, Any]:
    """One ADK invocation from its user message and the messages after it. The last message
    is the final response when it calls no tool and answers none, and has no author (a
    history as Google's converter writes it) or ``authored_final`` (agent data, where every
    event has one)."""
    final = None
    if (
        steps
        and (authored_final or steps[-1][0] is None)
        and not (_has(steps[-1][1], "function_call") or _has(steps[-1][1], "function_response"))
    ):
        final = steps.pop()[1]
    turn: dict[str, Any] = {"invocation_id": turn_id, "user_content": user}
    if final is not None:
        turn["final_response"] = final
    if steps and all(author is not None for author, _ in steps):
        turn["intermediate_data"] = {"invocation_events": [{"author": a, "content": c} for a, c in steps]}
    elif steps:
        legacy: dict[str, list[Any]] = {"tool_uses": [], "tool_responses": [], "intermediate_responses": []}
        for author, content in steps:
            if author is None and _has(content, "function_call"):
                legacy["tool_uses"] += _calls([content])
            elif author is None and _has(content, "function_response"):
                legacy["tool_responses"] += [
                    p["function_response"] for p in content["parts"] if p.get("function_response")
                ]
            else:
                legacy["intermediate_responses"].append([author or "model", content.get("parts") or []])
        turn["intermediate_data"] = legacy
    if when is not None:
        turn["creation_timestamp"] = when
    return turn


def _time(value: Any, loc: list[Any], where: str) -> Optional[float]:
    if value is None:
        return None
    try:
        moment = datetime.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise DataError(f"{_at(loc)}: not an ISO 8601 time ({str(value)[:40]!r})", source=where) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return moment.timestamp()


def _history(messages: Any, loc: list[Any], where: str, warnings: list[str]) -> list[dict[str, Any]]:
    if not isinstance(messages, list):
        raise DataError(f"{_at(loc)}: expected a list of messages", source=where)
    turns: list[tuple[dict[str, Any], list[Any], str, Optional[float]]] = []
    authored = any(isinstance(m, dict) and m.get("author") == "user" for m in messages)
    for n, message in enumerate(messages):
        at = [*loc, n]
        if isinstance(message, dict) and "content" in message and not isinstance(message.get("content"), str):
            unknown = [k for k in message if k not in ("turn_id", "content", "creation_timestamp", "author")]
            if unknown:
                raise DataError(
                    f"{_at([*at, unknown[0]])}: unknown key; a message has turn_id, content, "
                    "creation_timestamp and author",
                    source=where,
                )
            author, content = message.get("author"), _content(message["content"], [*at, "content"], where)
            turn_id, when = (
                message.get("turn_id"),
                _time(message.get("creation_timestamp"), [*at, "creation_timestamp"], where),
            )
        else:  # the table form: a bare content, or {role, content: text}
            author, content, turn_id, when = None, _content(message, at, where), None, None
        if _is_user_turn(author, content, authored):
            turns.append((content, [], str(turn_id) if turn_id is not None else str(len(turns)), when))
        elif not turns:
            raise DataError(
                f"{_at(at)}: the history starts with a {content.get('role') or 'role-less'} message; "
                "an ADK turn starts with the user's message",
                source=where,
            )
        else:
            if when is not None:
                warnings.append(
                    f"{_at([*at, 'creation_timestamp'])}: ADK keeps a time for the user's message only; "
                    "dropped"
                )
            turns[-1][1].append((author, content))
    return [_turn(user, steps, turn_id, when) for user, steps, turn_id, when in turns]


def _agent_data(
    value: Any, loc: list[Any], where: str, warnings: list[str]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The turns of ``agent_data`` (split at each user event) and its agents as ADK app details."""
    if not isinstance(value, dict):
        raise DataError(f"{_at(loc)}: expected an object {{agents, turns}}", source=where)
    agents = {}
    for agent_id, config in (value.get("agents") or {}).items():
        at = [*loc, "agents", agent_id]
        lost = [k for k in config if k not in ("agent_id", "instruction", "tools")]
        if lost:
            warnings.append(f"{_at(at)}: {', '.join(lost)} have no place in ADK's app details; dropped")
        agents[agent_id] = {
            "name": config.get("agent_id") or agent_id,
            "instructions": config.get("instruction") or "",
            "tool_declarations": config.get("tools") or [],
        }
    users: list[tuple[dict[str, Any], list[Any], str]] = []
    for t, turn in enumerate(value.get("turns") or []):
        for e, event in enumerate(turn.get("events") or []):
            at = [*loc, "turns", t, "events", e]
            lost = [k for k in event if k not in ("author", "content")]
            if lost:
                warnings.append(f"{_at(at)}: {', '.join(lost)} have no place in an ADK turn; dropped")
            author = event.get("author")
            content = _content(event.get("content") or {}, [*at, "content"], where)
            if author == "user":
                users.append((content, [], str(turn.get("turn_id") or turn.get("turn_index", t))))
            elif not users:
                raise DataError(
                    f"{_at(at)}: agent_data starts with an event by {author!r}; it starts with the user's",
                    source=where,
                )
            else:
                users[-1][1].append((author or "agent", content))
    if not users:
        raise DataError(
            f"{_at(loc)}: no event authored 'user'; agent_data needs the user's messages", source=where
        )
    turns = [_turn(user, steps, turn_id, None, authored_final=True) for user, steps, turn_id in users]
    return turns, {"agent_details": agents} if agents else {}


def _rubrics(groups: Any, loc: list[Any], where: str, warnings: list[str]) -> list[dict[str, Any]]:
    if not isinstance(groups, dict):
        raise DataError(f"{_at(loc)}: expected an object of rubric groups by key", source=where)
    rubrics = []
    for key, group in groups.items():
        items = group.get("rubrics") if isinstance(group, dict) else group
        if not isinstance(items, list):
            raise DataError(f"{_at([*loc, key])}: expected {{'rubrics': [...]}}", source=where)
        for n, rubric in enumerate(items):
            at = [*loc, key, "rubrics", n]
            if not isinstance(rubric, dict):
                raise DataError(f"{_at(at)}: expected a rubric object", source=where)
            kind = rubric.get("type")
            kind = kind if kind in RUBRIC_TYPES else key if key in RUBRIC_TYPES else None
            if kind is None and (rubric.get("type") or key != DEFAULT_RUBRIC_GROUP):
                warnings.append(
                    f"{_at(at)}: the group {key!r} (type {rubric.get('type')!r}) is not an ADK rubric type; "
                    "read as an untyped rubric"
                )
            if rubric.get("importance"):
                warnings.append(f"{_at([*at, 'importance'])}: ADK rubrics have no importance; dropped")
            text = ((rubric.get("content") or {}).get("property") or {}).get("description")
            entry = {
                "rubric_id": rubric.get("rubric_id") or f"{key}_{n + 1}",
                "rubric_content": {"text_property": text},
            }
            rubrics.append({**entry, "type": kind} if kind else entry)
    return rubrics


def read_case(case: Any, index: int, loc: list[Any], where: str) -> ReadCase:
    """One dataset case (``loc``: its JSON path in the file) as an ADK case."""
    if not isinstance(case, dict):
        raise DataError(f"{_at(loc)}: expected an eval case object", source=where)
    warnings: list[str] = []
    eval_id = str(case.get("eval_case_id") or f"eval_case_{index}")
    out: dict[str, Any] = {"eval_id": eval_id}
    at = lambda key: [*loc, key]  # noqa: E731
    actual: Optional[list[dict[str, Any]]] = None
    if case.get("user_scenario") is not None:
        scenario = case["user_scenario"]
        if "prompt" in case or "agent_data" in case:
            raise DataError(
                f"{_at(at('user_scenario'))}: a scenario case has no 'prompt' or 'agent_data'", source=where
            )
        out["conversation_scenario"] = {
            "starting_prompt": scenario.get("starting_prompt"),
            "conversation_plan": scenario.get("conversation_plan"),
        }
        lost = [k for k in scenario if k not in ("starting_prompt", "conversation_plan")]
        if lost:
            warnings.append(
                f"{_at(at('user_scenario'))}: {', '.join(lost)} have no place in an ADK scenario; dropped"
            )
        warnings.append(
            f"{_at(at('user_scenario'))}: no user persona in the dataset; ADK's default persona "
            "plays the user"
        )
    elif "prompt" in case:
        history = case.get("conversation_history")
        turns = _history(history, at("conversation_history"), where, warnings) if history else []
        last = _expected(
            case, {"user_content": _content(case["prompt"], at("prompt"), where, "user")}, loc, where
        )
        out["conversation"] = [*turns, last]
        out["context_turns"] = len(turns)
        actual = _recorded(case, turns, last, loc, where, warnings)
        if "agent_data" in case:  # the recorded run of the prompt, as agents-cli's `eval generate` adds it
            actual = _agent_run(case, out["conversation"], actual, loc, where, warnings)
    elif "agent_data" in case:
        turns, _ = _agent_data(case["agent_data"], at("agent_data"), where, [])
        expected = [
            {k: v for k, v in t.items() if k not in ("final_response", "intermediate_data")} for t in turns
        ]
        out["conversation"] = [*turns[:-1], _expected(case, expected[-1], loc, where)]
        out["context_turns"] = len(turns) - 1
        responses = _recorded(case, [], expected[-1], loc, where, [])
        actual = _agent_run(case, out["conversation"], responses, loc, where, warnings)
    else:
        raise DataError(
            f"{_at(loc)}: has none of 'prompt', 'agent_data' and 'user_scenario'; a case needs one",
            source=where,
        )
    if case.get("rubric_groups"):
        out["rubrics"] = _rubrics(case["rubric_groups"], at("rubric_groups"), where, warnings)
    if case.get("session_inputs"):
        session = case["session_inputs"]
        missing = [k for k in ("app_name", "user_id") if not isinstance(session, dict) or k not in session]
        if missing:
            raise DataError(
                f"{_at(at('session_inputs'))}: {' and '.join(missing)} missing; ADK's session input "
                "needs both",
                source=where,
            )
        out["session_input"] = session
    for key, why in _NOT_IN_ADK.items():
        if case.get(key):
            warnings.append(f"{_at(at(key))}: {why}; dropped")
    for key in case:
        if key not in CASE_KEYS:
            out[key] = case[key]
            warnings.append(f"{_at(at(key))}: not an Agent Platform field; kept on the case, not used")
    try:
        expected = EvalCase.model_validate(out)
        recorded = [Invocation.model_validate(t) for t in actual] if actual is not None else None
    except ValidationError as exc:
        raise DataError(
            f"{_at(loc)} ({eval_id}): " + describe_validation_error(exc, EvalCase), source=where
        ) from None
    return ReadCase(expected, recorded, warnings)


def _agent_run(
    case: dict[str, Any],
    expected: list[dict[str, Any]],
    responses: Optional[list[dict[str, Any]]],
    loc: list[Any],
    where: str,
    warnings: list[str],
) -> Optional[list[dict[str, Any]]]:
    """The recorded turns of ``agent_data`` (one per expected turn), the last one's final
    response taken from ``responses[0]`` when given; ``None`` when the last user message is
    not answered yet (agents-cli's `eval generate` answers it)."""
    turns, details = _agent_data(case["agent_data"], [*loc, "agent_data"], where, warnings)
    if len(turns) != len(expected):
        raise DataError(
            f"{_at([*loc, 'agent_data'])}: {len(turns)} user turn(s), but the case expects {len(expected)} "
            "('prompt' after its 'conversation_history'); give agent_data the same user messages",
            source=where,
        )
    recorded = [dict(t, app_details=details) if details else dict(t) for t in turns]
    if responses:
        recorded[-1]["final_response"] = responses[-1]["final_response"]
    return recorded if "final_response" in recorded[-1] else None


def _expected(case: dict[str, Any], last: dict[str, Any], loc: list[Any], where: str) -> dict[str, Any]:
    """The last turn with what the case expects of it: ``reference`` and ``reference_trajectory``."""
    if case.get("reference") is not None:
        last["final_response"] = _response(case["reference"], [*loc, "reference"], where)
    trajectory = case.get("reference_trajectory")
    if trajectory:
        at = [*loc, "reference_trajectory"]
        contents = [_content(c, [*at, n], where) for n, c in enumerate(trajectory)]
        for n, content in enumerate(contents):
            if any(not part.get("function_call") for part in content.get("parts") or ()):
                raise DataError(
                    f"{_at([*at, n])}: a reference trajectory holds tool calls (function_call parts) only",
                    source=where,
                )
        last["intermediate_data"] = {"tool_uses": _calls(contents)}
    return last


def _recorded(
    case: dict[str, Any],
    turns: list[dict[str, Any]],
    last: dict[str, Any],
    loc: list[Any],
    where: str,
    warnings: list[str],
) -> Optional[list[dict[str, Any]]]:
    """The actual turns recorded in ``responses`` (the first candidate) and ``intermediate_events``."""
    responses = case.get("responses")
    if not responses:
        if case.get("intermediate_events"):
            warnings.append(
                f"{_at([*loc, 'intermediate_events'])}: steps of a response, but the case has no "
                "'responses'; dropped"
            )
        return None
    if not isinstance(responses, list):
        raise DataError(
            f"{_at([*loc, 'responses'])}: expected a list of {{'response': Content}}", source=where
        )
    if len(responses) > 1:
        warnings.append(
            f"{_at([*loc, 'responses'])}: {len(responses)} candidates; the first is scored, the other "
            f"{len(responses) - 1} are not read"
        )
    recorded = {
        "user_content": last["user_content"],
        "final_response": _response(responses[0], [*loc, "responses", 0], where),
    }
    events = []
    for n, event in enumerate(case.get("intermediate_events") or []):
        at = [*loc, "intermediate_events", n]
        if not isinstance(event, dict):
            raise DataError(f"{_at(at)}: expected an event object", source=where)
        events.append(
            {
                "author": event.get("author") or "agent",
                "content": _content(event.get("content") or {}, [*at, "content"], where),
            }
        )
    if events:
        recorded["intermediate_data"] = {"invocation_events": events}
    return [*turns, recorded]
