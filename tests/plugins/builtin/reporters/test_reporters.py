"""The built-in reporters over a recorded run with every status: JUnit (parsed back, counts
equal the summary), Markdown and GitHub (bounded, escaped, annotations pinned to lines)."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import agenteval
import pytest
from agenteval._reporting import resolve_reporters
from agenteval.cli import main
from agenteval.models import EvalSet
from agenteval.plugins import ReportContext
from agenteval.runs import RecordedRun
from agenteval.testing import make_case, make_invocation
from agenteval_builtin.reporters.github import COMMENT_CHARS, MARKER, annotation

HOSTILE = "x|y <script>alert(1)</script>\x1b[2J\x07\nnext line"


def _run(tmp_path: Path, failing: int = 1) -> RecordedRun:
    cases, actual = [], []
    for i in range(2 + failing):
        wrong = i >= 2
        cases.append(make_case([make_invocation(f"q{i}", "ok", [("find", {"i": i})])], eval_id=f"case_{i}"))
        actual.append(
            make_case(
                [make_invocation(f"q{i}", HOSTILE if wrong else "ok", [("find", {"i": -1 if wrong else i})])],
                eval_id=f"case_{i}",
            )
        )
    cases.append(make_case(scenario="Book a table", eval_id="scenario"))
    actual.append(make_case([make_invocation("Book a table", "done")], eval_id="scenario"))
    cases.append(make_case([make_invocation("q", "ok")], eval_id="broken"))
    actual.append(
        {
            "eval_id": "broken",
            "conversation": [],
            "agenteval_agent_error": {"code": "agent_timeout", "message": "too slow"},
        }
    )
    expected = EvalSet(eval_set_id="shop", eval_cases=cases)
    path = tmp_path / "shop.evalset.json"
    path.write_text(expected.to_json(), encoding="utf-8")
    actual_path = tmp_path / "actual.json"
    actual_path.write_text(json.dumps({"eval_set_id": "shop", "eval_cases": [
        c if isinstance(c, dict) else json.loads(c.model_dump_json(exclude_unset=True)) for c in actual
    ]}), encoding="utf-8")  # fmt: skip
    result = agenteval.evaluate(
        path, actual_path, {"tool_trajectory_avg_score": 1.0}, runs_dir=tmp_path / "runs"
    )
    return RecordedRun.open(tmp_path / "runs" / result.run_id)


def _write(run: RecordedRun, name: str, **environ):
    stream = io.StringIO()
    context = ReportContext(run=run, folder=run.folder, stream=stream, environ=environ)
    [klass] = resolve_reporters([name]).values()
    return klass().write(context), stream.getvalue()


def test_junit_maps_every_status_and_its_counts_equal_the_summary(tmp_path):
    run = _run(tmp_path)
    [path], _ = _write(run, "junit")
    root = ET.parse(path).getroot()
    [suite] = root.findall("testsuite")
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    summary = run.summary().summary.cases
    assert int(root.get("tests")) == sum(summary.values()) == 5
    assert int(root.get("failures")) == summary[agenteval.Status.FAILED] == 1
    assert cases["case_2"].find("failure").get("type") == "tool_trajectory_avg_score"
    assert cases["broken"].find("error").get("type") == "agent_timeout"
    assert "agent error [agent_timeout]: too slow" in cases["broken"].find("error").text  # read without turns
    assert cases["scenario"].find("skipped") is not None  # not applicable: no expected turns
    assert cases["case_0"].find("*") is None  # passed: empty
    assert cases["case_2"].get("file").endswith("shop.evalset.json") and int(cases["case_2"].get("line")) > 1
    names = [p.get("name") for p in suite.find("properties")]
    assert "agenteval.version" in names and "criterion.tool_trajectory_avg_score.threshold" in names
    text = path.read_text(encoding="utf-8")
    assert "\x1b" not in text and "\x07" not in text and "<script>" not in text
    assert len(cases["case_2"].find("failure").text) <= 2000


def test_markdown_escapes_untrusted_text_and_lists_the_failures(tmp_path):
    run = _run(tmp_path)
    [path], _ = _write(run, "markdown")
    text = path.read_text(encoding="utf-8")
    assert "## agenteval: " in text and "5 case(s)" in text
    assert "**shop/case_2** FAILED" in text and "**shop/broken** ERRORED" in text
    assert "<script>" not in text and "agenteval run " in text


def test_github_annotations_are_bounded_escaped_and_pinned_to_lines(tmp_path):
    run = _run(tmp_path, failing=14)
    summary = tmp_path / "summary.md"
    written, log = _write(run, "github", GITHUB_STEP_SUMMARY=str(summary))
    lines = log.splitlines()
    errors = [line for line in lines if line.startswith("::error ")]
    assert len(errors) == 10 and lines[-1].startswith("::notice::")
    assert all("file=" in line and ",line=" in line and "title=shop/" in line for line in errors)
    comment = run.folder / "pr-comment.md"
    assert comment in written and summary in written
    assert comment.read_text(encoding="utf-8").startswith(MARKER)
    assert "## agenteval" in summary.read_text(encoding="utf-8")


def test_an_annotation_cannot_be_ended_or_split_by_untrusted_text():
    line = annotation("error", "a\nb%c\r::warning::x", file="a,b:c.json", line=3, title="t")
    assert line == "::error file=a%2Cb%3Ac.json,line=3,title=t::a%0Ab%25c%0D::warning::x"
    assert "\n" not in line


def test_the_pr_comment_stays_within_githubs_limit_at_scale(tmp_path):
    from agenteval_builtin.reporters.markdown import render_markdown

    run = _run(tmp_path, failing=300)
    text = MARKER + "\n" + render_markdown(run, limit=COMMENT_CHARS - len(MARKER) - 1)
    assert len(text) <= COMMENT_CHARS and "… and 282 more" in text  # 302 not passed, 20 shown


def test_reports_from_the_cli_and_again_from_the_run_folder(runner, tmp_path):
    example = Path(__file__).resolve().parents[4] / "examples" / "travel"
    runs = tmp_path / "runs"
    result = runner.invoke(
        main,
        ["run", str(example), "--actual", str(example / "travel.actual.json"), "--runs-dir", str(runs),
         "--report", "junit,markdown", "--format", "json"],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    json.loads(result.stdout)  # nothing but the document on stdout
    [run] = list(runs.iterdir())
    assert (run / "reports" / "agenteval.junit.xml").is_file() and (run / "reports" / "report.md").is_file()
    elsewhere = tmp_path / "out"
    again = runner.invoke(
        main,
        [
            "runs",
            "report",
            run.name,
            "--report",
            "github",
            "--report-dir",
            str(elsewhere),
            "--runs-dir",
            str(runs),
        ],
    )
    assert again.exit_code == 0, again.output
    assert (elsewhere / "pr-comment.md").is_file()


def test_an_unknown_reporter_stops_before_any_work(runner, tmp_path):
    example = Path(__file__).resolve().parents[4] / "examples" / "travel"
    result = runner.invoke(
        main, ["run", str(example), "--agent", str(example), "--report", "junti", "--runs-dir", str(tmp_path)]
    )
    assert result.exit_code == 2 and "did you mean 'junit'" in result.stderr
    assert not any(tmp_path.iterdir())


@pytest.fixture
def runner():
    from click.testing import CliRunner

    return CliRunner()


def test_markdown_shows_an_informational_criterion_as_such_not_as_none_passed(tmp_path):
    from agenteval_builtin.reporters.markdown import render_markdown

    example = Path(__file__).resolve().parents[4] / "examples" / "travel"
    result = agenteval.evaluate(
        example / "travel.evalset.json",
        example / "travel.actual.json",
        agenteval.load_config(example / "test_config.json"),
        runs_dir=tmp_path / "runs",
    )
    text = render_markdown(RecordedRun.open(tmp_path / "runs" / result.run_id))
    assert "| `tool_call_count_v1` | 1.333 | informational (not pass/fail) |" in text
    assert "| `tool_trajectory_avg_score` | 0.833 | 2/3 |" in text
