"""A trace file (OTLP/JSON, OTLP JSONL of spans or of requests, Tempo, Jaeger, content in
events) with any one value changed to any JSON value (a list where an object was, a
number where a list was, an infinite time, a deep array) is read, or refused with a
``DataError`` naming the file: never another exception, whichever reader (``--actual``,
``lint-trace``, ``import-trace``) meets it."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from agenteval import load_eval_set
from agenteval.cli import main
from agenteval.errors import DataError
from agenteval_otel import OtelReader
from agenteval_otel._otlp import read_spans
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fixtures.json_places import changed, json_values, places
from tests.plugins.otel._encode import encode

FIXTURES = Path(__file__).parent / "fixtures"
TRACES = ["adk_v2.otlp.json", "openai_agents.otlp.json", "langgraph.jaeger.json", "event_only.otlp.json"]

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=6)
    | st.sampled_from(["", "0", "ff", "<elided>", "CHILD_OF", "{}", "[1]", '{"a": [1]}', "1e400"])
)
#: keys the readers look for (OTLP's ``AnyValue`` and its lists, Jaeger's tags), and any other
_KEYS = st.sampled_from(
    ["stringValue", "intValue", "doubleValue", "boolValue", "arrayValue", "kvlistValue", "bytesValue"]
    + ["values", "key", "value", "type", "refType", "traceID", "spanID", "fields", "attributes"]
) | st.text(max_size=6)
_VALUES = json_values(_KEYS, _SCALARS)


def _encoded(shape: str) -> list[Any]:
    """The ADK fixture's spans in ``shape``, as a JSON document or (JSONL) a list of lines."""
    text = encode(
        read_spans(FIXTURES / TRACES[0]), shape=shape, base64_ids=False, plain=False, json_strings=True
    )
    return (
        [json.loads(line) for line in text.splitlines()] if shape.startswith("jsonl") else [json.loads(text)]
    )


#: each file as its lines' JSON documents (one for a JSON file)
_DOCUMENTS: dict[str, list[Any]] = {name: [json.loads((FIXTURES / name).read_text())] for name in TRACES}
_DOCUMENTS.update(
    {
        f"adk_v2.{shape}.{'jsonl' if shape.startswith('jsonl') else 'json'}": _encoded(shape)
        for shape in ("tempo-batches", "tempo-trace", "jsonl-spans", "jsonl-requests")
    }
)
_PLACES = [
    (name, line, path)
    for name, lines in _DOCUMENTS.items()
    for line, document in enumerate(lines)
    for path in places(document)
]


def _changed(name: str, line: int, path: tuple, value: Any) -> str:
    lines = changed(_DOCUMENTS[name], line, path, value)
    return "\n".join(json.dumps(document, allow_nan=True) for document in lines) + "\n"


def _cases():
    return load_eval_set(FIXTURES / "travel.evalset.json").eval_cases


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(place=st.sampled_from(_PLACES), value=_VALUES)
def test_any_value_anywhere_is_read_or_a_data_error_naming_the_file(tmp_path_factory, place, value):
    name, line, path = place
    file = tmp_path_factory.mktemp("changed") / name
    file.write_text(_changed(name, line, path, value))
    try:
        OtelReader().read_actual(file, _cases())
    except DataError as exc:
        assert str(exc).startswith(str(file)), str(exc)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(place=st.sampled_from(_PLACES), value=_VALUES, command=st.sampled_from(["lint-trace", "import-trace"]))
def test_the_trace_commands_exit_0_1_or_2_with_no_traceback(tmp_path_factory, place, value, command):
    name, line, path = place
    folder = tmp_path_factory.mktemp("changed")
    file = folder / name
    file.write_text(_changed(name, line, path, value))
    args = [command, str(file)] + (
        ["-o", str(folder / "out.evalset.json")] if command == "import-trace" else []
    )
    result = CliRunner().invoke(main, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        name,
        path,
        value,
        repr(result.exception),
    )
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.output[-600:])


#: values of every JSON type, each tried at every kind of place (``_SWEEP``)
_CHANGERS: list[Any] = [None, True, 7, -1.5, math.inf, "x", "", [], [[]], {}, {"values": 1}]


def _kind(path: tuple) -> tuple:
    """A place with its indexes left out: the same field of every span is one kind."""
    return tuple("*" if isinstance(step, int) else step for step in path)


#: the first place of each kind in each file
_SWEEP = list({(name, _kind(path)): (name, line, path) for name, line, path in reversed(_PLACES)}.values())


def test_every_kind_of_place_with_a_value_of_every_type_is_read_or_a_data_error(tmp_path):
    """The sampled test above meets few of the thousands of places; this one tries each kind
    of place of each file (a span's ``tags[*].value``, ``references``...) with each type."""
    failures = []
    for number, (name, line, path) in enumerate(_SWEEP):
        for changer, value in enumerate(_CHANGERS):
            folder = tmp_path / f"{number}-{changer}"
            folder.mkdir()
            file = folder / name
            file.write_text(_changed(name, line, path, value))
            try:
                OtelReader().read_actual(file, _cases())
            except DataError as exc:
                if not str(exc).startswith(str(file)):
                    failures.append((name, path, value, str(exc)[:200]))
            except Exception as exc:  # any other is the failure this test looks for
                failures.append((name, path, value, repr(exc)[:200]))
    assert not failures, failures[:10]
    assert len(_SWEEP) > 100


def test_the_places_cover_every_fixture_and_a_time_can_be_infinite():
    assert {name for name, _, _ in _PLACES} == set(_DOCUMENTS) > set(TRACES)
    changed = _changed("langgraph.jaeger.json", 0, ("data", 0, "spans", 0, "startTime"), math.inf)
    assert json.loads(changed)["data"][0]["spans"][0]["startTime"] == math.inf


def test_a_huge_value_in_an_error_is_cut_with_its_length(tmp_path):
    """A 1 MB trace id is named in the error by its first characters and its length, not
    echoed whole (a megabyte on the terminal)."""
    file = tmp_path / "trace.json"
    file.write_text(
        _changed(
            "adk_v2.otlp.json", 0, ("resourceSpans", 0, "scopeSpans", 0, "spans", 0, "traceId"), "z" * 10**6
        )
    )
    try:
        OtelReader().read_actual(file, _cases())
    except DataError as exc:
        assert len(str(exc)) < 600 and "(1,000,002 characters)" in str(exc), str(exc)[:600]
    else:
        raise AssertionError("a trace id of a million z is no id")
