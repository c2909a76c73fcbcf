"""``read_eval_cases``: each case validated alone and handed out, never the whole file as
models; the same cases, warnings and errors as ``read_eval_file``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agenteval._loading._eval_files import read_eval_cases, read_eval_file
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
def test_a_damaged_file_gives_the_same_error_as_read_whole(tmp_path, index):
    name, text = _damaged(_eval_set())[index]
    path = tmp_path / "s.evalset.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as whole:
        read_eval_file(path)
    with pytest.raises(DataError) as streamed:
        _handed(path)
    assert str(streamed.value) == str(whole.value), name


def test_a_legacy_list_is_read_whole_and_its_cases_handed_out(tmp_path):
    path = tmp_path / "flat.test.json"
    path.write_text(json.dumps([{"query": "hi", "reference": "hello"}]), encoding="utf-8")
    got, header = _handed(path)
    assert [case for _, case in got] == read_eval_file(path).eval_set.eval_cases
    assert header.format == "legacy-flat" and header.case_spans is None
