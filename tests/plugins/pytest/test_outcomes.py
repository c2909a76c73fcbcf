"""Running collected cases: outcomes, one evaluation per file, selection, runs, reports."""

from __future__ import annotations

import json

import pytest


def _outcomes(result: pytest.RunResult) -> dict[str, str]:
    """``{case: PASSED | FAILED}`` from ``-v`` output."""
    found = {}
    for line in result.outlines:
        words = line.split()
        if len(words) >= 2 and ".json::" in words[0] and words[1] in ("PASSED", "FAILED"):
            found[words[0].split("::")[-1]] = words[1]
    return found


def test_passed_failed_errored_and_not_evaluated_cases(named):
    result = named.run("-v")
    assert _outcomes(result) == {
        "weather": "PASSED",
        "flight": "FAILED",
        "crash": "FAILED",
        "empty": "FAILED",
    }
    result.stdout.fnmatch_lines(
        [
            "FAILED shop.evalset.json::flight - FAILED: 1 of 2 criteria fell short*",
            "FAILED shop.evalset.json::crash - ERRORED: 2 of 2 criteria fell short*",
            "FAILED shop.evalset.json::empty - NOT_EVALUATED: 2 of 2 criteria fell short*",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_the_file_is_evaluated_once_for_all_its_cases(named):
    named.run()
    # Every user turn of every case was sent once: the first test ran the whole file.
    assert named.calls() == sorted(
        ["What's the weather in Paris?", "Find a flight from Berlin to Tokyo.", "And in yen?", "boom"]
    )


def test_selecting_cases_runs_only_those(named):
    result = named.run("-k", "weather or crash")
    result.assert_outcomes(passed=1, failed=1, deselected=2)
    assert named.calls() == ["What's the weather in Paris?", "boom"]


def test_a_node_id_runs_only_its_case(named):
    named.run("shop.evalset.json::weather").assert_outcomes(passed=1)
    assert named.calls() == ["What's the weather in Paris?"]


def test_the_failure_report_shows_the_criteria_and_an_expected_vs_actual_diff(named):
    result = named.run("-k", "flight")
    result.stdout.fnmatch_lines(
        [
            "*_ shop::flight _*",
            "FAILED: 1 of 2 criteria fell short: tool_trajectory_avg_score",
            "criteria that fell short:",
            "  tool_trajectory_avg_score: score 0.5, threshold 1, FAILED",
            "    1 of 2 invocations scored below 1*destination: expected 'HND', got 'NRT'*",
            "others: response_match_score * PASSED",
            "invocation 1 of 2, user: Find a flight from Berlin to Tokyo.",
            "  tool calls (- expected, + actual):",
            # The actual arguments are shown in the expected call's order (order never counts).
            '    - search_flights(origin="BER", destination="HND")',
            "    ?*",
            '    + search_flights(origin="BER", destination="NRT")',
            "    ?*",
            "  final response: as expected",
            "  tool_trajectory_avg_score: 0 FAILED",
            "invocation 2 of 2, user: And in yen?",
            "  tool calls: as expected: (none)",
            "  final response (- expected, + actual):",
            "    - That is about 126,000 yen.",
            "    ?*",
            "    + That is roughly 125,000 yen.",
            "    ?*",
            "*short test summary info*",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_a_crashing_agent_s_report_ends_with_its_own_frames(named):
    result = named.run("-k", "crash")
    result.stdout.fnmatch_lines(
        [
            "  tool_trajectory_avg_score: score -, threshold 1, ERRORED [agent_error]",
            "    the agent failed: turn 1: the agent raised ValueError: the agent broke",
            "the agent failed [agent_error]: turn 1: the agent raised ValueError: the agent broke",
            "  ...",
            '*File "*agent.py", line *, in respond',
            "*raise ValueError(*the agent broke*)",
            "*ValueError: the agent broke",
            "*short test summary info*",
        ]
    )
    assert "asyncio" not in result.stdout.str()  # the engine's and the event loop's frames are cut


def test_a_bad_eval_file_is_a_clean_collection_error(named):
    named.write(
        "broken.evalset.json", {"eval_set_id": "b", "eval_cases": [{"eval_idd": "x", "conversation": []}]}
    )
    result = named.run()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting broken.evalset.json*",
            "*broken.evalset.json: not a valid eval set:",
            "eval_cases[0].eval_id: required key is missing "
            "(the object has keys it does not know: 'eval_idd')",
        ]
    )
    assert "Traceback" not in result.stdout.str() and "agenteval/" not in result.stdout.str()


def test_a_bad_config_fails_every_case_with_its_message(named):
    named.write("test_config.json", {"criteria": {"response_match_score": "high"}})
    result = named.run()
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(
        ["agenteval could not run shop.evalset.json: *test_config.json: criteria.response_match_score*"]
    )
    assert "Traceback" not in result.stdout.str()
    assert named.calls() == []  # stopped before the agent ran


def test_an_agent_that_cannot_be_imported_fails_every_case_with_the_reason(named):
    named.write("agent.py", "import no_such_module_here\n")
    result = named.run()
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(
        ["*importing '*agent.py' failed: ModuleNotFoundError: No module named 'no_such_module_here'"]
    )
    assert "Traceback" not in result.stdout.str()


def test_num_runs_runs_each_case_that_often_and_reports_the_runs(named):
    result = named.run("-k", "flight", "--agenteval-num-runs", "3")
    result.stdout.fnmatch_lines(
        [
            "    mean 0.5 over 3 runs (per run: 0.5, 0.5, 0.5)",
            "3 runs; run 1 is shown below (the worst). Per-run scores:",
            "  tool_trajectory_avg_score  0.5  0.5  0.5  (mean 0.5)",
            "  response_match_score       *  (mean *)",
            "invocation 1 of 2, user: Find a flight from Berlin to Tokyo.",
        ]
    )
    assert named.calls().count("Find a flight from Berlin to Tokyo.") == 3


def test_num_runs_from_the_ini_file(named):
    named.pytester.makeini("[pytest]\nagenteval_num_runs = 2\n")
    named.run("-k", "weather").assert_outcomes(passed=1, deselected=3)
    assert named.calls() == ["What's the weather in Paris?"] * 2


@pytest.mark.parametrize("value", ["0", "two"])
def test_a_bad_number_of_runs_is_a_usage_error(named, value):
    result = named.run("--agenteval-num-runs", value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"*--agenteval-num-runs: expected a whole number of runs, at least 1, or auto; got '{value}'"]
    )


def test_criteria_option_keeps_the_configured_thresholds(named):
    named.write(
        "test_config.json", {"criteria": {"response_match_score": 0.95, "tool_trajectory_avg_score": 1}}
    )
    result = named.run("-k", "flight", "--agenteval-criteria", "response_match_score")
    result.stdout.fnmatch_lines(["  response_match_score: score *, threshold 0.95, FAILED"])
    assert "tool_trajectory_avg_score" not in result.stdout.str()


def test_loader_warnings_are_shown_in_the_summary_and_do_not_fail_under_W_error(named):
    data = json.loads((named.path / "shop.evalset.json").read_text())
    named.write("shop.evalset.json", {**data, "colour": "blue"})
    result = named.run("-W", "error", "-k", "weather", "-rN")
    result.assert_outcomes(passed=1, deselected=3)
    result.stdout.fnmatch_lines(["*agenteval warnings*", "shop.evalset.json: *colour*"])


def test_each_eval_file_is_recorded_as_a_run(named, monkeypatch):
    from agenteval.runs import RunState, list_runs

    runs = named.path / "recorded"
    result = named.run("--agenteval-runs-dir", str(runs))
    [run] = list_runs(runs)
    assert run.manifest.state is RunState.COMPLETE
    assert sorted(r.case_id for r in run.records()) == ["crash", "empty", "flight", "weather"]
    result.stdout.fnmatch_lines([f"agenteval: 1 run(s) recorded in {runs}*"])


def test_no_record_keeps_no_run_folder(named, monkeypatch):
    monkeypatch.delenv("AGENTEVAL_RUNS_DIR", raising=False)
    named.run("--agenteval-no-record")
    assert not (named.path / ".agenteval" / "runs").exists()
    named.run()
    assert (named.path / ".agenteval" / "runs").is_dir()  # the rootdir's, by default
