"""``_json_splice``: one case of an eval set's ``eval_cases`` changed in the file's own text,
only what differs written again."""

from __future__ import annotations

import copy
import difflib
import json
from typing import Any

from agenteval_viewer._json_splice import Layout, find_spans, replace_element
from hypothesis import given, settings
from hypothesis import strategies as st

HAND_FORMATTED = """{
  "eval_set_id": "travel",
  "eval_cases": [
    {
      "eval_id": "weather",
      "conversation": [
        {
          "invocation_id": "weather-1",
          "user_content": {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
          "final_response": {"role": "model", "parts": [{"text": "Sunny, 24 degrees."}]},
          "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "Paris"}}]}
        }
      ]
    },
    {"eval_id": "other", "conversation": []}
  ]
}
"""


def _changed(text: str, index: int, value: Any) -> str:
    spans = find_spans(text)
    assert spans is not None
    return replace_element(text, spans, index, value, Layout.of(text))


def test_an_edited_field_of_a_hand_formatted_case_is_the_only_line_that_changes():
    case = json.loads(HAND_FORMATTED)["eval_cases"][0]
    edited = copy.deepcopy(case)
    edited["conversation"][0]["final_response"]["parts"][0]["text"] = "Rain all week."
    text = _changed(HAND_FORMATTED, 0, edited)
    assert json.loads(text)["eval_cases"][0] == edited
    diff = [
        line
        for line in difflib.unified_diff(HAND_FORMATTED.splitlines(), text.splitlines(), lineterm="", n=0)
        if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))
    ]
    assert diff == [
        '-          "final_response": {"role": "model", "parts": [{"text": "Sunny, 24 degrees."}]},',
        '+          "final_response": {"role": "model", "parts": [{"text": "Rain all week."}]},',
    ]


def test_a_longer_list_or_a_new_key_is_written_in_the_file_s_layout():
    case = json.loads(HAND_FORMATTED)["eval_cases"][0]
    edited = copy.deepcopy(case)
    edited["conversation"][0]["intermediate_data"]["tool_uses"].append({"name": "convert", "args": {}})
    text = _changed(HAND_FORMATTED, 0, edited)
    assert json.loads(text)["eval_cases"] == [edited, {"eval_id": "other", "conversation": []}]
    assert '"user_content": {"role": "user", "parts": [{"text": "Weather in Paris?"}]},' in text  # kept
    assert '"intermediate_data": {"tool_uses": [\n            {\n              "name": "get_weather",' in text
    edited["session_input"] = {"app_name": "travel", "user_id": "u"}  # a key added to the case
    text = _changed(HAND_FORMATTED, 0, edited)
    assert json.loads(text)["eval_cases"] == [edited, {"eval_id": "other", "conversation": []}]
    assert '"user_content": {"role": "user", "parts": [{"text": "Weather in Paris?"}]},' in text  # kept
    added = '      "session_input": {\n        "app_name": "travel",\n        "user_id": "u"\n      }\n'
    assert "\n      ],\n" + added + "    }," in text  # after the last key, indented as the others
    assert text.endswith('    {"eval_id": "other", "conversation": []}\n  ]\n}\n')


def test_a_key_taken_out_or_added_on_one_line_keeps_the_line_s_layout():
    text = '{"eval_cases": [{"eval_id": "a", "rubrics": [], "conversation": [{"role": "user", "n": 1}]}]}'
    changed = _changed(text, 0, {"eval_id": "a", "conversation": [{"role": "user", "n": 2, "x": [1]}]})
    assert (
        changed == '{"eval_cases": [{"eval_id": "a", "conversation": [{"role": "user", "n": 2, "x": [1]}]}]}'
    )


def test_a_value_of_another_type_is_written_even_when_python_finds_it_equal():
    text = '{"eval_cases": [{"a": 1, "b": true, "c": 1.0}]}'
    changed = _changed(text, 0, {"a": 1.0, "b": 1, "c": True})
    assert changed == '{"eval_cases": [{"a": 1.0, "b": 1, "c": true}]}'
    assert _changed('{"eval_cases": [[0.0]]}', 0, [-0.0]) == '{"eval_cases": [[-0.0]]}'


_LEAVES = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
_JSON = st.recursive(
    _LEAVES | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
    max_leaves=20,
)


def _mutated(value: Any, data: st.DataObject) -> Any:
    """``value`` with one part (maybe all of it) replaced by another JSON value, or with a key
    of one of its objects taken out or added."""
    if isinstance(value, dict) and value and data.draw(st.integers(0, 3)) == 0:
        changed = dict(value)
        if data.draw(st.booleans()):
            del changed[data.draw(st.sampled_from(list(value)))]
        else:
            changed[data.draw(st.text(max_size=3))] = data.draw(_JSON)
        return changed
    if isinstance(value, (dict, list)) and value and data.draw(st.booleans()):
        keys = list(value) if isinstance(value, dict) else list(range(len(value)))
        key = data.draw(st.sampled_from(keys))
        changed = copy.copy(value)
        changed[key] = _mutated(value[key], data)
        return changed
    return data.draw(_JSON)


@settings(max_examples=300, deadline=None)
@given(old=_JSON, indent=st.sampled_from([None, 2, 4]), data=st.data())
def test_the_patched_file_holds_the_new_case_and_keeps_what_did_not_change(old, indent, data):
    other = {"eval_id": "kept", "values": [1, 2.5, "x"]}
    text = json.dumps({"eval_set_id": "s", "eval_cases": [old, other]}, indent=indent)
    new = _mutated(old, data)
    changed = _changed(text, 0, new)
    loaded = json.loads(changed)
    assert json.dumps(loaded["eval_cases"][0], sort_keys=False) == json.dumps(new, sort_keys=False)
    assert loaded["eval_cases"][1] == other and loaded["eval_set_id"] == "s"
    assert changed.endswith(text[text.index('"eval_id": "kept"') :])  # the other case's bytes
    if json.dumps(new) == json.dumps(old):
        assert changed == text


def _messy(value: Any, data: st.DataObject) -> str:
    """``value`` as JSON with any whitespace between its tokens (a hand-edited file)."""
    space = st.sampled_from(["", " ", "\n", "\t", "\r\n  "])
    if isinstance(value, dict):
        members = []
        for k, v in value.items():
            key = data.draw(space) + json.dumps(k) + data.draw(space)
            members.append(key + ":" + data.draw(space) + _messy(v, data) + data.draw(space))
        return "{" + ",".join(members) + data.draw(space) + "}"
    if isinstance(value, list):
        return "[" + ",".join(data.draw(space) + _messy(v, data) + data.draw(space) for v in value) + "]"
    return json.dumps(value, ensure_ascii=data.draw(st.booleans()))


@settings(max_examples=300, deadline=None)
@given(old=_JSON, data=st.data())
def test_any_whitespace_of_a_hand_edited_file_is_patched_right(old, data):
    text = '{"eval_set_id": "s", "eval_cases": [' + _messy(old, data) + ', {"eval_id": "kept"}]}'
    new = _mutated(old, data)
    changed = _changed(text, 0, new)
    loaded = json.loads(changed)
    assert json.dumps(loaded["eval_cases"][0]) == json.dumps(new) and loaded["eval_cases"][1] == {
        "eval_id": "kept"
    }
    if json.dumps(new) == json.dumps(old):
        assert changed == text
