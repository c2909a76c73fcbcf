"""``reporting/_cases.py``: what a report reads of each case of a run folder. ``case_results``
reads each record only as far as the case's result needs it, and gives the same results as
``case_views`` reading whole records."""

from __future__ import annotations

from pathlib import Path

import pytest
from agenteval._reporting._cases import case_results, case_views
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
