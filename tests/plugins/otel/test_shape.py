"""A turn's plain dict checked by its shape (``_shape``): ``True`` only for what pydantic
accepts; the turns the reader builds from the fixtures take that path (no pydantic check when
read), and the ``--actual`` reader returns its cases without building a turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agenteval import load_eval_set
from agenteval.models import Invocation
from agenteval_otel import OtelReader
from agenteval_otel._packed import PackedInvocation
from agenteval_otel._select import read_turns
from agenteval_otel._shape import surely_valid
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

FIXTURES = Path(__file__).parent / "fixtures"

#: Values of every kind the builder's slots may hold in a damaged or unusual trace.
_ANY = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=2)
        | st.dictionaries(st.one_of(st.text(max_size=3), st.integers(), st.none()), inner, max_size=2)
    ),
    max_leaves=4,
)


def _or_junk(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly ``valid``, now and then anything."""
    return st.integers(0, 19).flatmap(lambda n: _ANY if n == 0 else valid)


_TEXT = _or_junk(st.sampled_from(["", " ", "t", "tool"]) | st.text(max_size=3))
_OBJECT = _or_junk(st.none() | st.dictionaries(st.text(max_size=3), _ANY, max_size=2))


def _maybe(
    keys: dict[str, st.SearchStrategy[Any]], required: tuple[str, ...] = ()
) -> st.SearchStrategy[dict[str, Any]]:
    """Dicts with ``required`` keys and any of the others (and, now and then, another key)."""
    other = _or_junk(st.just({})).map(lambda o: o if isinstance(o, dict) else {"other": o})
    given = st.fixed_dictionaries(
        {k: keys[k] for k in required}, optional={k: v for k, v in keys.items() if k not in required}
    )
    return st.tuples(given, other).map(lambda pair: {**pair[0], **pair[1]})


_CALL = _or_junk(_maybe({"id": _TEXT | st.none(), "name": _TEXT, "args": _OBJECT}))
_RESPONSE = _or_junk(_maybe({"id": _TEXT | st.none(), "name": _TEXT | st.none(), "response": _OBJECT}))
_PART = _or_junk(
    _maybe({"text": _TEXT, "thought": _or_junk(st.booleans())})
    | _maybe({"function_call": _CALL})
    | _maybe({"function_response": _RESPONSE})
)
_CONTENT = _or_junk(
    _maybe(
        {
            "role": _or_junk(st.sampled_from([None, "user", "model", "assistant"])),
            "parts": st.lists(_PART, max_size=3),
        }
    )
)
_EVENT = _or_junk(
    _maybe(
        {
            "author": _TEXT,
            "content": _CONTENT | st.none(),
            "usage_metadata": _OBJECT,
            "model_version": _TEXT | st.none(),
        },
        required=("author",),
    )
)
_NUMBER = _or_junk(st.floats() | st.integers())
_RECORD = _maybe(
    {
        "invocation_id": _TEXT,
        "user_content": _CONTENT,
        "final_response": _CONTENT | st.none(),
        "intermediate_data": _or_junk(_maybe({"invocation_events": st.lists(_EVENT, max_size=3)})),
        "creation_timestamp": _NUMBER,
        "duration": _NUMBER | st.none(),
        "model_duration": _NUMBER | st.none(),
        "tool_duration": _NUMBER | st.none(),
    },
    required=("user_content",),
)


@settings(max_examples=400, deadline=None)
@given(_RECORD)
def test_a_dict_said_surely_valid_is_one_pydantic_accepts(record):
    if surely_valid(record):
        Invocation.model_validate(record)


@settings(max_examples=200, deadline=None)
@given(_RECORD)
def test_a_packed_turn_is_refused_exactly_when_pydantic_refuses_it(record):
    try:
        Invocation.model_validate(record)
    except ValidationError:
        with pytest.raises(ValidationError):
            PackedInvocation(record)
    else:
        packed = PackedInvocation(record)
        expected = Invocation.model_validate(record)  # (as JSON: a NaN equals no NaN)
        assert packed.build().model_dump_json() == expected.model_dump_json()
        assert packed.invocation_id == expected.invocation_id
        assert packed.user_text == packed.build().user_content.text()


@pytest.mark.parametrize(
    "record",
    [
        {"user_content": {"role": "user", "parts": [{"text": "hi"}]}, "model_duration": True},
        {"user_content": {"role": "user", "parts": [{"text": "hi", "thought": None}]}},
        {"user_content": {"role": "user", "parts": [{"function_call": {"name": "t", "id": 3}}]}},
        {"user_content": {"role": "user", "parts": [{"text": "hi", "inline_data": {}}]}},
    ],
)
def test_other_shapes_are_left_to_pydantic(record):
    assert not surely_valid(record)


def test_the_fixtures_turns_are_checked_by_their_shape_without_pydantic(monkeypatch):
    calls = []
    original = Invocation.model_validate.__func__

    def counted(cls, *args, **kwargs):
        calls.append(args)
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(Invocation, "model_validate", classmethod(counted))
    for name in ("adk_v2.otlp.json", "openai_agents.otlp.json", "langgraph.jaeger.json"):
        turns, _ = read_turns(FIXTURES / name)
        assert turns
    assert calls == []


def test_the_actual_reader_returns_its_cases_without_building_a_turn(monkeypatch):
    built = []
    original = PackedInvocation.build

    def counted(self):
        built.append(self)
        return original(self)

    monkeypatch.setattr(PackedInvocation, "build", counted)
    cases = load_eval_set(FIXTURES / "travel.evalset.json").eval_cases
    eval_set = OtelReader().read_actual(FIXTURES / "adk_v2.otlp.json", cases)
    assert eval_set.eval_cases and built == []
    assert [len(list(case.conversation or ())) for case in eval_set.eval_cases] and built
