"""An Agent Platform dataset (a JSON document, JSONL lines) with any one value changed to any
JSON value is read as an eval set, or refused with a ``DataError`` naming the file: never
another exception, read directly or by ``agenteval run``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agenteval._loading import read_eval_file
from agenteval.cli import main
from agenteval.errors import DataError
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fixtures.json_places import changed, json_values, places

DATASETS = Path(__file__).parent / "fixtures" / "shop_agent" / "tests" / "eval" / "datasets"
FILES = ["chat-dataset.json", "orders-dataset.json", "lines-dataset.jsonl"]

#: keys the reader looks for, and any other
_KEYS = st.sampled_from(
    ["eval_cases", "eval_case_id", "prompt", "response", "role", "parts", "text", "function_call"]
    + ["name", "args", "intermediate_events", "author", "content", "conversation_history", "reference"]
) | st.text(max_size=6)
_VALUES = json_values(
    _KEYS,
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
)


def _lines(name: str) -> list[Any]:
    text = (DATASETS / name).read_text(encoding="utf-8")
    return (
        [json.loads(line) for line in text.splitlines() if line.strip()]
        if name.endswith("l")
        else [json.loads(text)]
    )


_DOCUMENTS = {name: _lines(name) for name in FILES}
_PLACES = [
    (name, line, path)
    for name, lines in _DOCUMENTS.items()
    for line, document in enumerate(lines)
    for path in places(document)
]


def _write(folder: Path, name: str, line: int, path: tuple, value: Any) -> Path:
    file = folder / name
    lines = changed(_DOCUMENTS[name], line, path, value)
    file.write_text("\n".join(json.dumps(document) for document in lines) + "\n", encoding="utf-8")
    return file


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(place=st.sampled_from(_PLACES), value=_VALUES)
def test_any_value_anywhere_is_read_or_a_data_error_naming_the_file(tmp_path_factory, place, value):
    file = _write(tmp_path_factory.mktemp("changed"), *place, value)
    try:
        read_eval_file(file)
    except DataError as exc:
        assert str(exc).startswith(str(file)), str(exc)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(place=st.sampled_from(_PLACES), value=_VALUES)
def test_a_run_of_it_exits_0_1_or_2_with_no_traceback(tmp_path_factory, place, value):
    file = _write(tmp_path_factory.mktemp("changed"), *place, value)
    args = ["run", str(file), "--actual", str(file), "--no-record", "--criteria", "response_match_score"]
    result = CliRunner().invoke(main, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        place,
        value,
        repr(result.exception),
    )
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.output[-600:])


def test_every_dataset_form_has_places_to_change():
    assert {name for name, _, _ in _PLACES} == set(FILES)
