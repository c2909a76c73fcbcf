"""Attributes flattened (``_span.attributes_of``): a well-formed list of key-value pairs read in one
comprehension (``flat_entries``) gives exactly what the entry-by-entry reading gives, and any
other list is read entry by entry (the same values, the same error naming the entry)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agenteval.errors import DataError
from agenteval_otel._span import JsonText, attributes_of, flat_entries
from hypothesis import given, settings
from hypothesis import strategies as st


class _Listed(list):  # type: ignore[type-arg]
    """A list ``attributes_of`` reads entry by entry (the one-comprehension path takes only ``list``)."""


_TEXT = st.sampled_from(["", "x", "<elided>", "stringValue", '{"a": 1}', "[1, 2]", '{"a":', "7"])
_VALUE = st.one_of(
    st.builds(lambda t: {"stringValue": t}, _TEXT),
    st.builds(lambda n: {"intValue": str(n)}, st.integers()),
    st.builds(lambda f: {"doubleValue": f}, st.floats(allow_nan=False)),
    st.builds(lambda b: {"boolValue": b}, st.booleans()),
    st.builds(lambda t: {"arrayValue": {"values": [{"stringValue": t}]}}, _TEXT),
    st.builds(lambda t: {"kvlistValue": {"values": [{"key": "k", "value": {"stringValue": t}}]}}, _TEXT),
    st.just({}),
    st.none(),
    _TEXT,
    st.integers(),
)
_KEY = st.one_of(
    st.sampled_from(
        [
            "gen_ai.operation.name",
            "gen_ai.output.messages",
            "gen_ai.input.messages",
            "gen_ai.tool.call.arguments",
            "gen_ai.tool.call.result",
            "other",
        ]
    ),
    st.integers(),
    st.none(),
)
_ENTRY = st.one_of(
    st.builds(lambda k, v: {"key": k, "value": v}, _KEY, _VALUE),
    st.builds(lambda k: {"key": k}, _KEY),
    st.builds(lambda v: {"value": v}, _VALUE),
    st.just("not an entry"),
)


def _read(entries: list[Any]) -> Any:
    try:
        flat = attributes_of(entries, "span.attributes", "trace.json")
    except DataError as error:
        return ("error", str(error))
    return [(key, type(value).__name__, json.dumps(value, default=str)) for key, value in flat.items()]


@settings(max_examples=300, deadline=None)
@given(st.lists(_ENTRY, max_size=6))
def test_a_list_read_in_one_comprehension_gives_what_reading_it_entry_by_entry_gives(entries):
    assert _read(entries) == _read(_Listed(entries))


def test_a_well_formed_list_is_read_in_one_comprehension_with_json_text_parsed_or_kept_lazy():
    entries = [
        {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
        {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "12"}},
        {"key": "gen_ai.output.messages", "value": {"stringValue": '[{"role": "assistant"}]'}},
        {"key": "gen_ai.input.messages", "value": {"stringValue": '[{"role": "user"}]'}},
        {"key": "gen_ai.tool.call.result", "value": {"stringValue": "<elided>"}},
    ]
    flat = flat_entries(entries)
    assert flat == {
        "gen_ai.operation.name": "chat",
        "gen_ai.usage.input_tokens": 12,
        "gen_ai.output.messages": [{"role": "assistant"}],
        "gen_ai.input.messages": '[{"role": "user"}]',
        "gen_ai.tool.call.result": "<elided>",
    }
    assert type(flat["gen_ai.input.messages"]) is JsonText


@pytest.mark.parametrize(
    "entries",
    [
        [{"key": 3, "value": {"stringValue": "x"}}],  # a key that is not text
        [{"key": "a"}],  # no value
        [{"key": "a", "value": "has stringValue in it"}],  # a plain text value
        ["not an entry"],
    ],
)
def test_other_lists_are_left_to_the_entry_by_entry_reading(entries):
    assert flat_entries(entries) is None
