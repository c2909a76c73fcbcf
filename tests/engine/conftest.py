"""Fixtures of the engine's tests."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import agenteval
import pytest
from agenteval.models import EvalSet
from agenteval.runs import RecordedRun, list_runs
from agenteval.testing import make_case, make_invocation


@pytest.fixture
def interrupted_run() -> Callable[..., RecordedRun]:
    """Makes a recorded run of one run per case in ``runs``: ``n`` cases scored by
    ``tool_trajectory_avg_score`` (every third case's tool call right) and
    ``response_match_score`` (every fourth case's reply right), and one more planned case,
    ``never_recorded``, that the run was interrupted before."""

    def make(runs: Path, n: int = 30) -> RecordedRun:
        expected = EvalSet(
            eval_set_id="shop",
            eval_cases=[
                make_case(
                    [make_invocation(f"q{i}", f"answer {i}", [("find", {"i": i})])], eval_id=f"c{i:02d}"
                )
                for i in range(n)
            ],
        )
        actual = EvalSet(
            eval_set_id="shop",
            eval_cases=[
                make_case(
                    [
                        make_invocation(
                            f"q{i}",
                            "other" if i % 4 else f"answer {i}",
                            [("find", {"i": i % 3})],
                            form="events",
                        )
                    ],
                    eval_id=f"c{i:02d}",
                )
                for i in range(n)
            ],
        )
        criteria = {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.5}
        agenteval.evaluate(expected, actual, criteria, runs_dir=runs)
        [run] = list_runs(runs)
        manifest = run.folder / "manifest.json"
        document = json.loads(manifest.read_text(encoding="utf-8"))
        document["eval_sets"][0]["case_ids"].insert(3, "never_recorded")
        document["state"] = "interrupted"
        manifest.write_text(json.dumps(document), encoding="utf-8")
        return RecordedRun.open(run.folder)

    return make
