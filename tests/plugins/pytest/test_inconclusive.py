"""The tri-state verdict in the pytest plugin: shown in reports and the terminal summary,
and failing a case only with ``--agenteval-fail-on-inconclusive``."""

from __future__ import annotations

import pytest


@pytest.fixture
def varying(named):
    """The shop agent, its weather reply reworded on every other call: two runs that differ
    (two identical runs are one observation, whose point verdict stands)."""
    agent = (named.path / "agent.py").read_text(encoding="utf-8")
    varied = agent.replace(
        '"text": "It is sunny in Paris today.",',
        '"text": "It is sunny in Paris today." + (" Really." if next(_WEATHER_CALLS) % 2 else ""),',
    )
    assert varied != agent
    # A counter in the module the runs share, not the call log: runs at once read the same log.
    named.write("agent.py", "import itertools\n_WEATHER_CALLS = itertools.count()\n" + varied)
    return named


def test_an_inconclusive_case_passes_on_its_point_verdict_and_is_counted(varying):
    # Two different runs scoring 1 and 0.92 cannot show a mean of at least 0.8: INCONCLUSIVE.
    named = varying
    result = named.run("-k", "weather", "--agenteval-num-runs", "2")
    result.assert_outcomes(passed=1, deselected=3)
    result.stdout.fnmatch_lines(
        ["agenteval: 1 case(s) INCONCLUSIVE (passed on their point verdict)*weather*"]
    )


def test_two_identical_runs_are_one_observation_and_pass(named):
    result = named.run("-k", "weather", "--agenteval-num-runs", "2", "--agenteval-fail-on-inconclusive")
    result.assert_outcomes(passed=1, deselected=3)
    assert "INCONCLUSIVE" not in result.stdout.str()


def test_fail_on_inconclusive_fails_it_with_the_interval(varying):
    named = varying
    result = named.run("-k", "weather", "--agenteval-num-runs", "2", "--agenteval-fail-on-inconclusive")
    result.assert_outcomes(failed=1, deselected=3)
    result.stdout.fnmatch_lines(
        [
            "INCONCLUSIVE: 1 of 2 criteria pass on the mean, but their interval contains the threshold: "
            "response_match_score",
            "  response_match_score: score *, threshold 0.8, PASSED, tri-state INCONCLUSIVE",
            "    95% interval * contains the threshold 0.80, so 2 runs cannot yet tell *",
            "*agenteval: 1 case(s) INCONCLUSIVE (failed)*",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_single_run_is_never_inconclusive(named):
    result = named.run("-k", "weather", "--agenteval-fail-on-inconclusive")
    result.assert_outcomes(passed=1, deselected=3)
    assert "INCONCLUSIVE" not in result.stdout.str()
