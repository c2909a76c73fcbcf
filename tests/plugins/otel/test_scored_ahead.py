"""A run of traces scored ahead (the engine's helper on the second core, ``agenteval._run._ahead``):
the helper builds the turns of the units it scores and the run does not build them again; the
run folder and the report are the bytes one process writes."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest
from agenteval._run import _ahead
from agenteval.cli import main
from agenteval.models import EvalSet
from agenteval_otel import _packed
from click.testing import CliRunner

from tests.fixtures.scoring_ahead import watch_helpers
from tests.plugins.otel.test_many_traces import write_many

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork") or sys.platform == "darwin", reason="the helper is a forked process"
)

#: this test process, the run's driver: the helper is another
DRIVER = os.getpid()
FILES = ("results.jsonl", "index.jsonl", "scores.jsonl", "set_summaries.jsonl", "summary.json")
CRITERIA = "tool_call_count_v1,inference_call_count_v1,token_usage_v1,invocation_duration_v1"


def test_traces_scored_ahead_are_built_by_the_helper_and_written_as_one_process_writes(tmp_path, monkeypatch):
    monkeypatch.setattr(time, "perf_counter", lambda: 0.0)  # every scoring duration 0
    for holder in ("agenteval.runs._folder", "agenteval.runs", "agenteval._run._session"):
        monkeypatch.setattr(f"{holder}.new_run_id", lambda: "pinned", raising=False)
    helpers = watch_helpers(monkeypatch, 10)
    built: list[str] = []
    build = _packed.PackedInvocation.build

    def counted(self: _packed.PackedInvocation):
        if os.getpid() == DRIVER:
            built.append(self.invocation_id)
        return build(self)

    monkeypatch.setattr(_packed.PackedInvocation, "build", counted)
    traces = tmp_path / "traces"
    traces.mkdir()
    path, cases, _ = write_many(traces)
    eval_file = tmp_path / "many.evalset.json"
    eval_file.write_text(EvalSet(eval_set_id="many", eval_cases=cases).model_dump_json(), encoding="utf-8")

    def run(name: str) -> Path:
        args = ["run", str(eval_file), "--actual", str(path), "--criteria", CRITERIA, "--format", "json"]
        args += ["--output", str(tmp_path / f"{name}.json"), "--runs-dir", str(tmp_path / name)]
        done = CliRunner().invoke(main, args)
        assert done.exit_code == 1, done.output  # the traces that lack tool arguments: NOT_EVALUATED
        return tmp_path / name / "pinned"

    ahead = run("ahead")
    [(_, helper)] = helpers
    units = helper.units_ahead
    assert 0 < units < len(cases)
    built_ahead = len(built)
    monkeypatch.setattr(_ahead, "can_fork", lambda: False)
    alone = run("alone")
    assert len(helpers) == 1
    # alone, the driver built every turn once; scored ahead, not the turns of the helper's units
    assert len(built) - built_ahead > built_ahead
    for name in FILES:
        assert (ahead / name).read_bytes() == (alone / name).read_bytes(), name
    report = json.loads((tmp_path / "ahead.json").read_text(encoding="utf-8"))
    assert report == json.loads((tmp_path / "alone.json").read_text(encoding="utf-8"))
