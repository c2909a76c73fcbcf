"""``models/_content.py``: genai-compatible ``Content`` / ``Part`` / function calls."""

from __future__ import annotations

import json

import pytest
from agenteval.models import Content, FunctionCall, FunctionResponse, Part
from pydantic import ValidationError


def test_text_joins_parts_with_newlines_and_skips_empty_ones():
    content = Content.model_validate(
        {
            "role": "model",
            "parts": [
                {"text": "a"},
                {"text": ""},
                {"text": None},
                {"function_call": {"name": "t"}},
                {"text": "b", "thought": True},
                {"text": "c"},
            ],
        }
    )
    assert content.text() == "a\nb\nc"  # thought parts are included, as in ADK 2.13


@pytest.mark.parametrize("data", [{}, {"parts": None}, {"parts": []}, {"role": "model"}])
def test_text_without_parts_is_empty(data):
    assert Content.model_validate(data).text() == ""


def test_from_text():
    content = Content.from_text("hi")
    assert content.role == "user" and content.parts == [Part(text="hi")]
    assert Content.from_text(None, role="model").text() == ""


def test_snake_and_camel_case_keys():
    snake = Part.model_validate(
        {
            "function_call": {"name": "t", "args": {"a": 1}, "will_continue": False},
            "thought_signature": "c2ln",
        }
    )
    camel = Part.model_validate(
        {"functionCall": {"name": "t", "args": {"a": 1}, "willContinue": False}, "thoughtSignature": "c2ln"}
    )
    assert snake == camel
    assert snake.model_dump(exclude_none=True) == {
        "thought_signature": "c2ln",
        "function_call": {"name": "t", "args": {"a": 1}, "will_continue": False},
    }


def test_unknown_keys_are_rejected_as_genai_does():
    with pytest.raises(ValidationError):
        Part.model_validate({"txt": "x"})
    with pytest.raises(ValidationError):
        Content.model_validate({"role": "user", "parts": [], "author": "x"})
    with pytest.raises(ValidationError):
        FunctionCall.model_validate({"name": "t", "arguments": {}})


def test_media_and_other_part_fields_are_kept_as_json():
    data = {
        "inline_data": {"mime_type": "image/png", "data": "AAAA"},
        "file_data": {"file_uri": "gs://b/f", "mime_type": "application/pdf"},
        "executable_code": {"code": "print(1)", "language": "PYTHON"},
        "code_execution_result": {"outcome": "OUTCOME_OK", "output": "1"},
        "video_metadata": {"fps": 1},
    }
    part = Part.model_validate(data)
    assert part.model_dump(exclude_none=True) == data


def test_function_call_args_may_be_absent_or_any_json_object():
    assert FunctionCall(name="exit_loop").args is None
    call = FunctionCall.model_validate(
        {"name": "t", "args": {"l": [1, "2", None], "n": {"x": 1.5}, "b": True}}
    )
    assert call.args["l"] == [1, "2", None]
    with pytest.raises(ValidationError):
        FunctionCall.model_validate({"name": "t", "args": "x"})


def test_function_response():
    response = FunctionResponse.model_validate({"id": "1", "name": "t", "response": {"result": 4}})
    assert response.response == {"result": 4}


_BLOBS = [
    ("aGVsbG8=", True),  # standard base64
    ("aGVsbG8", True),  # without its padding
    ("a-_b", True),  # URL-safe
    ("", True),
    (None, True),
    ("!!notbase64", False),
    ("aGV sbG8=", False),
    (7, False),
]


@pytest.mark.parametrize(("data", "accepted"), _BLOBS)
def test_inline_data_bytes_that_are_not_base64_are_refused_at_load(data, accepted):
    """A media part's bytes are base64: a file whose bytes are not is refused when read, at
    its path (it reached the agent, which failed the case)."""
    blob = {"mime_type": "image/png", "data": data}
    if accepted:
        assert Part.model_validate({"inline_data": blob}).inline_data == blob
    else:
        with pytest.raises(ValidationError, match="is not base64"):
            Part.model_validate({"inline_data": blob})


@pytest.mark.parametrize(("data", "accepted"), _BLOBS)
def test_inline_data_bytes_are_read_as_google_genai_reads_them(data, accepted):
    """The rule is genai's: its ``Blob`` accepts exactly these."""
    types = pytest.importorskip("google.genai.types")
    blob = json.dumps({"mime_type": "image/png", "data": data})
    try:
        types.Blob.model_validate_json(blob)
    except ValidationError:
        assert not accepted
    else:
        assert accepted
