"""Pivotal-only sampling: once a case's point verdict cannot change, the remaining
invocations get one sample each, and the verdict is the one full sampling gives."""

from __future__ import annotations

import math

from agenteval_llm_judges._pivotal import decided
from agenteval_llm_judges._voting import JudgeSampling
from agenteval_llm_judges.final_response_match import FinalResponseMatchV2
from agenteval_llm_judges_test_helpers import Log, context, inv, make, options, run_ctx, verdict
from hypothesis import given, settings
from hypothesis import strategies as st

unit = st.floats(0.0, 1.0, allow_nan=False)


def _mean_passes(values, threshold):
    kept = [v for v in values if v is not None]
    return None if not kept else math.fsum(kept) / len(kept) >= threshold


@given(
    known=st.lists(st.one_of(st.none(), unit), max_size=6),
    rest=st.lists(st.one_of(st.none(), unit), min_size=1, max_size=6),
    threshold=unit,
)
def test_a_decided_case_keeps_its_verdict_whatever_the_rest_score(known, rest, threshold):
    outcome = decided(known, len(rest), threshold)
    final = _mean_passes(known + rest, threshold)
    if outcome == "PASS":
        assert final is not False  # None only when nothing at all was scored
    elif outcome == "FAIL":
        assert final is not True


def test_decided_examples():
    assert decided([1.0, 1.0, 1.0], 1, 0.75) == "PASS"  # 3/4 already
    assert decided([0.0], 3, 1.0) == "FAIL"  # one invalid ends a threshold of 1.0
    assert decided([1.0, 0.0], 2, 0.5) is None
    assert decided([1.0], 0, 0.5) is None  # nothing left to decide


def _leaning_responder(votes: dict[str, list[bool]]):
    """The k-th answer to the invocation whose user text is ``key`` is ``votes[key][k]``."""
    asked: dict[str, int] = {}

    def respond(request):
        key = next(k for k in votes if f"question {k}?" in request.prompt)
        k = asked.get(key, 0)
        asked[key] = k + 1
        return verdict(votes[key][k])

    return respond


def _score(votes: dict[str, list[bool]], threshold: float, sampling: dict, num_samples: int = 5):
    actual = [inv(f"question {k}?", f"answer {k}") for k in votes]
    expected = [inv(f"question {k}?", f"reference {k}") for k in votes]
    evaluator = make(
        FinalResponseMatchV2, judge_model_options=options(num_samples=num_samples), judge_sampling=sampling
    )
    log = Log()
    ctx = context(actual, expected, threshold=threshold)
    return run_ctx(evaluator, ctx, _leaning_responder(votes), log), len(log.requests)


invocation_votes = st.lists(st.lists(st.booleans(), min_size=15, max_size=15), min_size=1, max_size=5)


@settings(max_examples=40, deadline=None)
@given(
    sequences=invocation_votes,
    threshold=st.sampled_from([0.2, 0.5, 0.6, 0.8, 1.0]),
    mode=st.sampled_from(["fixed", "sequential"]),
)
def test_pivotal_sampling_gives_the_full_sampling_verdict_with_no_more_calls(sequences, threshold, mode):
    votes = {str(i): seq for i, seq in enumerate(sequences)}
    full, full_calls = _score(votes, threshold, {"mode": mode})
    pivotal, pivotal_calls = _score(votes, threshold, {"mode": mode, "pivotal": True})
    assert (pivotal.value >= threshold) == (full.value >= threshold)
    assert pivotal_calls <= full_calls
    for item in pivotal.per_invocation:
        assert item.score is not None  # every invocation is still scored
        if item.details.get("pivotal") is False:
            assert item.details["calls_used"] == 1 and item.details["sampling"] == "single"
            assert item.details["decided"] == ("PASS" if full.value >= threshold else "FAIL")


def test_one_invalid_invocation_ends_a_threshold_of_one():
    votes = {"0": [False] * 15, "1": [True] * 15, "2": [True] * 15}
    score, calls = _score(votes, 1.0, {"pivotal": True})
    assert score.value < 1.0
    assert calls == 3 + 1 + 1  # a curtailed NO, then one sample each
    first, *rest = score.per_invocation
    assert "pivotal" not in first.details
    assert all(r.details["pivotal"] is False and r.details["decided"] == "FAIL" for r in rest)
    assert all(r.details["calls_saved"] == 4 for r in rest)


def test_without_pivotal_every_invocation_is_sampled_in_full():
    votes = {"0": [False] * 15, "1": [True] * 15}
    _, calls = _score(votes, 1.0, {})
    assert calls == 6


def test_the_run_flag_turns_pivotal_sampling_on_and_the_others_off():
    own = JudgeSampling(pivotal=True)
    assert own.overridden("pivotal").pivotal and own.overridden("pivotal").curtail
    assert not own.overridden("majority").pivotal
    assert not own.overridden("sequential").pivotal
    assert own.overridden(None).pivotal


# -- the rubric criteria: an invocation weighs its number of rubrics ------------------------


def test_decided_weighs_each_score():
    # 2 rubrics met of 2, then 2 more invocations of 3 rubrics each: (2 + 6) / 8 < 1.0 if any fails.
    assert decided([1.0], 6, 1.0, [2]) is None
    assert decided([0.5], 6, 0.9, [2]) == "FAIL"  # at most (1 + 6) / 8 = 0.875
    assert decided([1.0, 1.0], 1, 0.75, [2, 3]) == "PASS"  # 5 / 6 already


@given(
    known=st.lists(st.tuples(st.one_of(st.none(), unit), st.integers(1, 4)), max_size=5),
    rest=st.lists(st.tuples(st.one_of(st.none(), unit), st.integers(1, 4)), min_size=1, max_size=5),
    threshold=unit,
)
def test_a_weighted_decided_case_keeps_its_verdict_whatever_the_rest_score(known, rest, threshold):
    outcome = decided([s for s, _ in known], sum(w for _, w in rest), threshold, [w for _, w in known])
    kept = [(s, w) for s, w in known + rest if s is not None]
    final = None if not kept else math.fsum(s * w for s, w in kept) / sum(w for _, w in kept) >= threshold
    if outcome == "PASS":
        assert final is not False
    elif outcome == "FAIL":
        assert final is not True


def _rubric_score(plan: dict[str, dict[str, list[bool]]], threshold: float, sampling: dict):
    """``plan[invocation][rubric]``: that rubric's k-th answer (True: yes) for the invocation
    whose user text is ``question <invocation>?``."""
    from agenteval.models import Rubric, RubricContent
    from agenteval_llm_judges.rubric_final_response import RubricFinalResponseQuality
    from agenteval_llm_judges_test_helpers import rubric_verdicts

    asked: dict[str, int] = {}

    def respond(request):
        key = next(k for k in plan if f"question {k}?" in request.prompt)
        k = asked.get(key, 0)
        asked[key] = k + 1
        return rubric_verdicts(**{rid: "yes" if votes[k] else "no" for rid, votes in plan[key].items()})

    def with_rubrics(invocation, ids):
        rubrics = [
            Rubric(
                rubric_id=r,
                rubric_content=RubricContent(text_property=f"{r}."),
                type="FINAL_RESPONSE_QUALITY",
            )
            for r in ids
        ]
        return invocation.model_copy(update={"rubrics": rubrics})

    actual = [inv(f"question {k}?", f"answer {k}") for k in plan]
    expected = [with_rubrics(inv(f"question {k}?", f"reference {k}"), list(plan[k])) for k in plan]
    evaluator = make(
        RubricFinalResponseQuality, judge_model_options=options(num_samples=5), judge_sampling=sampling
    )
    log = Log()
    ctx = context(actual, expected, threshold=threshold)
    return run_ctx(evaluator, ctx, respond, log), len(log.requests)


rubric_plans = st.lists(
    st.lists(st.lists(st.booleans(), min_size=15, max_size=15), min_size=1, max_size=3),
    min_size=1,
    max_size=4,
)


@settings(max_examples=30, deadline=None)
@given(plans=rubric_plans, threshold=st.sampled_from([0.5, 0.7, 0.8, 1.0]))
def test_pivotal_rubric_sampling_gives_the_full_sampling_verdict_with_no_more_calls(plans, threshold):
    plan = {
        str(i): {f"r{i}_{j}": votes for j, votes in enumerate(rubrics)} for i, rubrics in enumerate(plans)
    }
    full, full_calls = _rubric_score(plan, threshold, {})
    pivotal, pivotal_calls = _rubric_score(plan, threshold, {"pivotal": True})
    assert (pivotal.value >= threshold) == (full.value >= threshold)
    assert pivotal_calls <= full_calls
    for item in pivotal.per_invocation:
        assert item.score is not None
        if item.details.get("pivotal") is False:
            assert item.details["calls_used"] == 1 and item.details["sampling"] == "single"


def test_a_failed_rubric_at_threshold_one_ends_the_rubric_case():
    plan = {"0": {"a": [False] * 15, "b": [True] * 15}, "1": {"c": [True] * 15}, "2": {"d": [True] * 15}}
    score, calls = _rubric_score(plan, 1.0, {"pivotal": True})
    assert score.value < 1.0
    assert calls == 3 + 1 + 1  # the first invocation's curtailed majority, then one sample each
    assert [item.details.get("decided") for item in score.per_invocation] == [None, "FAIL", "FAIL"]
