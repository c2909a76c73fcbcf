"""``reporting/_files.py``: the engine's own reporters (json, jsonl, table), installed as
entry points of agenteval-engine and run over a recorded run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agenteval._reporting import render_json, resolve_reporters, write_reports
from agenteval.cli import main
from agenteval.runs import list_runs
from click.testing import CliRunner

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "travel"


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    runs = tmp_path_factory.mktemp("runs")
    args = ["run", str(EXAMPLE), "--actual", str(EXAMPLE / "travel.actual.json"), "--runs-dir", str(runs)]
    args += ["--report", "json,jsonl,table"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    [run] = list_runs(runs)
    return run, run.folder / "reports"


def _no_duplicate_keys(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), keys
    return dict(pairs)


def test_the_three_are_installed_from_the_engine():
    loaded = resolve_reporters(["json", "jsonl", "table"])
    assert [klass.__module__ for klass in loaded.values()] == ["agenteval._reporting._files"] * 3
    assert all(klass.description for klass in loaded.values())


def test_json_is_the_run_s_document(reports):
    run, folder = reports
    assert (folder / "report.json").read_text(encoding="utf-8") == render_json(run.result())


def test_jsonl_is_one_flat_line_per_case_in_run_order(reports):
    run, folder = reports
    lines = (folder / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line, object_pairs_hook=_no_duplicate_keys) for line in lines]
    assert [r["case_id"] for r in rows] == ["weather_paris", "flight_then_currency", "hotel_tokyo_ja"]
    first = rows[1]
    assert list(first)[:11] == [
        "schema",
        "run_id",
        "eval_set_index",
        "eval_set_id",
        "eval_set_file",
        "case_id",
        "status",
        "reason",
        "reason_code",
        "scores",
        "statuses",
    ]
    assert first["schema"] == "agenteval.case/1" and first["run_id"] == run.run_id
    assert first["status"] == "FAILED" and first["statuses"]["tool_trajectory_avg_score"] == "FAILED"
    assert first["reason_code"] is None or isinstance(first["reason_code"], str)
    assert first["scores"]["tool_trajectory_avg_score"] == 0.5
    assert [c["criterion"] for c in first["criteria"]][:2] == [
        "tool_trajectory_avg_score",
        "response_match_score",
    ]
    document = json.loads(render_json(run.result()))["eval_sets"][0]["cases"][1]
    assert first["criteria"] == document["criteria"]


def test_table_lists_every_case_without_colour_codes(reports):
    _, folder = reports
    text = (folder / "report.txt").read_text(encoding="utf-8")
    assert "\x1b[" not in text
    for case_id in ("weather_paris", "flight_then_currency", "hotel_tokyo_ja"):
        assert case_id in text
    assert all(len(line) <= 100 for line in text.splitlines())


def test_hostile_text_in_a_case_id_stays_data_in_every_format(tmp_path):
    from agenteval.models import EvalSet
    from agenteval.testing import make_case, make_invocation

    hostile = 'x"\u202e<script>\u2028'  # no control character: an id holding one is refused at load
    eval_set = EvalSet(eval_set_id="s", eval_cases=[make_case([make_invocation("q", "a")], eval_id=hostile)])
    path = tmp_path / "s.evalset.json"
    path.write_text(eval_set.model_dump_json(), encoding="utf-8")
    runs = tmp_path / "runs"
    args = ["run", str(path), "--actual", str(path), "--runs-dir", str(runs)]
    args += ["--criteria", "tool_call_count_v1"]
    assert CliRunner().invoke(main, args).exit_code == 0
    [run] = list_runs(runs)
    written = write_reports(resolve_reporters(["json", "jsonl", "table"]), run, tmp_path / "out")
    [line] = written["jsonl"][0].read_text(encoding="utf-8").split("\n")[:-1]  # U+2028 is no line end
    assert json.loads(line)["case_id"] == hostile
    document = json.loads(written["json"][0].read_text(encoding="utf-8"))
    assert document["eval_sets"][0]["cases"][0]["eval_id"] == hostile
    assert "\u202e" not in written["table"][0].read_text(encoding="utf-8")


def test_the_reporters_of_one_report_share_one_summary(reports, tmp_path, monkeypatch):
    run, _ = reports
    calls = []
    original = type(run).result_summary

    def counted(self):
        calls.append(self.run_id)
        return original(self)

    monkeypatch.setattr(type(run), "result_summary", counted)
    write_reports(resolve_reporters(["json", "table"]), run, tmp_path / "again")
    assert calls == [run.run_id]
    assert (tmp_path / "again" / "report.json").read_text(encoding="utf-8") == render_json(run.result())


def test_a_jsonl_line_shows_a_lone_surrogate_in_a_reason_as_its_escape():
    """Untrusted text that UTF-8 cannot hold (a lone surrogate in a reason) stays data: the
    line is still written, the character shown as its escape, as in every other report."""
    from agenteval import CaseResult, CriterionResult, PluginInfo, Status
    from agenteval._reporting._cases import CaseView
    from agenteval._reporting._files import case_line

    result = CriterionResult(
        criterion="c",
        threshold=0.5,
        score=0.0,
        status=Status.FAILED,
        reason="got \ud800 back",
        plugin=PluginInfo(distribution="d", version="1", entry_point="m:C"),
    )
    case = CaseResult(eval_id="a", status=Status.FAILED, criteria=[result])
    line = case_line("r", CaseView(set_index=0, eval_set_id="s", source=None, case=case))
    flat = json.loads(line.encode("utf-8"))
    assert flat["reason"] == "got \\ud800 back" and flat["case_id"] == "a" and flat["scores"] == {"c": 0.0}
