"""Checking a large JSON object element by element (``check_elements``): any valid layout,
whitespace, escapes and characters give the spans of exactly the elements ``json.loads``
finds, window by window; a document with any problem gives ``None`` (the caller then
reads it whole, and its error names the file, line:column and fix)."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from agenteval._loading._eval_files import read_eval_cases
from agenteval._loading._json import parse_json
from agenteval._loading._json_elements import check_elements
from agenteval.errors import DataError
from agenteval.models import EvalSet
from hypothesis import given, settings
from hypothesis import strategies as st

_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_FLOAT = st.floats(allow_nan=False, allow_infinity=False)
_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | _FLOAT | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)
_SPACE = st.text(st.sampled_from(" \t\r\n"), max_size=3)


def _spans(data: bytes, window: int = 1 << 20) -> object:
    return check_elements(data, source="x", what="a test", member="items", window=window)


def _layout(document: dict, indent: object, ascii_only: bool, space: str) -> bytes:
    text = json.dumps(document, indent=indent, ensure_ascii=ascii_only)  # type: ignore[arg-type]
    return (space + text + space).encode("utf-8")


@settings(max_examples=200, deadline=None)
@given(
    before=st.dictionaries(_TEXT.filter(lambda k: k != "items"), _VALUE, max_size=2),
    after=st.dictionaries(_TEXT.filter(lambda k: k != "items"), _VALUE, max_size=2),
    items=st.lists(_VALUE, min_size=1, max_size=6),
    indent=st.sampled_from([None, 0, 2, "\t"]),
    ascii_only=st.booleans(),
    space=_SPACE,
    window=st.sampled_from([1, 3, 16, 1 << 20]),
)
def test_each_span_holds_exactly_the_element_json_load_finds(
    before, after, items, indent, ascii_only, space, window
):
    document = {**before, "items": items, **{k: v for k, v in after.items() if k not in before}}
    data = _layout(document, indent, ascii_only, space)
    found = _spans(data, window)
    assert found is not None
    assert [json.loads(data[start:end]) for start, end in found] == json.loads(data)["items"]
    old: list[tuple[int, int]] = []
    parse_json(data, source="x", what="a test", keep=False, spans=("items", old))
    assert found == old


@settings(max_examples=100, deadline=None)
@given(
    items=st.lists(st.text(max_size=6), min_size=1, max_size=4),
    window=st.sampled_from([1, 5, 1 << 20]),
)
def test_escapes_and_surrogate_pairs_in_strings_are_read_as_json_reads_them(items, window):
    written = ", ".join(json.dumps({"t": text}) for text in items)  # \\uXXXX escapes, pairs for astral
    data = ('{"items": [' + written + "]}").encode()
    found = _spans(data, window)
    assert found is not None
    assert [json.loads(data[a:b])["t"] for a, b in found] == items


@pytest.mark.parametrize(
    "text",
    [
        '[{"a": 1}]',  # not an object
        '{"items": {"a": 1}}',  # not an array
        '{"items": []}',  # no element
        '{"items": [1, 2,]}',  # a trailing comma
        '{"items": [1 2]}',  # a missing comma
        '{"items": [1], "items": [2]}',  # a duplicate member
        '{"a": 1, "a": 2, "items": [1]}',  # a duplicate key before the array
        '{"items": [1], "b": NaN}',  # after it
        '{"items": [{"k": 1, "k": 2}]}',  # inside an element
        '{"items": [NaN]}',
        '{"items": [1e400]}',
        '{"items": ["\\ud800"]}',  # a lone surrogate
        '{"items": [1]} x',  # extra data
        '{"items": [1],}',
        '{"items": [1]',  # cut short
        '{"items": [{"a": "b\nc"}]}',  # a raw line break in a string
    ],
)
def test_a_document_with_a_problem_or_another_shape_gives_none(text):
    for window in (2, 1 << 20):
        assert _spans(text.encode(), window) is None


def test_bytes_that_are_not_utf8_give_none():
    assert _spans(b'{"items": ["\xff"]}', 4) is None


def test_a_surrogate_pair_and_both_spellings_in_free_form_arguments_pass():
    args = {"eval_id": 1, "evalId": 2}  # free-form: any keys
    case = {
        "eval_id": "c",
        "conversation": [
            {
                "user_content": {"parts": [{"text": "\U0001f600"}]},
                "intermediate_data": {"tool_uses": [{"name": "t", "args": args}]},
            }
        ],
    }
    data = json.dumps({"eval_set_id": "s", "eval_cases": [case]}).encode()
    found = check_elements(data, source="x", what="x", member="eval_cases", model=EvalSet)
    assert found is not None and json.loads(data[found[0][0] : found[0][1]]) == case


def test_a_field_in_both_spellings_inside_a_case_gives_none():
    case = {"eval_id": "c", "evalId": "d", "conversation": []}
    data = json.dumps({"eval_set_id": "s", "eval_cases": [case]}).encode()
    assert check_elements(data, source="x", what="x", member="eval_cases", model=EvalSet) is None


@pytest.mark.parametrize("window", [7, 64, 1 << 20])
@pytest.mark.parametrize(
    "damaged",
    [
        '{"role": "user", "role": "model"}',  # a key twice, deep in a turn
        '{"role": "user", "parts": [{"text": "a", "function_call": {"name": "t", "name": "u"}}]}',
    ],
)
def test_a_key_twice_deep_in_a_later_case_gives_none_whatever_the_window(damaged, window):
    """Objects are checked in bulk once each case is decoded; a case the window cut short is
    decoded again, and only its last decoding counts."""
    case = '{"eval_id": "c%d", "conversation": [{"user_content": %s}]}'
    clean = [case % (i, '{"role": "user", "parts": [{"text": "x"}]}') for i in range(3)]
    good = ('{"eval_set_id": "s", "eval_cases": [' + ", ".join(clean) + "]}").encode()
    assert check_elements(good, source="x", what="x", member="eval_cases", model=EvalSet, window=window)
    cases = [*clean[:2], case % (2, damaged), clean[2]]
    data = ('{"eval_set_id": "s", "eval_cases": [' + ", ".join(cases) + "]}").encode()
    assert (
        check_elements(data, source="x", what="x", member="eval_cases", model=EvalSet, window=window) is None
    )


@pytest.mark.parametrize("window", [7, 1 << 20])
def test_a_field_in_both_spellings_deep_in_a_later_case_gives_none_and_free_form_keys_pass(window):
    turn = {"invocation_id": "i", "user_content": {"parts": [{"text": "x"}]}}
    cases = [{"eval_id": f"c{i}", "conversation": [dict(turn)]} for i in range(3)]
    cases[1]["conversation"][0]["state"] = {"invocation_id": 1, "invocationId": 2}  # free-form
    data = json.dumps({"eval_set_id": "s", "eval_cases": cases}).encode()
    assert check_elements(data, source="x", what="x", member="eval_cases", model=EvalSet, window=window)
    cases[2]["conversation"][0]["invocationId"] = "j"
    data = json.dumps({"eval_set_id": "s", "eval_cases": cases}).encode()
    assert (
        check_elements(data, source="x", what="x", member="eval_cases", model=EvalSet, window=window) is None
    )


def test_a_damaged_file_still_names_the_line_and_column(tmp_path: Path):
    """The element checker gives up; the whole read gives the error with every detail."""
    cases = [{"eval_id": f"c{i}", "conversation": []} for i in range(50)]
    text = json.dumps({"eval_set_id": "s", "eval_cases": cases}, indent=1)
    text = text.replace('"eval_id": "c40"', '"eval_id": "c40", "eval_id": "again"')
    path = tmp_path / "big.evalset.json"
    path.write_text(text, encoding="utf-8")
    line = text[: text.index('"eval_id": "again"')].count("\n") + 1
    with pytest.raises(DataError) as caught:
        read_eval_cases(path, lambda index, case: None)
    assert f"{line}:" in str(caught.value) and "duplicate key 'eval_id'" in str(caught.value)
    assert str(path) in str(caught.value) or caught.value.source == str(path)


def test_reading_a_large_file_never_holds_its_text_beside_its_bytes(tmp_path: Path):
    """Issue 27: a 185 MB actual file was decoded whole to be checked (its bytes and its
    text at once); now only a window of it is decoded at a time."""
    case = {
        "eval_id": "c",
        "conversation": [{"user_content": {"role": "user", "parts": [{"text": "word " * 200}]}}],
    }
    cases = [{**case, "eval_id": f"c{i}"} for i in range(4000)]
    path = tmp_path / "big.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "s", "eval_cases": cases}), encoding="utf-8")
    size = path.stat().st_size
    assert size > 4 * (1 << 20)
    small = tmp_path / "small.evalset.json"
    small.write_text(json.dumps({"eval_set_id": "s", "eval_cases": cases[:2]}), encoding="utf-8")
    read_eval_cases(small, lambda index, case: None)  # what the first read imports is not the file's
    tracemalloc.start()
    try:
        header = read_eval_cases(path, lambda index, case: None)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert header.case_spans is not None and len(header.case_spans) == 4000
    assert peak < 1.9 * size  # the bytes and a window of them; with the whole text, over twice the size


@pytest.mark.parametrize("window", range(1, 40))
def test_a_number_the_window_cuts_short_is_read_whole(window):
    data = b'{"a": 0.5, "b": 12345, "items": [0.25, 1e5, -7, 12.5e-3], "c": 9.75}'
    found = _spans(data, window)
    assert found is not None
    assert [json.loads(data[a:b]) for a, b in found] == [0.25, 1e5, -7, 12.5e-3]
