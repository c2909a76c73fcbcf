"""One span, flattened from any of the files the reader accepts, and the attribute rules they share.

Attributes are flattened from ``AnyValue`` (``intValue`` is a string in JSON; arrays and
key-value lists become lists and objects) or taken as they are when already plain;
attributes that hold JSON text (messages, tool arguments and results) are parsed, and kept
as text when they are not JSON (``<elided>``).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from agenteval.errors import DataError
from pydantic_core import from_json

from ._legacy_events import LEGACY_EVENTS, event_fields, legacy_messages

__all__ = [
    "ELIDED",
    "HEX_DIGITS",
    "JSON_ATTRIBUTES",
    "LAZY_ATTRIBUTES",
    "JsonText",
    "Span",
    "any_value",
    "attributes_of",
    "content_from_events",
    "flat_entries",
    "hex_id",
    "list_at",
    "loads",
    "parsed",
    "shown",
    "value_of",
]

#: What a hex id may hold.
HEX_DIGITS = "0123456789abcdefABCDEF"
#: What an instrumentation writes in place of content it does not record.
ELIDED = "<elided>"
#: Attributes whose value is JSON, parsed when a string holds it.
JSON_ATTRIBUTES = frozenset(
    {
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "gen_ai.tool.definitions",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "gcp.vertex.agent.tool_call_args",
        "gcp.vertex.agent.tool_response",
        "gcp.vertex.agent.llm_request",
        "gcp.vertex.agent.llm_response",
    }
)


#: JSON attributes a turn reads only for its first user message, the largest of a trace (a model
#: call's input repeats the conversation so far): their JSON text is parsed when read (``value_of``).
LAZY_ATTRIBUTES = frozenset(
    {
        "gen_ai.input.messages",
        "gen_ai.system_instructions",
        "gen_ai.tool.definitions",
        "gcp.vertex.agent.llm_request",
    }
)


class JsonText(str):
    """A ``LAZY_ATTRIBUTES`` value: JSON text of an array or object, not parsed yet."""

    __slots__ = ()


def value_of(attributes: dict[str, Any], key: str) -> Any:
    """An attribute's value, its JSON text parsed when it was left as text (``JsonText``)."""
    value = attributes.get(key)
    return parsed(str(value)) if type(value) is JsonText else value


@dataclass(slots=True)
class Span:
    """One span, flattened: lowercase hex ids, times in nanoseconds, plain attributes.
    (Slots: half a million spans of a 10k-trace file hold no ``__dict__`` each.)"""

    trace_id: str
    span_id: str
    parent_id: Optional[str]
    name: str
    start: int
    end: int
    attributes: dict[str, Any] = field(default_factory=dict)
    #: Where the span is in the file (``line 3``, ``resourceSpans[0].scopeSpans[1].spans[4]``).
    where: str = ""
    #: ``gen_ai.operation.name`` (``""`` when absent), read once: no reader changes it.
    operation: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.operation = str(self.attributes.get("gen_ai.operation.name") or "")


def content_from_events(
    attributes: dict[str, Any], events: Iterable[Any], at: str, where: str, *, replace: bool = False
) -> None:
    """Take the content attributes (``JSON_ATTRIBUTES``) of span events or log records into
    ``attributes``: where the span has none (or, with ``replace``, only ``<elided>``). The
    legacy per-message events (``gen_ai.user.message``, ``gen_ai.choice``...) give theirs as
    ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (``_legacy_events``)."""
    legacy: list[tuple[str, dict[str, Any]]] = []
    for e, event in enumerate(events):
        if not isinstance(event, dict):
            continue
        found = attributes_of(event.get("attributes"), f"{at}.events[{e}]", where)
        body = any_value(event.get("body"))
        # a span event's name, a log record's (or its event.name attribute), a Jaeger log's event field
        name = event.get("name") or event.get("eventName") or found.get("event.name") or found.get("event")
        if type(name) is str and name in LEGACY_EVENTS:  # (a name of another type is no event's)
            legacy.append((name, event_fields(body, found)))
            continue
        if isinstance(body, dict):
            found = {**attributes_of(body, f"{at}.events[{e}].body", where), **found}
        _take(attributes, found, replace=replace)
    if legacy:
        _take(attributes, legacy_messages(legacy, elided=ELIDED), replace=replace)


def _take(attributes: dict[str, Any], found: dict[str, Any], *, replace: bool) -> None:
    for key, value in found.items():
        if key in JSON_ATTRIBUTES and value not in (None, ELIDED):
            if key not in attributes or (replace and attributes[key] == ELIDED):
                attributes[key] = value


def attributes_of(
    value: Any, at: str, where: str, *, only: Optional[Container[str]] = None
) -> dict[str, Any]:
    """Attributes as plain values: OTLP's ``[{key, value: AnyValue}]`` or an object. With
    ``only``, every entry is checked but only those keys are taken, their JSON text left unparsed
    (a look at a span whose trace may not be wanted)."""
    if value is None:
        return {}
    flat: dict[str, Any] = {}
    if isinstance(value, dict):
        if only is not None:
            return {key: item for key, item in value.items() if key in only}
        for key, item in value.items():
            flat[key] = _json_value(key, item) if key in JSON_ATTRIBUTES else item
        return flat
    if not isinstance(value, list):
        raise DataError(f"{at}: expected a list of key-value pairs", source=where)
    if only is None and type(value) is list:
        fast = flat_entries(value)
        if fast is not None:
            return fast
    for i, entry in enumerate(value):
        try:
            key, raw = entry["key"], entry["value"]
        except (TypeError, KeyError):  # not a dict, or no key or no value (an absent value is null)
            key = entry.get("key") if isinstance(entry, dict) else None
            raw = None
        if type(key) is not str:
            raise DataError(f"{at}[{i}]: expected {{'key': ..., 'value': ...}}", source=where)
        if only is not None:
            if key in only:
                flat[key] = any_value(raw)
            continue
        # most attributes are strings: read them without the general AnyValue walk
        item = raw["stringValue"] if type(raw) is dict and "stringValue" in raw else any_value(raw)
        flat[key] = _json_value(key, item) if key in JSON_ATTRIBUTES else item
    return flat


def flat_entries(entries: list[Any]) -> Optional[dict[str, Any]]:
    """``attributes_of`` of a well-formed list of key-value pairs (every entry a dict with a text
    key and a value), in one comprehension; ``None`` for any other list, which the entry-by-entry
    loop reads (and names the entry it cannot)."""
    try:
        flat = {
            entry["key"]: raw["stringValue"] if "stringValue" in (raw := entry["value"]) else any_value(raw)
            for entry in entries
        }
    except (TypeError, KeyError):  # not a dict, no key or value, a value that is not an AnyValue...
        return None
    for key in flat:
        if type(key) is not str:
            return None
    for key in JSON_ATTRIBUTES.intersection(flat):
        flat[key] = _json_value(key, flat[key])
    return flat


def _json_value(key: str, item: Any) -> Any:
    """A ``JSON_ATTRIBUTES`` value: parsed, or (``LAZY_ATTRIBUTES``) kept as ``JsonText`` when it
    looks like a JSON array or object (any other text is parsed now, so that ``<elided>`` stays
    itself)."""
    if key in LAZY_ATTRIBUTES and type(item) is str and item[:1] in ("[", "{"):
        return JsonText(item)
    return parsed(item)


def loads(text: Union[str, bytes]) -> Any:
    """JSON text as Python values, as ``json.loads`` reads it: by pydantic-core's parser (about
    twice as fast on a trace's lines, four times on short attribute texts, and it shares
    repeated short strings), and by ``json.loads`` itself when that refuses the text (numbers
    longer than the interpreter converts, nesting past 200 levels, lone surrogates), so that
    what is read and every error are ``json.loads``'s."""
    try:
        return from_json(text)
    except ValueError:
        return json.loads(text)


def parsed(item: Any) -> Any:
    """A JSON attribute's value, parsed when it is JSON text."""
    if isinstance(item, str):
        try:
            return loads(item)
        except (ValueError, RecursionError):
            pass  # "<elided>" and other plain text (or text json cannot read) stay text
    return item


def any_value(value: Any) -> Any:
    """An OTLP ``AnyValue`` as a plain value (a plain value is returned as it is, and so is a
    member of the wrong type: ``{"doubleValue": null}``, an ``arrayValue`` that is no object)."""
    if not isinstance(value, dict):
        return value
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        found = value["intValue"]
        return _number(found, int) if type(found) is not bool else found
    if "doubleValue" in value:
        found = value["doubleValue"]
        return _number(found, float) if type(found) is not bool else found
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [any_value(v) for v in _values(value["arrayValue"])]
    if "kvlistValue" in value:
        return {
            kv.get("key"): any_value(kv.get("value"))
            for kv in _values(value["kvlistValue"])
            if isinstance(kv, dict) and isinstance(kv.get("key"), (str, type(None)))
        }
    if "bytesValue" in value:
        return value["bytesValue"]
    if not value:
        return None
    return value


def _number(found: Any, kind: type) -> Any:
    """``found`` as an int or float (OTLP/JSON writes 64-bit integers as strings), or as it
    is when it is none (``null``, a list, text that is no number, an infinite integer)."""
    try:
        return kind(found)
    except (TypeError, ValueError, OverflowError):
        return found


def _values(holder: Any) -> list[Any]:
    """The ``values`` list of an ``arrayValue`` or ``kvlistValue`` (none when it has none, or
    it is not as OTLP writes it)."""
    values = holder.get("values") if isinstance(holder, dict) else None
    return values if isinstance(values, list) else []


def shown(value: Any, limit: int = 80) -> str:
    """``repr(value)`` for an error message, cut to about ``limit`` characters (a 1 MB id is
    not echoed whole), with the length of what was cut."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 1]}… ({len(text):,} characters)"


def hex_id(value: Any, size: int, at: str, where: str, key: str = "") -> str:
    """An id of ``size`` bytes as lowercase hex, from hex or base64; a ``DataError`` names
    ``at`` + ``key`` (joined only then)."""
    if not isinstance(value, str) or not value:
        raise DataError(
            f"{at}{key}: expected {_id_size(size)} id (hex or base64), got {shown(value)}", source=where
        )
    if len(value) == 2 * size:
        if not value.strip(HEX_DIGITS):
            return value.lower()
        try:
            bytes.fromhex(value)
            return value.lower()
        except ValueError:
            pass
    try:
        decoded = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        decoded = b""
    if len(decoded) != size:
        raise DataError(
            f"{at}{key}: {shown(value)} is not {_id_size(size)} id ({2 * size} hex digits, or base64)",
            source=where,
        )
    return decoded.hex()


def _id_size(size: int) -> str:
    return f"an {size}-byte" if size == 8 else f"a {size}-byte"


def list_at(value: Any, path: str, where: str) -> list[Any]:
    """``value`` when a list; ``[]`` when absent (``null``); anything else a ``DataError``."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise DataError(f"{path}: expected a list, got {type(value).__name__}", source=where)
    return value
