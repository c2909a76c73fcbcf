"""Mutation fuzzing of eval files and configs: the only outcomes are a loaded result or one
``AgentEvalError`` naming the file, with a bounded message and no traceback.

Valid seeds (the fixtures under ``tests/fixtures/evalsets`` and a few configs) are mutated:
types swapped, keys deleted or added, huge and non-finite numbers, deep nesting, unicode
oddities (lone surrogates, NUL, bidi, BOM), duplicate keys, wrong enum values, and damage
to the bytes (flips, cuts, insertions). Derandomized with fixed example counts, so CI runs
the same cases every time (about 600 here, plus a sample through the CLI).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Union

import pytest
from agenteval import Registry, load_config
from agenteval._loading import read_eval_file
from agenteval._resolve import resolve_criteria
from agenteval.cli import main
from agenteval.errors import AgentEvalError
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.usefixtures("no_max_file_env")

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "evalsets"
EVAL_SEEDS = sorted(FIXTURES.glob("*.json"))
CONFIG_SEEDS: list[Any] = [
    {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}},
    {
        "criteria": {
            "tool_trajectory_avg_score": {"threshold": 0.5, "match_type": "IN_ORDER"},
            "trajectory_precision": {"threshold": 0.9},
            "tool_call_count_v1": {},
        },
        "user_simulator_config": {"model": "gemini-2.5-flash", "max_allowed_invocations": 5},
        "_comment": "x",
    },
]


def fuzz(examples: int) -> settings:
    """Fixed, derandomized runs: the same cases in CI every time."""
    return settings(
        max_examples=examples,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
        ],
    )


#: Values that stand for raw JSON text (the standard encoder cannot write them).
_RAW = ["NaN", "Infinity", "-Infinity", "1e400", "-1e999", "9" * 400, "7" * 5000, '"\\ud800"', '"a\\udfffb"']
_ODD_TEXT = ["", " ", "\x00", "\u202eevil", "\ufeff", "\x1b[2J", "a\nb", "\U0001f600" * 3, "é" * 300]
_WRONG_ENUMS = ["robot", "FOO", "assistant", "EXACTLY", "novice", "MODEL"]
_DEPTHS = [50, 300, 1200, 5000]


class _Raw:
    def __init__(self, text: str) -> None:
        self.text = text


class _Deep:
    def __init__(self, depth: int, kind: str) -> None:
        self.depth, self.kind = depth, kind


Loc = list[Union[str, int]]


def _locations(value: Any, loc: Loc | None = None) -> list[Loc]:
    loc = [] if loc is None else loc
    found = [loc]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _locations(item, [*loc, key])
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _locations(item, [*loc, index])
    return found


def _replacement() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from(_ODD_TEXT + _WRONG_ENUMS),
        st.text(max_size=8),
        st.just([]),
        st.just({}),
        st.sampled_from(_RAW).map(_Raw),
        st.tuples(st.sampled_from(_DEPTHS), st.sampled_from(["[", "{"])).map(lambda t: _Deep(*t)),
    )


def _set(tree: Any, loc: Loc, value: Any) -> Any:
    if not loc:
        return value
    parent = tree
    for part in loc[:-1]:
        parent = parent[part]
    parent[loc[-1]] = value
    return tree


def _delete(tree: Any, loc: Loc) -> Any:
    if not loc:
        return tree
    parent = tree
    for part in loc[:-1]:
        parent = parent[part]
    del parent[loc[-1]]
    return tree


@st.composite
def _mutated_tree(draw: st.DrawFn, seed: Any) -> tuple[Any, list[tuple[str, str]]]:
    """``seed`` with 1-3 structural mutations; also the duplicate keys to splice in."""
    tree = json.loads(json.dumps(seed))
    duplicates: list[tuple[str, str]] = []
    for _ in range(draw(st.integers(1, 3))):
        locations = _locations(tree)
        loc = draw(st.sampled_from(locations))
        action = draw(st.sampled_from(["replace", "replace", "delete", "add_key", "duplicate", "rename"]))
        if action == "replace":
            tree = _set(tree, loc, draw(_replacement()))
        elif action == "delete":
            tree = _delete(tree, loc)
        elif action in ("add_key", "duplicate", "rename"):
            target = _get(tree, loc)
            if not isinstance(target, dict) or not target:
                continue
            key = draw(st.sampled_from(sorted(target, key=str)))
            if action == "add_key":
                target[
                    draw(st.sampled_from(["extra", "evalId", "eval_id", "userContent", "name", "x\x00"]))
                ] = draw(_replacement())
            elif action == "duplicate":
                marker = f"@@dup{len(duplicates)}@@"
                target[marker] = draw(_replacement())
                duplicates.append((marker, key))
            else:
                target[key + draw(st.sampled_from(["_", "X", "s"]))] = target.pop(key)
    return tree, duplicates


def _get(tree: Any, loc: Loc) -> Any:
    for part in loc:
        tree = tree[part]
    return tree


def _encode(tree: Any, duplicates: list[tuple[str, str]]) -> bytes:
    raws: list[str] = []

    def default(value: Any) -> Any:
        if isinstance(value, _Raw):
            raws.append(value.text)
        elif isinstance(value, _Deep):
            closing = "]" if value.kind == "[" else "}"
            opening = "[" if value.kind == "[" else '{"a":'
            raws.append(opening * value.depth + "1" + closing * value.depth)
        else:
            raise TypeError(type(value))
        return f"@@raw{len(raws) - 1}@@"

    text = json.dumps(tree, default=default, ensure_ascii=False)
    for index, raw in enumerate(raws):
        text = text.replace(f'"@@raw{index}@@"', raw)
    for marker, key in duplicates:
        text = text.replace(f'"{marker}"', json.dumps(key))
    return text.encode("utf-8", "surrogatepass")


@st.composite
def _damaged_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    """Byte-level damage: flip, delete, insert or cut at a few positions."""
    data = bytearray(data)
    for _ in range(draw(st.integers(1, 3))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        action = draw(st.sampled_from(["flip", "delete", "insert", "cut"]))
        if action == "flip":
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif action == "delete":
            del data[at]
        elif action == "insert":
            data[at:at] = draw(
                st.sampled_from([b"\xff", b"\x00", b",", b"{", b'"', b"\xed\xa0\x80", b"\xef\xbb\xbf"])
            )
        else:
            del data[at:]
    return bytes(data)


def _seed(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@st.composite
def eval_file_bytes(draw: st.DrawFn) -> bytes:
    seed = _seed(draw(st.sampled_from(EVAL_SEEDS)))
    data = _encode(*draw(_mutated_tree(seed)))
    if draw(st.integers(0, 3)) == 0:
        data = draw(_damaged_bytes(data))
    return data


@st.composite
def config_bytes(draw: st.DrawFn) -> bytes:
    data = _encode(*draw(_mutated_tree(draw(st.sampled_from(CONFIG_SEEDS)))))
    if draw(st.integers(0, 4)) == 0:
        data = draw(_damaged_bytes(data))
    return data


def _check_error(error: AgentEvalError, path: Path) -> None:
    message = str(error)
    assert message.startswith(f"{path}: "), message[:300]
    assert "Traceback" not in message
    assert len(message) < 8000, f"{len(message)} characters"
    assert message.strip() != f"{path}:", "an empty reason"


@fuzz(400)
@given(data=eval_file_bytes())
def test_a_mutated_eval_file_loads_or_gives_one_clear_error(tmp_path, data):
    path = tmp_path / "fuzz.evalset.json"
    path.write_bytes(data)
    try:
        loaded = read_eval_file(path)
    except AgentEvalError as error:
        _check_error(error, path)
    else:
        loaded.eval_set.to_json()  # what loaded can be written back


@fuzz(200)
@given(data=config_bytes())
def test_a_mutated_config_resolves_or_gives_one_clear_error(tmp_path, data):
    path = tmp_path / "test_config.json"
    path.write_bytes(data)
    try:
        config = load_config(path)
        resolve_criteria([(c, str(path)) for c in config.criteria], Registry.installed(), [])
    except AgentEvalError as error:
        _check_error(error, path)


@fuzz(25)
@given(data=eval_file_bytes())
def test_through_the_cli_a_mutated_file_exits_0_1_or_2_without_a_traceback(tmp_path, data):
    path = tmp_path / "fuzz.evalset.json"
    path.write_bytes(data)
    result = CliRunner().invoke(
        main, ["run", str(path), "--actual", str(path), "--criteria", "tool_call_count_v1"]
    )
    assert result.exit_code in (0, 1, 2), result.output[-2000:]
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        assert result.output.startswith("error: ") or "\nerror: " in result.output
