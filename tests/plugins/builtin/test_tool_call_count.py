"""``tool_call_count_v1``: tool calls per invocation, informational (reference 4.9)."""

from __future__ import annotations

from agenteval_builtin.tool_call_count import ToolCallCount
from agenteval_builtin_test_helpers import call, inv, run

C = ToolCallCount


def test_counts_every_call_in_both_forms_and_averages():
    actual = [inv([call("a"), call("a"), call("b")]), inv([call("x")], form="events"), inv([], form="none")]
    result = run(C, actual)
    assert [s.score for s in result.per_invocation] == [3.0, 1.0, 0.0]
    assert result.value == 4 / 3
    assert all(s.reason is None for s in result.per_invocation)


def test_expected_data_is_ignored():
    assert run(C, [inv([call("a")])], [inv([call("a"), call("b")])]).value == 1.0


def test_no_invocations():
    assert run(C, []).reason_code == "no_invocations"


def test_info_is_informational():
    info = C.info
    assert info.informational and info.default_threshold is None
    assert (info.min_score, info.max_score) == (0.0, None)
    assert not info.requires_expected
