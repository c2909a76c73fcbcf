"""Majority votes (a tie fails, as in ADK) and the failure code of an unusable question."""

from __future__ import annotations

import pytest
from agenteval_llm_judges._judge import Sample, failure
from agenteval_llm_judges._voting import majority, mean


@pytest.mark.parametrize(
    "votes, expected",
    [
        ([1.0], 1.0),
        ([0.0], 0.0),
        ([1.0, 1.0, 0.0], 1.0),
        ([1.0, 0.0, 0.0], 0.0),
        ([1.0, 0.0], 0.0),  # a tie fails
        ([1.0, 1.0, 0.0, 0.0], 0.0),  # so does an even split of four
        ([1.0, 1.0, 1.0, 0.0], 1.0),
        ([1.0, None, 0.0, None], 0.0),  # None does not vote
        ([None, None], None),
        ([], None),
    ],
)
def test_majority(votes, expected):
    assert majority(votes) == expected


def test_mean_skips_none():
    assert mean([1.0, None, 0.0, 0.5]) == 0.5
    assert mean([None]) is None and mean([]) is None


def test_failure_picks_the_most_frequent_code_then_the_first():
    samples = [
        Sample(code="judge_unparseable", message="bad json"),
        Sample(code="judge_timeout", message="slow"),
        Sample(code="judge_timeout", message="slow again"),
    ]
    assert failure(samples) == ("judge_timeout", "3 of 3 samples failed; judge_timeout: slow")
    tie = [Sample(code="judge_error", message="500"), Sample(code="judge_unparseable", message="x")]
    assert failure(tie)[0] == "judge_error"
    assert failure([Sample(code="judge_unparseable", message="no JSON")]) == (
        "judge_unparseable",
        "the judge's answer could not be read; judge_unparseable: no JSON",
    )
