"""Whether a turn's plain dict is one ``Invocation.model_validate`` surely accepts, told by a
walk of the shapes the turn builder (``_turns``) writes, for a fraction of pydantic's cost.

The answer is one-sided: ``True`` only for the builder's own shapes with values of the exact
types the models take (a text part, a thought, a function call or response, an event, a
message); anything else (another key, a value of another type, a part read from ADK's
``llm_response``) is ``False``, and the caller validates with pydantic, which gives the answer
and its error message. A hypothesis test holds ``True`` to pydantic's acceptance.
"""

from __future__ import annotations

import sys
from typing import Any

from agenteval.models import Invocation

__all__ = ["check_invocation", "surely_valid"]

_RECORD_KEYS = frozenset(
    {
        "invocation_id",
        "user_content",
        "final_response",
        "intermediate_data",
        "creation_timestamp",
        "duration",
        "model_duration",
        "tool_duration",
    }
)
_DURATIONS = ("duration", "model_duration", "tool_duration")
_EVENT_KEYS = frozenset({"author", "content", "usage_metadata", "model_version"})
_CONTENT_KEYS = frozenset({"role", "parts"})
_CALL_KEYS = frozenset({"id", "name", "args"})
_RESPONSE_KEYS = frozenset({"id", "name", "response"})
_ROLES = (None, "user", "model")
_NUMBERS = (float, int)
_LARGEST = sys.float_info.max


def check_invocation(record: Any) -> None:
    """Raise pydantic's ``ValidationError`` (a ``ValueError``) when ``Invocation`` cannot hold
    ``record``; pydantic is asked only when ``surely_valid`` cannot tell."""
    if not surely_valid(record):
        Invocation.model_validate(record)


def surely_valid(record: Any) -> bool:
    """Whether ``Invocation.model_validate(record)`` surely succeeds (``False``: ask it)."""
    if type(record) is not dict or not _RECORD_KEYS.issuperset(record) or "user_content" not in record:
        return False
    if type(record.get("invocation_id", "")) is not str or not _content(record["user_content"]):
        return False
    final = record.get("final_response")
    if final is not None and not _content(final):
        return False
    if type(record.get("creation_timestamp", 0.0)) not in _NUMBERS:
        return False
    for key in _DURATIONS:  # seconds: finite, never negative (NaN is in no range)
        value = record.get(key)
        if value is not None and (type(value) not in _NUMBERS or not 0 <= value <= _LARGEST):
            return False
    data = record.get("intermediate_data")
    if data is None:
        return True
    if type(data) is not dict or data.keys() != {"invocation_events"}:
        return False
    events = data["invocation_events"]
    if type(events) is not list:
        return False
    for event in events:  # one loop, no call per event: a turn has dozens
        if (
            type(event) is not dict
            or not _EVENT_KEYS.issuperset(event)
            or type(event.get("author")) is not str
        ):
            return False
        content = event.get("content")
        version = event.get("model_version")
        usage = event.get("usage_metadata")
        if content is not None and not _content(content):
            return False
        if (version is not None and type(version) is not str) or (usage is not None and not _object(usage)):
            return False
    return True


def _content(content: Any) -> bool:
    if type(content) is not dict or not _CONTENT_KEYS.issuperset(content):
        return False
    if content.get("role") not in _ROLES:
        return False
    parts = content.get("parts")
    if parts is None:
        return True
    if type(parts) is not list:
        return False
    for part in parts:
        if type(part) is not dict:
            return False
        if "text" in part:
            if type(part["text"]) is not str or len(part) != 1 + ("thought" in part):
                return False
            if type(part.get("thought", False)) is not bool:
                return False
        elif len(part) != 1:
            return False
        elif "function_call" in part:
            call = part["function_call"]
            name = call.get("name") if type(call) is dict else None
            if type(name) is not str or not name.strip() or not _CALL_KEYS.issuperset(call):
                return False
            known = call.get("id")
            if not ((known is None or type(known) is str) and _object(call.get("args"))):
                return False
        else:
            response = part.get("function_response")
            if type(response) is not dict or not _RESPONSE_KEYS.issuperset(response):
                return False
            if not (
                _optional_text(response.get("id"))
                and _optional_text(response.get("name"))
                and _object(response.get("response"))
            ):
                return False
    return True


def _optional_text(value: Any) -> bool:
    return value is None or type(value) is str


def _object(value: Any) -> bool:
    """``None`` or a dict with text keys (``dict[str, Any]``)."""
    if value is None:
        return True
    if type(value) is not dict:
        return False
    for key in value:  # (a loop, not all() of a generator: this runs for every call and response)
        if type(key) is not str:
            return False
    return True
