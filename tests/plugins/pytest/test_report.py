"""The failure report, from hand-built results: which run is shown, and the edge cases."""

from __future__ import annotations

from agenteval import AgentRunRecord, CaseResult, CriterionResult, ErrorInfo, PluginInfo, Status
from agenteval.models import Invocation
from pytest_agenteval._report import case_report

PLUGIN = PluginInfo(distribution="agenteval-builtin", version="0", entry_point="x:Y")


def _turn(user: str, text: str, *calls: tuple[str, dict]) -> Invocation:
    return Invocation.model_validate(
        {
            "user_content": {"parts": [{"text": user}]},
            "final_response": {"parts": [{"text": text}]},
            "intermediate_data": {"tool_uses": [{"name": n, "args": a} for n, a in calls]},
        }
    )


def _result(name: str, score, status: Status, runs=(), threshold=1.0, **extra) -> CriterionResult:
    return CriterionResult(
        criterion=name,
        threshold=threshold,
        score=score,
        status=status,
        plugin=PLUGIN,
        runs=list(runs),
        **extra,
    )


EXPECTED = [_turn("Book it", "Booked.", ("book", {"id": 7, "when": "today"}))]


def test_with_several_runs_the_worst_is_shown_with_every_run_s_scores():
    runs = [
        _result("trajectory", 1.0, Status.PASSED),
        _result("trajectory", 0.0, Status.FAILED),
        _result("trajectory", 1.0, Status.PASSED),
    ]
    case = CaseResult(
        eval_id="book",
        status=Status.FAILED,
        criteria=[_result("trajectory", 2 / 3, Status.FAILED, runs, reason="mean 0.6667 over 3 runs")],
        agent_runs=[
            AgentRunRecord(run=1, invocations=EXPECTED),
            AgentRunRecord(
                run=2, invocations=[_turn("Book it", "Booked.", ("book", {"when": "today", "id": 8}))]
            ),
            AgentRunRecord(run=3, invocations=EXPECTED),
        ],
    )
    assert case_report(case, EXPECTED) == "\n".join(
        [
            "FAILED: 1 of 1 criteria fell short: trajectory",
            "criteria that fell short:",
            "  trajectory: score 0.6667, threshold 1, FAILED",
            "    mean 0.6667 over 3 runs",
            "3 runs; run 2 is shown below (the worst). Per-run scores:",
            "  trajectory  1  0  1  (mean 0.6667)",
            "invocation 1 of 1, user: Book it",
            "  tool calls (- expected, + actual):",
            '    - book(id=7, when="today")',
            "    ?         ^",
            '    + book(id=8, when="today")',
            "    ?         ^",
            "  final response: as expected",
        ]
    )


def test_an_errored_run_outranks_passing_ones_and_shows_the_error():
    runs = [_result("t", 1.0, Status.PASSED), _result("t", None, Status.ERRORED, reason_code="agent_error")]
    error = ErrorInfo(
        type="AgentFailure", message="turn 1: the agent raised KeyError: 'x'", traceback="KeyError: 'x'"
    )
    case = CaseResult(
        eval_id="book",
        status=Status.ERRORED,
        criteria=[_result("t", None, Status.ERRORED, runs, reason_code="agent_error")],
        agent_runs=[
            AgentRunRecord(run=1, invocations=EXPECTED),
            AgentRunRecord(run=2, error_code="agent_error", error=error),
        ],
    )
    report = case_report(case, EXPECTED)
    assert "2 runs; run 2 is shown below (the worst)." in report
    assert "  run 2: the agent failed [agent_error]" in report
    assert report.endswith(
        "the agent failed [agent_error]: turn 1: the agent raised KeyError: 'x'\n  KeyError: 'x'"
    )


def test_a_scenario_case_shows_what_the_agent_did_and_an_extra_turn_is_flagged():
    case = CaseResult(
        eval_id="chat",
        status=Status.FAILED,
        criteria=[
            _result("judge", 0.2, Status.FAILED, threshold=0.5),
            _result("count", 3, Status.INFORMATIONAL),
        ],
        agent_runs=[AgentRunRecord(run=1, invocations=[_turn("Hi", "Hello!", ("greet", {}))])],
    )
    scenario = case_report(case, None)
    assert scenario.splitlines()[1:] == [
        "criteria that fell short:",
        "  judge: score 0.2, threshold 0.5, FAILED",
        "others: count 3 INFORMATIONAL",
        "invocation 1 of 1, user: Hi",
        "  tool calls: greet()",
        "  final response: Hello!",
    ]
    extra = case_report(case, [])
    assert "  the eval case has no expected invocation for this turn" in extra


def test_a_matching_turn_takes_one_line_and_argument_order_is_no_difference():
    actual = [_turn("Book it", "Booked.", ("book", {"when": "today", "id": 7}))]
    case = CaseResult(
        eval_id="book",
        status=Status.FAILED,
        criteria=[_result("other", 0.1, Status.FAILED, threshold=0.5)],
        agent_runs=[AgentRunRecord(run=1, invocations=actual)],
    )
    assert case_report(case, EXPECTED).splitlines()[-1] == (
        "invocation 1 of 1: tool calls and final response as expected"
    )
