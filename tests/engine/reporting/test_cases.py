"""``reporting/_cases.py``: what a report reads of each case of a run folder. ``case_results``
reads each record only as far as the case's result needs it, and gives the same results as
``case_views`` reading whole records; ``case_outcome`` reads a case as far as its status and
criteria."""

from __future__ import annotations

from pathlib import Path

import pytest
from agenteval._reporting._cases import case_outcome, case_results, case_views
from agenteval.cli import main
from agenteval.runs import list_runs
from click.testing import CliRunner

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "travel"


def _run(tmp_path: Path, *args: str):
    runs = tmp_path / "runs"
    argv = ["run", str(EXAMPLE / "travel.evalset.json"), *args, "--runs-dir", str(runs)]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code in (0, 1), result.output
    [run] = list_runs(runs)
    return run


@pytest.mark.parametrize(
    "args",
    [
        ["--actual", str(EXAMPLE / "travel.actual.json")],
        ["--agent", str(EXAMPLE)],
        ["--agent", str(EXAMPLE), "--num-runs", "3"],
        ["--actual", str(EXAMPLE / "travel.actual.json"), "--actual", str(EXAMPLE / "travel.actual.json")],
    ],
    ids=["recorded", "agent", "agent, 3 runs", "recorded, 2 runs"],
)
def test_each_case_s_result_is_the_one_its_whole_records_give(tmp_path, args):
    run = _run(tmp_path, *args)
    whole = [view.case for view in case_views(run)]
    assert whole
    assert list(case_results(run)) == whole
    if "--agent" in args:  # an agent's runs are kept in its result: read in full for it
        assert all(case.agent_runs for case in whole)
    else:
        assert not any(case.agent_runs for case in whole)


@pytest.mark.parametrize(
    "args",
    [
        ["--actual", str(EXAMPLE / "travel.actual.json")],
        ["--agent", str(EXAMPLE)],
        ["--agent", str(EXAMPLE), "--num-runs", "3"],
    ],
    ids=["recorded", "agent", "agent, 3 runs"],
)
def test_a_case_s_outcome_has_the_status_and_criteria_of_its_whole_records(tmp_path, args):
    run = _run(tmp_path, *args)
    entry = run.manifest.eval_sets[0]
    for whole in case_views(run):
        outcome = case_outcome(run, entry, whole.case.eval_id, pending=False)
        assert (outcome.set_index, outcome.eval_set_id, outcome.source) == (
            0,
            whole.eval_set_id,
            whole.source,
        )
        assert outcome.case.status == whole.case.status and outcome.case.criteria == whole.case.criteria
        assert outcome.actual == () and outcome.expected is None
        if args[-1] == "3":  # an agent's several runs: read with their turns, which decide identical outputs
            assert outcome.case == whole.case and outcome.case.agent_runs
        else:  # no turn read
            assert outcome.case == whole.case.model_copy(update={"agent_runs": []})
