"""A turn kept packed (``_packed``): built when read, equal to the invocation validated from
the same dict, with what it lacks; a case's ``Conversation`` builds its turns anew on each read
and holds only the packed turns."""

from __future__ import annotations

import pickle
import sys
from typing import Any

import pytest
from agenteval.models import EvalCase, Invocation, MissingInput
from agenteval_otel._packed import Conversation, PackedInvocation
from hypothesis import given, settings
from hypothesis import strategies as st

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)


def _record(text: str, args: dict[str, Any], result: Any, start: float) -> dict[str, Any]:
    call = {"id": "k1", "name": "tool", "args": args}
    return {
        "invocation_id": "i1",
        "user_content": {"role": "user", "parts": [{"text": text}]},
        "final_response": {"role": "model", "parts": [{"text": "done"}]},
        "intermediate_data": {
            "invocation_events": [
                {"author": "a", "content": {"role": "model", "parts": [{"function_call": call}]}},
                {
                    "author": "a",
                    "content": {
                        "role": "user",
                        "parts": [{"function_response": {"id": "k1", "name": "tool", "response": result}}],
                    },
                },
            ]
        },
        "creation_timestamp": start,
    }


@settings(max_examples=30, deadline=None)
@given(
    text=st.text(),
    args=st.dictionaries(st.text(max_size=5), _JSON, max_size=4),
    result=st.dictionaries(st.text(max_size=5), _JSON, max_size=4),
    start=st.floats(min_value=0, max_value=1e10),
)
def test_a_packed_turn_builds_the_invocation_its_dict_validates_to(text, args, result, start):
    record = _record(text, args, result, start)
    missing = (MissingInput("tool_results", "tool_result_elided", "span 3", "set X"),)
    packed = PackedInvocation(record, missing)
    built = packed.build()
    expected = Invocation.model_validate(record)
    expected.mark_missing(missing)
    assert built == expected and built.missing_inputs() == missing
    assert packed.build() is not built  # a new one each time: none is held
    assert (packed.invocation_id, packed.user_text) == ("i1", text)


def test_a_dict_marshal_cannot_hold_is_kept_all_the_same():
    class Text(str):
        pass

    record = _record(Text("hello"), {"city": Text("Paris")}, {"ok": True}, 1.0)
    packed = PackedInvocation(record)
    assert packed.build() == Invocation.model_validate(record) and packed._data is record


def test_a_turn_no_message_can_hold_is_refused_when_packed_not_when_built():
    record = _record("hi", {}, {}, 1.0)
    record["intermediate_data"]["invocation_events"][0]["author"] = ["not", "text"]
    with pytest.raises(ValueError):
        PackedInvocation(record)


def test_a_conversation_reads_as_its_turns_and_holds_them_packed():
    records = [_record(f"q{i}", {"n": i}, {"v": i}, float(i)) for i in range(3)]
    conversation = Conversation([PackedInvocation(r) for r in records])
    expected = [Invocation.model_validate(r) for r in records]
    assert len(conversation) == 3 and conversation == expected and list(conversation) == expected
    assert conversation[1] == expected[1] and conversation[1:] == expected[1:]
    assert conversation != expected[:2] and conversation != "text"
    assert pickle.loads(pickle.dumps(conversation)) == expected  # a worker process gets the plan
    case = EvalCase.model_construct(eval_id="c", conversation=conversation)
    assert bool(case.conversation)
    packed_size = sum(sys.getsizeof(p._data) for p in conversation._turns)  # bytes each
    assert packed_size < 3 * 2000  # about 1 KB a turn (compressed), not the models' 100 KB
