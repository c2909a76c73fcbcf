"""``read_eval_cases``: each case validated alone and handed out, never the whole file as
models; the same cases, warnings and errors as ``read_eval_file``."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from agenteval._loading._eval_files import read_eval_cases, read_eval_file, validate_part
from agenteval.errors import DataError
from agenteval.models import EvalSet
from agenteval.testing import make_case, make_invocation


def _eval_set(count: int = 6) -> dict:
    cases = [make_case([make_invocation(f"q {i}", f"a {i}")], eval_id=f"c{i}") for i in range(count)]
    return json.loads(EvalSet(eval_set_id="s", eval_cases=cases).model_dump_json())


def _handed(path: Path) -> tuple[list, object]:
    got: list = []
    header = read_eval_cases(path, lambda index, case: got.append((index, case)))
    return got, header


def test_the_cases_and_warnings_are_those_of_the_whole_file(tmp_path):
    data = _eval_set()
    data["extra_top"] = 1
    data["eval_cases"][3]["unknown_key"] = True
    path = tmp_path / "s.evalset.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    got, header = _handed(path)
    whole = read_eval_file(path)
    assert [case for _, case in got] == whole.eval_set.eval_cases
    assert [index for index, _ in got] == list(range(6))
    assert header.eval_set.eval_cases == [] and header.eval_set.eval_set_id == "s"
    assert header.warnings == whole.warnings and len(header.warnings) == 2
    assert header.sha256 == whole.sha256 and header.case_spans is not None and len(header.case_spans) == 6


def _damaged(data: dict) -> list[tuple[str, str]]:
    """Damage that only a case deep in the file shows, each with its name."""
    return [
        ("duplicate id", json.dumps({**data, "eval_cases": [*data["eval_cases"], data["eval_cases"][1]]})),
        ("a field of the wrong type", json.dumps(data).replace('"eval_id": "c4"', '"eval_id": 4')),
        ("a key spelt twice", json.dumps(data).replace('"eval_id": "c4"', '"eval_id": "c4", "evalId": "x"')),
        ("a duplicate key", json.dumps(data).replace('"eval_id": "c4"', '"eval_id": "c4", "eval_id": "c9"')),
        ("a syntax error", json.dumps(data).replace('"eval_id": "c4",', '"eval_id": "c4",,')),
    ]


@pytest.mark.parametrize("index", range(5))
def test_a_damaged_file_gives_the_same_error_read_whole_streamed_or_in_parts_validated_elsewhere(
    tmp_path, index
):
    name, text = _damaged(_eval_set())[index]
    path = tmp_path / "s.evalset.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as whole:
        read_eval_file(path)
    with pytest.raises(DataError) as streamed:
        _handed(path)
    assert str(streamed.value) == str(whole.value), name
    with pytest.raises(DataError) as split:  # the damage in a part another process validates
        _read_split(path, [2, 4])
    assert str(split.value) == str(streamed.value), name


def test_a_legacy_list_is_read_whole_and_its_cases_handed_out(tmp_path):
    path = tmp_path / "flat.test.json"
    path.write_text(json.dumps([{"query": "hi", "reference": "hello"}]), encoding="utf-8")
    got, header = _handed(path)
    assert [case for _, case in got] == read_eval_file(path).eval_set.eval_cases
    assert header.format == "legacy-flat" and header.case_spans is None


# -- a part validated by another process (``split``, ``validate_part``) ----------------------


def _note(index: int, case) -> tuple[int, str]:
    return index, case.eval_id


def _read_split(
    path: Path, starts: list[int], *, before=None, after=None, undone=()
) -> tuple[list, object, list]:
    """``read_eval_cases`` with parts from each of ``starts`` validated by ``validate_part``
    here, as the other process would (``undone``: parts not done yet); ``before`` runs first
    (say, to change the file), ``after`` changes each answer."""
    asked: list[object] = []

    def split(spans):
        def taken(start: int, end: int):
            if start in undone:
                return None
            if before is not None:
                before()
            offset, bounds, digests = spans.part(start, end)
            part = validate_part(str(path), offset, bounds, digests, start, _note)
            asked.append(part)
            return after(part) if after is not None else part

        ends = [*starts[1:], len(spans)]
        return [
            (start, functools.partial(taken, start, end)) for start, end in zip(starts, ends, strict=True)
        ]

    got: list = []
    header = read_eval_cases(
        path,
        lambda index, case: got.append(("case", index, case.eval_id)),
        split=split,
        each_note=lambda index, eval_id, note: got.append(("note", index, eval_id, note)),
    )
    return got, header, asked


def test_a_part_validated_elsewhere_hands_its_notes_and_warnings_in_file_order(tmp_path):
    data = _eval_set(8)
    data["eval_cases"][1]["unknown_key"] = 1
    data["eval_cases"][6]["other_key"] = 2
    path = tmp_path / "s.evalset.json"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    alone, header_alone = _handed(path)
    got, header, asked = _read_split(path, [3, 5])
    assert None not in asked and len(asked) == 2
    notes = [("note", i, f"c{i}", (i, f"c{i}")) for i in range(8)]
    assert got == [("case", i, f"c{i}") for i in range(3)] + notes[3:]
    assert header.warnings == header_alone.warnings and len(header.warnings) == 2
    assert header.sha256 == header_alone.sha256 and len(header.case_spans) == 8
    assert [header.case_spans.case(path, i) for i in range(8)] == [case for _, case in alone]
    got, header, _ = _read_split(path, [1, 3, 5], undone={3})  # a part not done yet: done here
    assert got == [("case", 0, "c0"), *notes[1:3], ("case", 3, "c3"), ("case", 4, "c4"), *notes[5:]]
    assert header.warnings == header_alone.warnings


@pytest.mark.parametrize(("at", "repeated"), [(4, "c1"), (5, "c3")])
def test_an_id_of_a_part_that_repeats_one_before_it_is_found_here(tmp_path, at, repeated):
    data = _eval_set(6)
    data["eval_cases"][at]["eval_id"] = repeated  # of the cases before the parts, or of the part before
    path = tmp_path / "s.evalset.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataError) as alone:
        _handed(path)
    with pytest.raises(DataError) as split:
        _read_split(path, [2, 4])
    assert str(split.value) == str(alone.value) and f"duplicate id {repeated!r}" in str(alone.value)


def test_a_part_the_other_process_could_not_validate_is_validated_here(tmp_path):
    path = tmp_path / "s.evalset.json"
    path.write_text(json.dumps(_eval_set(6)), encoding="utf-8")
    alone, header_alone = _handed(path)
    got, header, asked = _read_split(path, [2], after=lambda part: None)
    assert got == [("case", i, f"c{i}") for i in range(6)] and header.warnings == header_alone.warnings
    short = lambda part: (part[0], part[1][:-1], part[2][:-1])  # noqa: E731
    got, _, _ = _read_split(path, [2], after=short)
    assert got == [("case", i, f"c{i}") for i in range(6)]


def test_a_file_changed_before_the_other_process_reads_it_gives_no_part(tmp_path):
    path = tmp_path / "s.evalset.json"
    text = json.dumps(_eval_set(6))
    path.write_text(text, encoding="utf-8")

    def change() -> None:
        path.write_text(text.replace('"a 4"', '"b 4"'), encoding="utf-8")

    got, header, asked = _read_split(path, [2], before=change)
    assert asked == [None]  # the digests differ: the bytes this process read are validated here
    assert [entry[0] for entry in got] == ["case"] * 6


def test_a_note_that_raises_gives_no_part(tmp_path):
    path = tmp_path / "s.evalset.json"
    path.write_text(json.dumps(_eval_set(4)), encoding="utf-8")
    spans = read_eval_cases(path, lambda index, case: None).case_spans
    offset, bounds, digests = spans.part(1, 4)

    def raising(index, case):
        raise ValueError(case.eval_id)

    assert validate_part(str(path), offset, bounds, digests, 1, raising) is None
    assert validate_part(str(path), offset, bounds, digests, 1, _note) == (
        [],
        ["c1", "c2", "c3"],
        [(1, "c1"), (2, "c2"), (3, "c3")],
    )
    assert validate_part(str(tmp_path / "gone.json"), offset, bounds, digests, 1, _note) is None
