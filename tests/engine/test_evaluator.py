"""``evaluator.explain_scores``: the case-level reason the criteria share."""

from __future__ import annotations

from agenteval import InvocationScore, explain_scores


def s(score, reason=None, code=None):
    return InvocationScore(score=score, reason=reason, reason_code=code)


def test_nothing_to_say():
    assert explain_scores([s(1.0), s(0.9)], 0.8) is None
    assert explain_scores([s(0.1)], None) is None  # informational: no threshold


def test_invocations_below_the_threshold_and_the_first_reason():
    reason = explain_scores([s(1.0), s(0.25, "missing\n  get_weather()"), s(0.5, "other")], 0.8)
    assert reason == "2 of 3 invocations scored below 0.8: #2 (0.25), #3 (0.5). #2: missing get_weather()"


def test_long_lists_and_reasons_are_cut():
    reason = explain_scores([s(0.0, "x" * 500)] * 7, 1.0)
    assert "#5 (0), ... 2 more. #1: " in reason
    assert reason.endswith("x…") and len(reason.split(". #1: ")[1]) == 400


def test_not_evaluated_invocations_are_named_with_their_codes():
    reason = explain_scores([s(0.0), s(None, "judge down", "judge_error")], 0.5)
    assert (
        reason
        == "1 of 2 invocations scored below 0.5: #1 (0); 1 of 2 invocations not evaluated: #2 (judge_error)"
    )
