"""Judge sampling that stops when decided: curtailed majority (same verdicts as all N, fewer
calls), the opt-in sequential mode, and what ``details`` records."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from agenteval_llm_judges._stopping import sprt_barrier
from agenteval_llm_judges._voting import JudgeSampling, majority, majority_settled
from agenteval_llm_judges.final_response_match import FinalResponseMatchV2
from agenteval_llm_judges.rubric_tool_use import RubricToolUseQuality
from agenteval_llm_judges_test_helpers import Log, by_prompt, fail, inv, options, run, verdict
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

answers = st.lists(st.sampled_from([True, False, None]), min_size=15, max_size=15)


def _one_at_a_time_calls(votes, n: int) -> int:
    """The oracle: the calls of majority-of-``n`` asked one sample at a time, stopping once
    the remaining samples cannot change it (a tie is NO)."""
    yes = no = calls = 0
    while calls < n and majority_settled(yes, no, n - calls) is None:
        yes, no, calls = yes + (votes[calls] is True), no + (votes[calls] is False), calls + 1
    return calls


def _sprt(votes, h: int, cap: int) -> SimpleNamespace:
    """The oracle: Wald's SPRT on #YES - #NO in draw order, stopped at +-h (settled) or at
    ``cap`` calls (unsettled: the majority so far, a tie NO, None without a usable vote)."""
    yes = no = calls = 0
    while calls < cap and abs(yes - no) < h:
        yes, no, calls = yes + (votes[calls] is True), no + (votes[calls] is False), calls + 1
    verdict = None if yes + no == 0 else yes > no
    return SimpleNamespace(calls=calls, settled=abs(yes - no) >= h, verdict=verdict)


def _draw(sampling: JudgeSampling, sequence, num_samples: int, items: int = 1):
    """Run ``next_batch`` over ``sequence`` (per sample: a tuple of item votes, or None for a
    failed sample) as ``ask`` does; returns (samples drawn, batch sizes)."""
    drawn, batches = 0, []
    while True:
        tallies = [[s[i] for s in sequence[:drawn] if s is not None] for i in range(items)]
        size = sampling.next_batch(tallies, drawn, num_samples)
        if size == 0:
            return drawn, batches
        batches.append(size)
        drawn += size


@given(sequence=answers, n=st.integers(1, 9))
def test_curtailed_batches_give_the_full_majority_with_the_calls_of_one_at_a_time(sequence, n):
    sampling = JudgeSampling()
    samples = [None if v is None else (v,) for v in sequence]
    drawn, _ = _draw(sampling, samples, n)
    votes = [s[0] for s in samples[:drawn] if s is not None]
    full = majority(1.0 if v else 0.0 for v in sequence[:n] if v is not None)
    assert sampling.decide(votes).score == full
    assert drawn <= n
    assert drawn == _one_at_a_time_calls(sequence, n)


@given(sequences=st.lists(answers, min_size=2, max_size=4), n=st.integers(1, 7))
def test_every_rubric_keeps_its_full_majority(sequences, n):
    items = len(sequences)
    samples = [tuple(bool(seq[k]) for seq in sequences) for k in range(15)]
    drawn, _ = _draw(JudgeSampling(), samples, n, items)
    assert drawn <= n
    for i in range(items):
        full = majority(1.0 if s[i] else 0.0 for s in samples[:n])
        assert JudgeSampling().decide([s[i] for s in samples[:drawn]]).score == full


@given(sequence=answers)
def test_sequential_mode_matches_the_sprt(sequence):
    sampling = JudgeSampling(mode="sequential")
    samples = [None if v is None else (v,) for v in sequence]
    drawn, _ = _draw(sampling, samples, 5)
    decision = sampling.decide([s[0] for s in samples[:drawn] if s is not None])
    reference = _sprt(sequence, sprt_barrier(0.05, 0.3), 15)
    assert drawn == reference.calls
    assert decision.settled == reference.settled
    if reference.verdict is not None:
        assert decision.score == (1.0 if reference.verdict else 0.0)


def test_batches_and_settlement():
    assert _draw(JudgeSampling(), [(True,)] * 5, 5) == (3, [3])
    assert _draw(JudgeSampling(), [(True,), (False,), (True,), (False,), (True,)], 5) == (5, [3, 1, 1])
    assert _draw(JudgeSampling(curtail=False), [(True,)] * 5, 5) == (5, [5])
    assert _draw(JudgeSampling(mode="sequential"), [(False,)] * 15, 5) == (3, [3])
    assert majority_settled(3, 0, 2) is True and majority_settled(1, 1, 0) is False


def test_sampling_parameters_are_checked():
    assert JudgeSampling().barrier == 3 and JudgeSampling(delta=0.2).barrier == 4
    for bad in ({"mode": "adaptive"}, {"alpha": 0.5}, {"delta": 0}, {"max_samples": 0}, {"extra": 1}):
        with pytest.raises(ValidationError):
            JudgeSampling.model_validate(bad)
    assert JudgeSampling.model_validate({"maxSamples": 9}).max_samples == 9


def _one(answers_, samples=5, log=None, **params):
    params.setdefault("judge_model_options", options(num_samples=samples))
    return run(
        FinalResponseMatchV2,
        [inv("What is 2+2?", "four")],
        [inv("What is 2+2?", "4")],
        by_prompt(("", answers_)),
        log=log,
        **params,
    )


def test_a_unanimous_judge_is_asked_three_times_of_five():
    log = Log()
    result = _one([verdict(True)] * 5, log=log)
    item = result.per_invocation[0]
    assert result.value == 1.0 and len(log.requests) == 3
    assert item.details["sampling"] == "curtailed"
    assert (item.details["calls_used"], item.details["calls_saved"]) == (3, 2)
    assert item.details["votes"] == {"valid": 3, "invalid": 0}


def test_full_sampling_on_request_and_the_same_verdict():
    answers_ = [verdict(False), verdict(False), verdict(True), verdict(False), verdict(True)]
    full_log, curtailed_log = Log(), Log()
    full = _one(answers_, log=full_log, judge_sampling={"curtail": False})
    curtailed = _one(answers_, log=curtailed_log)
    assert full.value == curtailed.value == 0.0
    assert len(full_log.requests) == 5 and len(curtailed_log.requests) == 4
    assert full.per_invocation[0].details["sampling"] == "full"
    assert full.per_invocation[0].details["calls_saved"] == 0


def test_failed_samples_count_as_calls_and_keep_the_verdict():
    log = Log()
    answers_ = [fail(400, retryable=False), verdict(True), verdict(True), verdict(True), verdict(False)]
    result = _one(answers_, log=log, judge_model_options=options(num_samples=5, max_retries=0))
    item = result.per_invocation[0]
    assert result.value == 1.0 and item.details["calls_used"] == 4 and item.details["samples_failed"] == 1


def test_sequential_mode_opt_in():
    log = Log()
    settled = _one([verdict(True)] * 15, log=log, judge_sampling={"mode": "sequential"})
    details = settled.per_invocation[0].details
    assert settled.value == 1.0 and len(log.requests) == 3
    assert (details["sampling"], details["barrier"], details["unsettled"]) == ("sequential", 3, 0)
    assert details["calls_saved"] == 12
    capped = _one(
        [verdict(True), verdict(False)] * 3, judge_sampling={"mode": "sequential", "max_samples": 6}
    )
    details = capped.per_invocation[0].details
    assert capped.value == 0.0 and details["unsettled"] == 1 and details["calls_used"] == 6


def test_planned_calls_are_the_most_a_question_may_take():
    from agenteval_llm_judges_test_helpers import context, make

    ctx = context([inv("q", "a")], [inv("q", "a")])
    fixed = make(FinalResponseMatchV2, judge_model_options=options(num_samples=5))
    assert fixed.planned_judge_calls(ctx) == 5
    sequential = make(
        FinalResponseMatchV2,
        judge_model_options=options(num_samples=5),
        judge_sampling={"mode": "sequential", "max_samples": 11},
    )
    assert sequential.planned_judge_calls(ctx) == 11


def test_rubrics_stop_when_every_rubric_is_decided():
    from agenteval.models import Rubric, RubricContent

    def rubric_answer(**verdicts):
        import json

        return json.dumps(
            {"rubrics": [{"rubric_id": k, "rationale": "r", "verdict": v} for k, v in verdicts.items()]}
        )

    answers_ = [
        rubric_answer(a="yes", b="yes"),
        rubric_answer(a="yes", b="no"),
        rubric_answer(a="yes", b="yes"),
        rubric_answer(a="yes", b="no"),
        rubric_answer(a="yes", b="no"),
    ]
    log = Log()
    result = run(
        RubricToolUseQuality,
        [inv("q", "a")],
        None,
        by_prompt(("", answers_)),
        log=log,
        rubrics=[Rubric(rubric_id=r, rubric_content=RubricContent(text_property="p")) for r in "ab"],
        judge_model_options=options(num_samples=5),
    )
    (item,) = result.per_invocation
    scores = {e["rubric_id"]: e["score"] for e in item.details["rubrics"]}
    assert scores == {"a": 1.0, "b": 0.0} and len(log.requests) == 5
    assert item.details["calls_used"] == 5 and item.details["calls_saved"] == 0
