"""``loading/_json.py``: reading a JSON file, with errors that point at the spot."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from agenteval import load_config, load_eval_set
from agenteval._loading import read_eval_file
from agenteval._loading._json import read_json
from agenteval.errors import AgentEvalError, ConfigError, DataError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.usefixtures("no_max_file_env")

VALID = {"eval_set_id": "s", "eval_cases": []}


def write(tmp_path: Path, content: bytes | str, name: str = "f.test.json") -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


def error_of(path: Path, loader=load_eval_set) -> AgentEvalError:
    with pytest.raises(AgentEvalError) as info:
        loader(path)
    error = info.value
    assert str(path) in str(error), "the message names the file"
    assert "Traceback" not in str(error)
    return error


@pytest.mark.parametrize(
    ("content", "line_col", "what"),
    [
        ('{"eval_set_id": "s",\n  "eval_cases": [,]}', "2:18", "Expecting value"),
        ('{"eval_set_id": "s", "eval_cases": []', "1:38", "Expecting ',' delimiter"),
        ("{\"eval_set_id\": 's'}", "1:17", "Expecting value"),
        ('{"eval_set_id": "s", "eval_cases": [],}', "1:39", "(a trailing comma? JSON allows none)"),
        ('{"eval_cases": [1,\n  ]}', "2:3", "Expecting value (a trailing comma? JSON allows none)"),
        ('{"a": }', "1:7", "Expecting value"),
        ('{"a": 1}\n{"b": 2}', "2:1", "Extra data"),
        ("// comment\n{}", "1:1", "(JSON has no comments)"),
        ("{'eval_set_id': 's'}", "1:2", "(JSON strings and keys use double quotes)"),
        ('{"eval_set_id": "s\n"}', "1:19", "Invalid control character inside a string"),
    ],
)
def test_syntax_errors_give_line_and_column(tmp_path, content, line_col, what):
    error = error_of(write(tmp_path, content))
    assert isinstance(error, DataError)
    assert f"{line_col}: invalid JSON" in str(error)
    assert what in str(error)
    assert not str(error).endswith(" at")
    if '{"a": }' in content:
        assert "trailing comma" not in str(error)


@pytest.mark.parametrize("content", [b"", b"   \n\t\r\n  "], ids=["empty", "whitespace"])
def test_empty_and_whitespace_only_files(tmp_path, content):
    error = error_of(write(tmp_path, content))
    assert isinstance(error, DataError)
    assert "the file is empty" in str(error)
    assert "expected an eval set" in str(error)


def test_empty_config_file_says_config(tmp_path):
    error = error_of(write(tmp_path, b"", "test_config.json"), load_config)
    assert "the file is empty" in str(error) and "eval config" in str(error)


def test_non_utf8_byte_reports_line_column_and_byte(tmp_path):
    content = b'{"eval_set_id": "s",\n "name": "caf\xe9", "eval_cases": []}'
    error = error_of(write(tmp_path, content))
    assert isinstance(error, DataError)
    assert "2:14: the file is not valid UTF-8 (byte 0xe9)" in str(error)
    assert "save it as UTF-8" in str(error)


def test_utf16_file_is_reported_as_not_utf8(tmp_path):
    content = json.dumps(VALID).encode("utf-16")
    error = error_of(write(tmp_path, content))
    assert "1:1: the file is not valid UTF-8 (byte 0xff)" in str(error)


def test_utf8_bom_is_accepted(tmp_path):
    path = write(tmp_path, b"\xef\xbb\xbf" + json.dumps({**VALID, "name": "caf\u00e9"}).encode())
    assert load_eval_set(path).name == "caf\u00e9"


def test_bom_then_nothing_is_empty(tmp_path):
    assert "the file is empty" in str(error_of(write(tmp_path, b"\xef\xbb\xbf  ")))


@pytest.mark.parametrize(
    "content",
    [b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 100_000 + b"1" + b"}" * 100_000],
    ids=["lists", "objects"],
)
def test_deep_nesting_is_a_clean_error(tmp_path, content):
    error = error_of(write(tmp_path, content))
    assert isinstance(error, DataError)
    assert "nested too deeply" in str(error)


def _nested_args(levels: int) -> dict:
    args: dict = {"a": 1}
    for _ in range(levels):
        args = {"a": args}
    return {
        "eval_set_id": "s",
        "eval_cases": [
            {
                "eval_id": "c",
                "conversation": [
                    {
                        "user_content": {"parts": [{"text": "x"}]},
                        "intermediate_data": {"tool_uses": [{"name": "t", "args": args}]},
                    }
                ],
            }
        ],
    }


def test_moderate_nesting_inside_args_loads_and_writes_back(tmp_path):
    data = _nested_args(150)
    loaded = load_eval_set(write(tmp_path, json.dumps(data)))
    assert (
        loaded.eval_cases[0].conversation[0].tool_calls()[0].args
        == data["eval_cases"][0]["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"]
    )
    assert json.loads(loaded.to_json()) == data


@pytest.mark.parametrize("levels", [195, 250, 900])
def test_nesting_deeper_than_200_levels_is_an_error_where_it_starts(tmp_path, levels):
    # Beyond ~255 levels pydantic's encoder fails ("Circular reference detected"): what
    # loads must be writable back, so the limit is checked at load.
    message = str(error_of(write(tmp_path, json.dumps(_nested_args(levels)))))
    assert "nested more than 200 levels deep" in message
    start = r": 1:\d+: eval_cases\[0\]\.conversation\[0\]\.int"  # the path, cut in the middle
    assert re.search(start + r"[\w.\[\]]*…(\.a)+: nested more", message), message
    assert len(message) < 600


def test_size_limit_from_environment(tmp_path, monkeypatch):
    path = write(tmp_path, json.dumps({**VALID, "description": "x" * 5000}))
    monkeypatch.setenv("AGENTEVAL_MAX_FILE_MB", "0.001")
    error = error_of(path)
    assert isinstance(error, DataError)
    message = str(error)
    assert "over the 1,048 bytes limit" in message
    assert f"{path.stat().st_size:,} bytes" in message
    assert "AGENTEVAL_MAX_FILE_MB" in message
    monkeypatch.setenv("AGENTEVAL_MAX_FILE_MB", "1")
    assert load_eval_set(path).eval_set_id == "s"


def test_size_limit_applies_to_configs(tmp_path, monkeypatch):
    path = write(tmp_path, json.dumps({"criteria": {"x" * 2000: 0.5}}), "test_config.json")
    monkeypatch.setenv("AGENTEVAL_MAX_FILE_MB", "0.001")
    assert "over the" in str(error_of(path, load_config))


@pytest.mark.parametrize("value", ["abc", "0", "-1", "nan", "inf"])
def test_bad_size_limit_setting_is_a_config_error(tmp_path, monkeypatch, value):
    path = write(tmp_path, json.dumps(VALID))
    monkeypatch.setenv("AGENTEVAL_MAX_FILE_MB", value)
    with pytest.raises(ConfigError) as info:
        load_eval_set(path)
    assert "AGENTEVAL_MAX_FILE_MB" in str(info.value)
    assert repr(value) in str(info.value)


def test_missing_file(tmp_path):
    path = tmp_path / "nope.test.json"
    with pytest.raises(DataError) as info:
        load_eval_set(path)
    assert str(path) in str(info.value) and "no such file" in str(info.value)


def test_folder_instead_of_file(tmp_path):
    with pytest.raises(DataError) as info:
        load_eval_set(tmp_path)
    assert "is a folder" in str(info.value)


def test_duplicate_keys_in_eval_files_are_errors_at_their_position(tmp_path):
    # ADK keeps the last value silently; here every duplicate is named with both positions.
    path = write(
        tmp_path, '{"eval_set_id": "a", "eval_set_id": "b",\n "eval_cases": [], "name": "x", "name": "y"}'
    )
    message = str(error_of(path))
    assert message.startswith(f"{path}: 2 problems:\n")
    assert "  1:22: eval_set_id: duplicate key 'eval_set_id' (first at 1:2)" in message
    assert "  2:33: name: duplicate key 'name' (first at 2:20)" in message
    assert "keep one" in message


def test_nested_duplicate_keys_name_their_json_path(tmp_path):
    path = write(
        tmp_path,
        '{"eval_set_id": "a", "eval_cases": [{"eval_id": "c", "conversation": [], "eval_id": "d"}]}',
    )
    assert "1:74: eval_cases[0].eval_id: duplicate key 'eval_id' (first at 1:38)" in str(error_of(path))


def test_escaped_spellings_of_one_key_are_duplicates(tmp_path):
    path = write(tmp_path, '{"eval_set_id": "a", "eval_cases": [], "n": 1, "\\u006e": 2}')
    assert "duplicate key 'n'" in str(error_of(path))


def test_the_same_key_in_different_objects_is_fine(tmp_path):
    path = write(tmp_path, '{"eval_set_id": "a", "eval_cases": [], "x": {"eval_set_id": {"x": 1}}}')
    assert (
        read_eval_file(path)
        .warnings[0]
        .endswith("unknown top-level key 'x' kept but not used (ADK ignores it)")
    )


def test_duplicate_keys_in_configs_are_errors(tmp_path):
    path = write(tmp_path, '{"criteria": {"a": 0.1, "a": 0.2}}', "test_config.json")
    assert "1:25: criteria.a: duplicate key 'a' (first at 1:15)" in str(error_of(path, load_config))


@pytest.mark.parametrize(
    ("literal", "fragment"),
    [
        ("NaN", "NaN is not JSON"),
        ("-Infinity", "-Infinity is not JSON"),
        ("1e400", "1e400 is beyond a 64-bit float"),
        ("-2.5E+999", "-2.5E+999 is beyond a 64-bit float"),
        ("1" * 309, "a 309-digit integer"),
        ("-" + "1" * 5000, "a 5,000-digit integer"),
    ],
)
def test_numbers_json_cannot_carry_are_errors_where_they_stand(tmp_path, literal, fragment):
    # Python's json (and ADK) read NaN, Infinity and 1e400 (as inf); pydantic and JSON
    # readers elsewhere do not, and a 5,000-digit integer crashes Python's int().
    path = write(tmp_path, '{"eval_set_id": "s", "eval_cases": [],\n"creation_timestamp": ' + literal + "}")
    message = str(error_of(path))
    assert f"{path}: 2:23: creation_timestamp: {fragment}" in message
    assert len(message) < 300


def test_numbers_that_fit_a_float_are_fine(tmp_path):
    path = write(
        tmp_path,
        '{"eval_set_id": "s", "eval_cases": [], "creation_timestamp": 1.7e308, "x": ' + "9" * 308 + "}",
    )
    assert load_eval_set(path).creation_timestamp == 1.7e308


@pytest.mark.parametrize("escape", ["\\ud800", "\\udfff", "\\ud83d x"])
def test_a_lone_surrogate_escape_is_an_error(tmp_path, escape):
    path = write(tmp_path, '{"eval_set_id": "s", "eval_cases": [], "name": "a' + escape + '"}')
    message = str(error_of(path))
    assert "1:48: name: \\ud8" in message or "1:48: name: \\udf" in message
    assert "half of a UTF-16 surrogate pair" in message


@pytest.mark.parametrize("text", ["\\ud83d\\ude00", "\\\\ud800"])
def test_a_surrogate_pair_and_an_escaped_backslash_are_fine(tmp_path, text):
    path = write(tmp_path, '{"eval_set_id": "s", "eval_cases": [], "name": "' + text + '"}')
    assert load_eval_set(path).name in ("\U0001f600", "\\ud800")


def test_many_problems_are_capped(tmp_path):
    body = ", ".join(f'"k{i}": NaN' for i in range(25))
    message = str(error_of(write(tmp_path, '{"eval_set_id": "s", "eval_cases": [], ' + body + "}")))
    assert message.count("NaN is not JSON") == 10
    assert "25 problems:" in message and "... and 15 more" in message


# -- property: any bytes give a value or one DataError -------------------------------------------


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.binary(max_size=40)
    | st.text(alphabet='{}[]":,0123456789aen \n\\\ufeff\x00é', max_size=40).map(str.encode)
)
def test_any_bytes_parse_or_give_one_data_error(tmp_path, content):
    path = tmp_path / "f.json"
    path.write_bytes(content)
    try:
        read_json(path, what="x")
    except DataError as error:
        assert str(error).startswith(f"{path}: ")


def test_gc_paused_restores_the_collector_and_respects_a_host_freeze():
    import gc

    from agenteval._loading._json import gc_paused

    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        built = [[i] for i in range(1000)]
    assert gc.isenabled() and built
    gc.freeze()  # a host application's own freeze must survive our loads
    try:
        frozen = gc.get_freeze_count()
        with gc_paused():
            pass
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
    gc.disable()  # a host that disabled the collector keeps it disabled
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("name", ["a\x00b.json", "x" * 300 + ".json"])
def test_a_path_no_file_system_takes_is_a_data_error(tmp_path, name):
    with pytest.raises(DataError) as info:
        load_config(tmp_path / name)
    assert "NUL character" in str(info.value) or "File name too long" in str(info.value)
