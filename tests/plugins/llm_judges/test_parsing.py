"""Reading judge answers: strict about structure, tolerant about presentation."""

from __future__ import annotations

import pytest
from agenteval_llm_judges._parsing import Unparseable, json_objects, norm_token, parse_answer
from agenteval_llm_judges._rubric_criterion import rubric_reader
from agenteval_llm_judges.final_response_match import read_verdict
from agenteval_llm_judges.hallucinations import read_labels, read_sentences
from agenteval_llm_judges.user_simulator_quality import read_turn_verdict

# (answer text, expected validity; None = unparseable)
VERDICTS = [
    pytest.param('{"reasoning": "ok", "verdict": "valid"}', True, id="plain"),
    pytest.param('{"reasoning": "ok", "verdict": "invalid"}', False, id="plain-invalid"),
    pytest.param('{"reasoning": "ok", "verdict": "Valid"}', True, id="capitalised"),
    pytest.param('{"reasoning": "ok", "verdict": " VALID "}', True, id="upper-spaces"),
    pytest.param('{"reasoning": "ok", "verdict": "**invalid**"}', False, id="markdown-bold"),
    pytest.param('{"reasoning": "ok", "verdict": "`valid`"}', True, id="backticks"),
    pytest.param('{"reasoning": "ok", "verdict": true}', True, id="json-true"),
    pytest.param('{"reasoning": "ok", "verdict": false}', False, id="json-false"),
    pytest.param('```json\n{"reasoning": "ok", "verdict": "valid"}\n```', True, id="fenced"),
    pytest.param('```\n{"reasoning": "ok", "verdict": "invalid"}\n```', False, id="fenced-no-language"),
    pytest.param(
        'Here is my answer:\n{"reasoning": "ok", "verdict": "valid"}\nThanks.', True, id="prose-around"
    ),
    pytest.param('{"Reasoning": "ok", "Verdict": "valid"}', True, id="key-case"),
    pytest.param('{" reasoning ": "ok", "verdict ": "valid"}', True, id="key-spaces"),
    pytest.param('{"reasoning": "ok", "is_the_agent_response_valid": "invalid"}', False, id="adk-field-name"),
    pytest.param(
        'Example: {"reasoning": "x", "verdict": "valid"}\nAnswer: {"reasoning": "y", "verdict": "invalid"}',
        False,
        id="last-object-wins",
    ),
    pytest.param(
        '{"reasoning": "y", "verdict": "invalid"} and then {"note": "not an answer"}',
        False,
        id="last-well-formed-object-wins",
    ),
    pytest.param('{"reasoning": "ok"}', None, id="missing-verdict"),
    pytest.param('{"verdict": "valid"}', None, id="missing-reasoning"),
    pytest.param('{"reasoning": "ok", "verdict": "partially valid"}', None, id="partially"),
    pytest.param('{"reasoning": "ok", "verdict": "almost"}', None, id="almost"),
    pytest.param('{"reasoning": "ok", "verdict": 1}', None, id="number"),
    pytest.param("valid", None, id="bare-word"),
    pytest.param("", None, id="empty"),
    pytest.param('{"reasoning": "ok", "verdict": "valid"', None, id="truncated"),
    pytest.param('["valid"]', None, id="array"),
]


@pytest.mark.parametrize("text, expected", VERDICTS)
def test_verdict_tolerance(text, expected):
    if expected is None:
        with pytest.raises(Unparseable):
            parse_answer(text, read_verdict)
    else:
        assert parse_answer(text, read_verdict).valid is expected


def test_unparseable_says_why():
    with pytest.raises(Unparseable, match="no JSON object"):
        parse_answer("I think it is valid.", read_verdict)
    with pytest.raises(Unparseable, match="'verdict'"):
        parse_answer('{"reasoning": "r"}', read_verdict)
    with pytest.raises(Unparseable, match="not one of invalid, valid"):
        parse_answer('{"reasoning": "r", "verdict": "maybe"}', read_verdict)


@pytest.mark.parametrize(
    "raw, token",
    [
        (" Not Applicable ", "not_applicable"),
        ("not-applicable", "not_applicable"),
        ("N/A", "n_a"),
        ("**YES**", "yes"),
        ("`no`.", "no"),
        ("ｙｅｓ", "yes"),  # full-width letters, NFKC
    ],
)
def test_norm_token(raw, token):
    assert norm_token(raw) == token


def test_json_objects_skips_braces_that_are_not_json():
    text = 'use {curly} braces, then {"a": 1} and ```{"b": {"c": 2}}```'
    assert list(json_objects(text)) == [{"a": 1}, {"b": {"c": 2}}]


# -- rubric answers ------------------------------------------------------------------------

RUBRIC_IDS = ["concise", "cites_source"]


def rubric_answer(*entries: tuple) -> str:
    import json

    return json.dumps(
        {
            "rubrics": [
                {"rubric_id": rid, "rationale": "because", "verdict": verdict} for rid, verdict in entries
            ]
        }
    )


@pytest.mark.parametrize(
    "verdict, expected",
    [
        ("yes", "yes"),
        ("Yes", "yes"),
        (" NO ", "no"),
        ("not_applicable", "not_applicable"),
        ("Not Applicable", "not_applicable"),
        ("not applicable", "not_applicable"),
        ("N/A", "not_applicable"),
        ("n/a", "not_applicable"),
        ("NA", "not_applicable"),
        (True, "yes"),
        (False, "no"),
    ],
)
def test_rubric_verdict_labels(verdict, expected):
    read = rubric_reader(RUBRIC_IDS)
    found = parse_answer(rubric_answer(("concise", verdict), ("cites_source", "yes")), read)
    assert found["concise"].verdict == expected


def test_not_applicable_is_never_read_as_no_and_scores_as_met():
    read = rubric_reader(["r"])
    found = parse_answer(rubric_answer(("r", "Not applicable")), read)
    assert found["r"].verdict == "not_applicable"
    assert found["r"].score == 1.0


@pytest.mark.parametrize("verdict", ["unknown", "yes, but no", "partially", "maybe", 1, None])
def test_rubric_verdicts_outside_the_enum_are_unparseable(verdict):
    with pytest.raises(Unparseable):
        parse_answer(rubric_answer(("concise", verdict), ("cites_source", "yes")), rubric_reader(RUBRIC_IDS))


def test_rubric_answer_must_cover_every_rubric():
    with pytest.raises(Unparseable, match="no verdict for rubric.*cites_source"):
        parse_answer(rubric_answer(("concise", "yes")), rubric_reader(RUBRIC_IDS))


def test_rubric_ids_matched_loosely_unknown_ids_ignored():
    read = rubric_reader(RUBRIC_IDS)
    text = rubric_answer((" Concise ", "yes"), ("`cites_source`", "no"), ("made_up", "no"))
    found = parse_answer(text, read)
    assert {k: v.verdict for k, v in found.items()} == {"concise": "yes", "cites_source": "no"}


def test_rubric_conflicting_verdicts_are_unparseable_repeats_are_fine():
    read = rubric_reader(["r"])
    with pytest.raises(Unparseable, match="two different verdicts"):
        parse_answer(rubric_answer(("r", "yes"), ("r", "no")), read)
    assert parse_answer(rubric_answer(("r", "yes"), ("r", "Yes")), read)["r"].verdict == "yes"


@pytest.mark.parametrize(
    "text",
    [
        '{"rubrics": {"r": "yes"}}',
        '{"rubrics": [{"rubric_id": "r", "verdict": "yes"}]}',  # no rationale
        '{"rubrics": [{"rationale": "x", "verdict": "yes"}]}',  # no id
        '{"rubrics": ["yes"]}',
        '{"results": []}',
    ],
)
def test_rubric_answer_structure_is_strict(text):
    with pytest.raises(Unparseable):
        parse_answer(text, rubric_reader(["r"]))


# -- hallucination answers ----------------------------------------------------------------


def test_segmenter_answers():
    assert parse_answer('{"sentences": [" A. ", "", "B."]}', read_sentences) == ["A.", "B."]
    assert parse_answer('{"sentences": []}', read_sentences) == []
    for bad in ['{"sentences": "A. B."}', '{"sentences": [1, 2]}', '{"parts": []}']:
        with pytest.raises(Unparseable):
            parse_answer(bad, read_sentences)


@pytest.mark.parametrize(
    "label, expected, score",
    [
        ("supported", "supported", 1.0),
        ("Not Applicable", "not_applicable", 1.0),
        ("**unsupported**", "unsupported", 0.0),
        ("contradicted", "contradictory", 0.0),
        ("DISPUTED", "disputed", 0.0),
    ],
)
def test_validator_labels(label, expected, score):
    import json

    text = json.dumps({"sentences": [{"id": "s1", "label": label, "rationale": "r"}]})
    found = parse_answer(text, read_labels(["s1"]))["s1"]
    assert (found.label, found.score) == (expected, score)
    assert found.supporting_excerpt == "" and found.contradicting_excerpt == ""


def test_validator_must_label_every_sentence_with_a_known_label():
    with pytest.raises(Unparseable, match="s2"):
        parse_answer(
            '{"sentences": [{"id": "s1", "label": "supported", "rationale": "r"}]}', read_labels(["s1", "s2"])
        )
    with pytest.raises(Unparseable):
        parse_answer(
            '{"sentences": [{"id": "s1", "label": "mostly true", "rationale": "r"}]}', read_labels(["s1"])
        )


# -- user-simulator answers ---------------------------------------------------------------


@pytest.mark.parametrize(
    "is_valid, expected",
    [(True, True), (False, False), ("true", True), ("Valid", True), ("INVALID", False), ("false", False)],
)
def test_turn_verdicts(is_valid, expected):
    import json

    text = json.dumps(
        {"criteria": [{"name": "RESPONSIVENESS", "reasoning": "r", "passes": True}], "is_valid": is_valid}
    )
    assert parse_answer(text, read_turn_verdict).is_valid is expected


@pytest.mark.parametrize(
    "text",
    [
        '{"is_valid": true}',
        '{"criteria": [], "is_valid": "almost"}',
        '{"criteria": [{"name": "X", "passes": true}], "is_valid": true}',
        '{"criteria": "fine", "is_valid": true}',
    ],
)
def test_turn_verdict_structure_is_strict(text):
    with pytest.raises(Unparseable):
        parse_answer(text, read_turn_verdict)
