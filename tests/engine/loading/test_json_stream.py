"""``iter_json_array`` (``agenteval.plugins``): one array of a JSON document read element by
element from a file, any window size, equal to ``json.loads`` of the whole text: the same
elements and other members, and for damaged or cut-off text the same error at the same line
and column (or, when the damage changes the document's shape, a ``LookupError`` before any
element)."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from agenteval.plugins import iter_json_array
from hypothesis import given, settings
from hypothesis import strategies as st

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)


def _read(data: bytes, path: tuple[str, ...], window: int) -> tuple[list[Any], dict[tuple[str, ...], Any]]:
    rest: dict[tuple[str, ...], Any] = {}
    return list(iter_json_array(io.BytesIO(data), path, rest, window=window)), rest


def _document(before: dict[str, Any], items: list[Any], after: dict[str, Any], indent: Any) -> str:
    body = {**{k: v for k, v in before.items() if k != "items"}, "items": items}
    body.update({k: v for k, v in after.items() if k not in body})
    return json.dumps(body, indent=indent, ensure_ascii=False)


_DOCS = st.builds(
    _document,
    st.dictionaries(st.text(max_size=3), _VALUES, max_size=2),
    st.lists(_VALUES, max_size=5),
    st.dictionaries(st.text(max_size=3), _VALUES, max_size=2),
    st.sampled_from([None, 1, 2]),
)


@settings(max_examples=150, deadline=None)
@given(text=_DOCS, window=st.integers(1, 40))
def test_the_elements_and_the_other_members_are_json_s(text, window):
    whole = json.loads(text)
    items, rest = _read(text.encode("utf-8"), ("items",), window)
    assert items == whole["items"]
    assert rest == {(k,): v for k, v in whole.items() if k != "items"}


@settings(max_examples=60, deadline=None)
@given(items=st.lists(_VALUES, max_size=4), window=st.integers(1, 30))
def test_an_array_inside_objects_on_the_path(items, window):
    text = json.dumps({"trace": {"x": 1, "batches": items}, "y": [2]})
    got, rest = _read(b"\xef\xbb\xbf" + text.encode("utf-8"), ("trace", "batches"), window)
    assert got == items and rest == {("trace", "x"): 1, ("y",): [2]}


def _outcome(data: bytes, window: int) -> Any:
    try:
        items, _ = _read(data, ("items",), window)
    except json.JSONDecodeError as exc:
        return ("error", exc.msg, exc.lineno, exc.colno, exc.pos)
    except LookupError:
        return "shape"
    return items


@settings(max_examples=300, deadline=None)
@given(text=_DOCS, data=st.data(), window=st.integers(1, 40))
def test_a_damaged_or_cut_off_document_gives_json_s_error_at_the_same_place(text, data, window):
    raw = text.encode("utf-8")
    at = data.draw(st.integers(0, len(raw)))
    damage = data.draw(st.sampled_from(["cut", "replace", "delete", "insert"]))
    byte = data.draw(st.sampled_from(list(b'{}[],:" 0a\\\n')))
    damaged = {
        "cut": raw[:at],
        "replace": raw[:at] + bytes([byte]) + raw[at + 1 :],
        "delete": raw[:at] + raw[at + 1 :],
        "insert": raw[:at] + bytes([byte]) + raw[at:],
    }[damage]
    try:
        whole = json.loads(damaged.decode("utf-8"))
    except UnicodeDecodeError:
        return  # a cut multi-byte character: the next test's case
    except json.JSONDecodeError as exc:
        assert _outcome(damaged, window) in (("error", exc.msg, exc.lineno, exc.colno, exc.pos), "shape")
        return
    got = _outcome(damaged, window)
    if isinstance(whole, dict) and isinstance(whole.get("items"), list) and got != "shape":
        assert got == whole["items"]


@pytest.mark.parametrize("window", [1, 2, 3, 5, 64])
def test_bytes_that_are_not_utf8_are_named_by_their_offset_in_the_document(window):
    text = '{"items": ["é", "ü", "\U0001f600", "x'.encode() + b"\xff" + b'"]}'
    with pytest.raises(UnicodeDecodeError) as caught:
        _read(b"\xef\xbb\xbf" + text, ("items",), window)
    assert caught.value.start == text.index(b"\xff")
    assert _read('{"items": ["é\U0001f600ü"]}'.encode(), ("items",), window)[0] == ["é\U0001f600ü"]


@pytest.mark.parametrize(
    "text",
    ['["items"]', '{"other": []}', '{"items": {"a": 1}}', '{"items": null}', "  "],
)
def test_a_document_of_another_shape_is_a_lookup_error_before_any_element(text):
    with pytest.raises(LookupError):
        _read(text.encode(), ("items",), 4)


def test_an_array_given_twice_is_an_error_after_its_first_elements():
    stream = iter_json_array(io.BytesIO(b'{"items": [1, 2], "items": [3]}'), ["items"], window=3)
    assert next(stream) == 1 and next(stream) == 2
    with pytest.raises(LookupError, match="twice"):
        next(stream)
