"""Case spans: loading an eval set notes where each case's bytes are, so that one case can
be read again alone, equal to the case the whole file gave; changed bytes read as ``None``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agenteval._loading import read_eval_file
from agenteval._loading._json import parse_json
from agenteval.errors import DataError
from hypothesis import given, settings
from hypothesis import strategies as st

_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(
    before=st.dictionaries(_TEXT.filter(lambda k: k != "items"), _VALUE, max_size=2),
    items=st.lists(_VALUE, max_size=5),
    indent=st.sampled_from([None, 0, 2, "\t"]),
    ascii_only=st.booleans(),
)
def test_each_span_holds_exactly_its_element(before, items, indent, ascii_only):
    document = {**before, "items": items}
    data = json.dumps(document, indent=indent, ensure_ascii=ascii_only).encode("utf-8")
    found: list[tuple[int, int]] = []
    value = parse_json(data, source="x", what="a test", spans=("items", found))
    assert value == document
    assert [json.loads(data[start:end]) for start, end in found] == items


@pytest.mark.parametrize(
    "text",
    [
        '[{"a": 1}]',  # not an object
        '{"items": {"a": 1}}',  # not an array
        '{"items": [1, 2,]}',  # invalid: a trailing comma
        '{"items": [1], "items": [2]}',  # a duplicate key
        '{"items": [1]} x',  # extra data
        '{"items": [1],}',
    ],
)
def test_a_document_of_another_shape_gives_no_spans_and_the_same_answer(text):
    def outcome(**spans):
        try:
            return parse_json(text.encode(), source="x", what="a test", **spans)
        except DataError as exc:
            return str(exc)

    found: list[tuple[int, int]] = []
    assert outcome(spans=("items", found)) == outcome()
    assert found == []


def _eval_file(path: Path, *, bom: bool = False) -> Path:
    cases = [
        {
            "eval_id": f"c{i}",
            "conversation": [
                {
                    "user_content": {"role": "user", "parts": [{"text": f"¿qué tal? {i} — 東京"}]},
                    "final_response": {"role": "model", "parts": [{"text": f"bien {i}"}]},
                }
            ],
            "extra_key": {"kept": i},
        }
        for i in range(5)
    ]
    text = json.dumps({"eval_set_id": "s", "eval_cases": cases}, ensure_ascii=False, indent=1)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    return path


@pytest.mark.parametrize("bom", [False, True])
def test_a_case_read_alone_equals_the_case_the_whole_file_gave(tmp_path, bom):
    path = _eval_file(tmp_path / "s.evalset.json", bom=bom)
    loaded = read_eval_file(path)
    assert loaded.case_spans is not None and len(loaded.case_spans) == 5
    for index, case in enumerate(loaded.eval_set.eval_cases):
        alone = loaded.case_spans.case(path, index)
        assert alone == case
        assert alone.model_dump_json(exclude_unset=True) == case.model_dump_json(exclude_unset=True)


def test_a_case_whose_bytes_changed_reads_as_none(tmp_path):
    path = _eval_file(tmp_path / "s.evalset.json")
    loaded = read_eval_file(path)
    assert loaded.case_spans is not None
    path.write_bytes(path.read_bytes().replace(b"bien 3", b"bien 9"))
    assert loaded.case_spans.case(path, 3) is None
    assert loaded.case_spans.case(path, 2) == loaded.eval_set.eval_cases[2]


def test_legacy_files_have_no_spans(tmp_path):
    path = tmp_path / "flat.test.json"
    path.write_text(json.dumps([{"query": "hi", "reference": "hello", "expected_tool_use": []}]))
    assert read_eval_file(path).case_spans is None


def test_every_case_of_the_real_eval_set_files_reads_alone_as_loaded(real_evalsets_dir, monkeypatch):
    monkeypatch.delenv("AGENTEVAL_MAX_FILE_MB", raising=False)
    checked = 0
    for path in sorted(real_evalsets_dir.glob("*/*.json")):
        try:
            loaded = read_eval_file(path)
        except DataError:
            continue  # a file ADK rejects too
        if loaded.format != "evalset":
            assert loaded.case_spans is None
            continue
        assert loaded.case_spans is not None, path
        for index, case in enumerate(loaded.eval_set.eval_cases):
            alone = loaded.case_spans.case(path, index)
            assert alone == case and alone.model_dump_json() == case.model_dump_json(), (path, index)
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("window", [1, 300, 64 * 1024])
@pytest.mark.parametrize("order", ["file", "reversed", "shuffled"])
def test_cases_read_alone_in_any_order_through_any_window_equal_the_loaded_ones(
    tmp_path, monkeypatch, window, order
):
    from agenteval._loading import _case_spans

    monkeypatch.setattr(_case_spans, "_WINDOW", window)
    path = _eval_file(tmp_path / "s.evalset.json", bom=True)
    loaded = read_eval_file(path)
    assert loaded.case_spans is not None
    indexes = list(range(5))
    if order == "reversed":
        indexes.reverse()
    elif order == "shuffled":
        indexes = [3, 0, 4, 1, 2, 2]
    for index in indexes:
        assert loaded.case_spans.case(path, index) == loaded.eval_set.eval_cases[index]


def test_cases_read_in_file_order_open_the_file_once_per_window_and_let_it_go(tmp_path, monkeypatch):
    from agenteval._loading import _case_spans

    path = _eval_file(tmp_path / "s.evalset.json")
    loaded = read_eval_file(path)
    spans = loaded.case_spans
    assert spans is not None
    opened: list[str] = []

    def counted(*args, **kwargs):
        opened.append(str(args[0]))
        return open(*args, **kwargs)

    monkeypatch.setattr(_case_spans, "open", counted, raising=False)
    for index in range(5):
        assert spans.case(path, index) == loaded.eval_set.eval_cases[index]
    assert len(opened) == 1  # the five cases are in one window
    assert spans._window is None  # its last case was read: the bytes are let go
    monkeypatch.setattr(_case_spans, "_WINDOW", 1)  # each case in a window of its own
    for index in range(5):
        spans.case(path, index)
    assert len(opened) == 6


def test_a_case_changed_past_the_window_read_reads_as_none(tmp_path, monkeypatch):
    from agenteval._loading import _case_spans

    monkeypatch.setattr(_case_spans, "_WINDOW", 1)
    path = _eval_file(tmp_path / "s.evalset.json")
    loaded = read_eval_file(path)
    assert loaded.case_spans is not None
    assert loaded.case_spans.case(path, 0) == loaded.eval_set.eval_cases[0]
    path.write_bytes(path.read_bytes().replace(b"bien 3", b"bien 9"))
    assert loaded.case_spans.case(path, 3) is None
    assert loaded.case_spans.case(path, 4) == loaded.eval_set.eval_cases[4]


def test_a_truncated_file_reads_as_none(tmp_path):
    path = _eval_file(tmp_path / "s.evalset.json")
    loaded = read_eval_file(path)
    assert loaded.case_spans is not None
    path.write_bytes(path.read_bytes()[:200])
    assert loaded.case_spans.case(path, 4) is None
