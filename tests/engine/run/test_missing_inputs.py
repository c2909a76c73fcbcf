"""Never a silent score: a criterion that reads an input a recorded turn lacks is NOT_EVALUATED
with the finding's reason code and the fix, without being called; one that does not read it
is scored as before."""

from __future__ import annotations

import pytest
from agenteval import Evaluator, EvaluatorInfo, Score, Status, evaluate
from agenteval.models import INVOCATION_INPUTS, EvalSet, MissingInput
from agenteval.testing import make_case, make_invocation, registry_for
from pydantic import ValidationError

FIX = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY"


def _reading(reads):
    class Reads(Evaluator):
        info = EvaluatorInfo(description="Counts its calls.", reads=reads)
        calls = 0

        def evaluate(self, ctx):
            type(self).calls += 1
            return Score(value=1.0)

    return Reads


def _turn(*missing: str):
    turn = make_invocation("q", "a", [("t", {"x": 1})])
    turn.mark_missing(
        tuple(MissingInput(name, f"{name}_gone", "span 'chat' [01]: not recorded", FIX) for name in missing)
    )
    return turn


def _run(reads, *turns):
    cases = EvalSet(eval_set_id="s", eval_cases=[make_case([_turn() for _ in turns], eval_id="c")])
    evaluator = _reading(reads)
    result = evaluate(cases, {"c": list(turns)}, {"x": 0.5}, registry=registry_for(x=evaluator))
    [case] = result.cases()
    [criterion] = case.criteria
    return criterion, evaluator.calls


@pytest.mark.parametrize(
    ("reads", "missing", "blocked"),
    [
        (None, "tool_results", True),  # undeclared: reads everything
        (frozenset({"final_response"}), "final_response", True),
        (frozenset({"final_response"}), "tool_calls", False),
        (frozenset({"tool_calls", "tool_results"}), "tool_results", True),
        (frozenset(), "user_content", False),  # timings and token counts read no content
    ],
)
def test_a_criterion_reading_a_missing_input_is_not_evaluated_and_never_called(reads, missing, blocked):
    criterion, calls = _run(reads, _turn(), _turn(missing))
    if blocked:
        assert criterion.status is Status.NOT_EVALUATED and criterion.score is None and calls == 0
        assert criterion.reason_code == f"{missing}_gone"
        assert "turn 2" in criterion.reason and FIX in criterion.reason and "span 'chat'" in criterion.reason
    else:
        assert criterion.status is Status.PASSED and calls == 1


def test_a_context_turn_lacking_an_input_is_not_scored_so_blocks_nothing_and_turns_keep_their_number():
    turns = [_turn("final_response"), _turn(), _turn("final_response")]
    case = make_case([_turn() for _ in turns], eval_id="c").model_copy(update={"context_turns": 1})
    evaluator = _reading(frozenset({"final_response"}))
    cases = EvalSet(eval_set_id="s", eval_cases=[case])
    result = evaluate(cases, {"c": turns}, {"x": 0.5}, registry=registry_for(x=evaluator))
    [criterion] = result.cases()[0].criteria
    assert criterion.status is Status.NOT_EVALUATED and evaluator.calls == 0
    assert "turn 3 of the recording" in criterion.reason
    turns[2] = _turn()
    result = evaluate(cases, {"c": turns}, {"x": 0.5}, registry=registry_for(x=evaluator))
    assert result.cases()[0].criteria[0].status is Status.PASSED and evaluator.calls == 1


def test_a_complete_recording_is_scored_and_the_mark_is_kept_by_copies():
    criterion, calls = _run(None, _turn())
    assert criterion.status is Status.PASSED and calls == 1
    marked = _turn("final_response")
    assert marked.model_copy().missing_inputs() == marked.missing_inputs()
    assert "missing" not in marked.model_dump_json()  # never written to a file


def test_reads_accepts_only_the_named_inputs():
    assert set(INVOCATION_INPUTS) == {"user_content", "final_response", "tool_calls", "tool_results"}
    with pytest.raises(ValidationError):
        EvaluatorInfo(description="x", reads=frozenset({"final_text"}))


def test_a_run_record_keeps_what_its_turns_lack_so_re_scoring_it_is_not_silent():
    from agenteval import AgentRunRecord

    record = AgentRunRecord(run=1, invocations=[_turn(), _turn("tool_results")])
    assert record.missing_inputs == {
        1: [MissingInput("tool_results", "tool_results_gone", "span 'chat' [01]: not recorded", FIX)]
    }
    again = AgentRunRecord.model_validate_json(record.model_dump_json())
    assert [t.missing_inputs() for t in again.invocations] == [t.missing_inputs() for t in record.invocations]
    assert AgentRunRecord(run=1, invocations=[_turn()]).missing_inputs == {}
