"""``agenteval runs`` and the run folder seen from the command line: list, show, rm, a run
folder as ``--actual``, ``--no-record``, outputs checked before any work."""

from __future__ import annotations

import json
import os

from agenteval.cli import main
from agenteval.runs import RunState, list_runs

CRASHY_AGENT = """
def respond(message, history):
    if "Tokyo" in message or "東京" in message:
        raise RuntimeError("the hotel tool is down")
    import importlib.util, pathlib
    beside = pathlib.Path(__file__).with_name("travel_agent.py")
    spec = importlib.util.spec_from_file_location("travel", beside)
    travel = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(travel)
    return travel.respond(message, history)
"""


def test_a_run_is_recorded_with_its_inputs_and_shown_again(runner, example, tmp_path):
    runs = tmp_path / "runs"
    first = runner.invoke(main, ["run", str(example), "--agent", str(example), "--runs-dir", str(runs)])
    assert first.exit_code == 0, first.output
    [run] = list_runs(runs)
    manifest = run.manifest
    assert manifest.state is RunState.COMPLETE and manifest.exit_code == 0
    assert manifest.num_runs == 1 and manifest.agent["target"] == str(example)
    [eval_set] = manifest.eval_sets
    assert eval_set.eval_set_id == "travel_assistant" and len(eval_set.sha256) == 64
    assert eval_set.case_ids == ["weather_paris", "flight_then_currency", "hotel_tokyo_ja"]
    assert {c.name for c in eval_set.criteria} >= {"tool_trajectory_avg_score", "response_match_score"}
    assert all(c.version and c.distribution == "agenteval-builtin" for c in eval_set.criteria)
    assert manifest.distributions["agenteval-engine"]
    records = list(run.records())
    assert [(r.case_id, r.run_index, r.origin) for r in records] == [
        ("weather_paris", 1, "agent"),
        ("flight_then_currency", 1, "agent"),
        ("hotel_tokyo_ja", 1, "agent"),
    ] or sorted(r.case_id for r in records) == sorted(eval_set.case_ids)
    assert all(r.expected and r.actual.invocations for r in records)
    assert f"recorded in {run.folder}" in first.stderr

    listed = runner.invoke(main, ["runs", "list", "--runs-dir", str(runs)])
    assert listed.exit_code == 0 and run.run_id in listed.stdout and "complete" in listed.stdout
    shown = runner.invoke(
        main, ["runs", "show", run.run_id[:12], "--runs-dir", str(runs), "--format", "json"]
    )
    assert shown.exit_code == 0, shown.output
    original = runner.invoke(
        main, ["run", str(example), "--agent", str(example), "--no-record", "--format", "json"]
    )
    strip = lambda doc: [  # noqa: E731
        (c["eval_id"], [(r["criterion"], r["score"], r["status"]) for r in c["criteria"]])
        for c in doc["eval_sets"][0]["cases"]
    ]
    assert strip(json.loads(shown.stdout)) == strip(json.loads(original.stdout))
    table = runner.invoke(main, ["runs", "show", "--runs-dir", str(runs)])
    assert "3 cases: 3 passed" in table.stdout

    removed = runner.invoke(main, ["runs", "rm", run.run_id, "--runs-dir", str(runs)])
    assert removed.exit_code == 0 and list_runs(runs) == []
    missing = runner.invoke(main, ["runs", "show", "nope", "--runs-dir", str(runs)])
    assert missing.exit_code == 2 and "no run 'nope'" in missing.stderr


def test_no_record_writes_nothing(runner, example, tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTEVAL_RUNS_DIR", str(tmp_path / "runs"))
    result = runner.invoke(main, ["run", str(example), "--agent", str(example), "--no-record"])
    assert result.exit_code == 0 and not (tmp_path / "runs").exists()
    assert "recorded in" not in result.stderr


def test_no_record_reads_its_report_from_a_temporary_folder_removed_at_exit(example, tmp_path):
    import subprocess
    import sys

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    args = ["run", str(example), "--actual", str(example / "travel.actual.json"), "--no-record"]
    done = subprocess.run(
        [sys.executable, "-m", "agenteval", *args], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 1, done.stderr
    assert "flight_then_currency" in done.stdout and "recorded in" not in done.stderr
    assert list(scratch.iterdir()) == []


def test_the_environment_variable_moves_the_runs_folder(runner, example, tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTEVAL_RUNS_DIR", str(tmp_path / "elsewhere"))
    result = runner.invoke(main, ["run", str(example), "--agent", str(example)])
    assert result.exit_code == 0 and len(list_runs(tmp_path / "elsewhere")) == 1


def test_a_recorded_run_re_scores_with_other_criteria_as_actual(runner, example, tmp_path):
    runs = tmp_path / "runs"
    runner.invoke(main, ["run", str(example), "--agent", str(example), "--runs-dir", str(runs)])
    [run] = list_runs(runs)
    again = runner.invoke(
        main,
        [
            "run",
            str(example),
            "--actual",
            str(run.folder),
            "--criteria",
            "trajectory_recall",
            "--format",
            "json",
        ],
    )
    assert again.exit_code == 0, again.output
    doc = json.loads(again.stdout)
    assert [[r["criterion"] for r in c["criteria"]] for c in doc["eval_sets"][0]["cases"]] == [
        ["trajectory_recall"]
    ] * 3


def test_saved_turns_keep_errored_cases_so_every_case_re_scores(runner, example, tmp_path):
    agent = tmp_path / "agent.py"
    agent.write_text(CRASHY_AGENT, encoding="utf-8")
    (tmp_path / "travel_agent.py").write_text(
        (example / "agent.py").read_text(encoding="utf-8"), encoding="utf-8"
    )
    saved = tmp_path / "actual.json"
    first = runner.invoke(
        main,
        ["run", str(example), "--agent", f"{agent}:respond", "--save-actual", str(saved), "--format", "json"],
    )
    assert first.exit_code == 1
    assert "wrote the actual invocations of 3 case(s)" in first.stderr
    again = runner.invoke(main, ["run", str(example), "--actual", str(saved), "--format", "json"])
    assert again.exit_code == 1, again.output  # not 2: every case is there
    cases = {c["eval_id"]: c for c in json.loads(again.stdout)["eval_sets"][0]["cases"]}
    tokyo = cases["hotel_tokyo_ja"]
    assert tokyo["status"] == "ERRORED"
    assert tokyo["criteria"][0]["reason_code"] == "agent_error"
    assert "the hotel tool is down" in tokyo["criteria"][0]["reason"]
    assert cases["weather_paris"]["status"] == "PASSED"


def test_outputs_that_cannot_be_written_stop_the_run_before_any_work(runner, example, tmp_path):
    calls = tmp_path / "calls.txt"
    agent = tmp_path / "agent.py"
    agent.write_text(
        f"def respond(message, history):\n    open({str(calls)!r}, 'a').write('x')\n    return 'hi'\n",
        encoding="utf-8",
    )
    for option in ("--output", "--save-actual"):
        result = runner.invoke(
            main,
            [
                "run",
                str(example),
                "--agent",
                f"{agent}:respond",
                option,
                str(tmp_path / "nowhere" / "x.json"),
            ],
        )
        assert result.exit_code == 2, result.output
        assert "does not exist" in result.stderr
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = runner.invoke(
        main, ["run", str(example), "--agent", f"{agent}:respond", "--runs-dir", str(blocker / "runs")]
    )
    assert result.exit_code == 2 and "--no-record" in result.stderr
    assert not calls.exists()


def test_resume_without_a_record_or_a_run_is_a_usage_error(runner, example, tmp_path):
    result = runner.invoke(main, ["run", str(example), "--agent", str(example), "--no-record", "--resume"])
    assert result.exit_code == 2 and "--no-record" in result.stderr
    result = runner.invoke(
        main, ["run", str(example), "--agent", str(example), "--runs-dir", str(tmp_path), "--resume"]
    )
    assert result.exit_code == 2 and "no interrupted run to resume" in result.stderr


def test_a_resumed_run_whose_records_were_damaged_recovers_every_complete_line(runner, example, tmp_path):
    runs = tmp_path / "runs"
    runner.invoke(main, ["run", str(example), "--agent", str(example), "--runs-dir", str(runs)])
    [run] = list_runs(runs)
    manifest = json.loads((run.folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["state"] = "interrupted"
    (run.folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    results = run.folder / "results.jsonl"
    lines = results.read_text(encoding="utf-8").splitlines(keepends=True)
    results.write_text(lines[0] + lines[1][:50], encoding="utf-8")  # one whole line, one cut
    resumed = runner.invoke(
        main, ["run", str(example), "--agent", str(example), "--runs-dir", str(runs), "--resume"]
    )
    assert resumed.exit_code == 0, resumed.output
    [run] = list_runs(runs)
    assert run.manifest.state is RunState.COMPLETE and len(run.keys()) == 3 and run.damaged_lines == 0
    (run.folder / "manifest.json").unlink()
    broken = runner.invoke(main, ["runs", "show", str(run.folder)])
    assert broken.exit_code == 2 and "not an agenteval run folder" in broken.stderr


def _interrupted(run) -> None:
    manifest = json.loads((run.folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["state"] = "interrupted"
    (run.folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def test_a_run_whose_records_were_lost_reads_back_as_the_resumed_run_scored_it(runner, example, tmp_path):
    """A run's ``results.jsonl`` is lost and the run resumed, with the agent down this time:
    every case re-runs and errors, and every reader says so (the first run's index lines,
    which say PASSED, are not taken for the new records)."""
    agent = tmp_path / "agent.py"
    agent.write_text(
        CRASHY_AGENT.replace('"Tokyo" in message or "東京" in message', "False"), encoding="utf-8"
    )
    (tmp_path / "travel_agent.py").write_text(
        (example / "agent.py").read_text(encoding="utf-8"), encoding="utf-8"
    )
    runs = tmp_path / "runs"
    command = ["run", str(example), "--agent", f"{agent}:respond", "--runs-dir", str(runs)]
    assert runner.invoke(main, command).exit_code == 0
    [run] = list_runs(runs)
    _interrupted(run)
    (run.folder / "results.jsonl").unlink()
    agent.write_text(
        CRASHY_AGENT.replace('"Tokyo" in message or "東京" in message', "True"), encoding="utf-8"
    )
    resumed = runner.invoke(main, [*command, "--resume", "--format", "json"])
    assert resumed.exit_code == 1, resumed.output
    assert json.loads(resumed.stdout)["summary"]["cases"]["ERRORED"] == 3
    shown = runner.invoke(main, ["runs", "show", str(run.folder), "--format", "json"])
    assert shown.exit_code == 1, shown.output
    document = json.loads(shown.stdout)
    assert document["summary"]["cases"]["ERRORED"] == 3
    assert [c["status"] for c in document["eval_sets"][0]["cases"]] == ["ERRORED"] * 3
    table = runner.invoke(main, ["runs", "show", str(run.folder), "--show", "all"])
    assert table.exit_code == 1 and "PASSED" not in table.output


def test_a_hand_edited_summary_is_not_the_runs_summary(runner, example, tmp_path):
    """``summary.json`` says every case passed where the records say two failed: the reader
    recomputes it from the records, and ``runs show`` says FAILED and exits 1."""
    agent = tmp_path / "agent.py"
    agent.write_text(CRASHY_AGENT, encoding="utf-8")
    (tmp_path / "travel_agent.py").write_text(
        (example / "agent.py").read_text(encoding="utf-8"), encoding="utf-8"
    )
    runs = tmp_path / "runs"
    first = runner.invoke(main, ["run", str(example), "--agent", f"{agent}:respond", "--runs-dir", str(runs)])
    assert first.exit_code == 1
    [run] = list_runs(runs)
    path = run.folder / "summary.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["summary"]["status"] != "PASSED"
    document["summary"]["status"] = "PASSED"
    document["summary"]["cases"] = {"PASSED": 3, "FAILED": 0, "ERRORED": 0}
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    shown = runner.invoke(main, ["runs", "show", str(run.folder), "--format", "json"])
    assert shown.exit_code == 1, shown.output
    summary = json.loads(shown.stdout)["summary"]
    assert summary["status"] != "PASSED" and summary["cases"].get("PASSED", 0) < 3
    listed = runner.invoke(main, ["runs", "list", "--runs-dir", str(runs)])
    assert "3 passed" not in listed.output


PRINTING_AGENT = """
import os, sys

def respond(message, history):
    print("thinking about", message)
    if "Tokyo" in message or "東京" in message:
        os._exit(3)  # kills whatever process runs it
    return "ok"
"""


def test_what_the_agent_prints_is_recorded_and_a_dying_agent_costs_one_case(runner, example, tmp_path):
    agent = tmp_path / "agent.py"
    agent.write_text(PRINTING_AGENT, encoding="utf-8")
    runs = tmp_path / "runs"
    result = runner.invoke(
        main,
        ["run", str(example), "--agent", f"{agent}:respond", "--agent-isolation", "process",
         "--runs-dir", str(runs), "--format", "json"],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)  # the agent's prints never reach stdout
    statuses = {c["eval_id"]: c["status"] for c in doc["eval_sets"][0]["cases"]}
    assert statuses["hotel_tokyo_ja"] == "ERRORED"
    [run] = list_runs(runs)
    records = {r.case_id: r for r in run.records()}
    assert "thinking about" in records["weather_paris"].actual.output
    assert records["hotel_tokyo_ja"].actual.error_code == "agent_crashed"


def test_a_dotenv_that_moves_an_endpoint_while_the_key_comes_from_elsewhere_is_a_warning(
    runner, example, tmp_path, monkeypatch
):
    import shutil

    project = tmp_path / "project"
    shutil.copytree(example, project, ignore=shutil.ignore_patterns(".adk", "__pycache__"))
    (project / ".env").write_text("OPENAI_BASE_URL=http://127.0.0.1:9/v1\n", encoding="utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-from-the-environment")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    result = runner.invoke(main, ["run", str(project), "--agent", str(project), "--no-record"])
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert "OPENAI_BASE_URL" in result.stderr and "OPENAI_API_KEY" in result.stderr
    assert "sk-test-from-the-environment" not in result.output


def test_efficiency_appends_adks_four_informational_criteria(runner, example, tmp_path):
    result = runner.invoke(
        main,
        ["run", str(example), "--agent", str(example), "--efficiency", "--no-record", "--format", "json"],
    )
    assert result.exit_code == 0, result.output
    names = [r["criterion"] for r in json.loads(result.stdout)["eval_sets"][0]["cases"][0]["criteria"]]
    assert names[-3:] == ["inference_call_count_v1", "token_usage_v1", "invocation_duration_v1"]
    assert "tool_call_count_v1" in names


def test_no_stats_leaves_out_the_tri_state_verdicts(runner, example):
    args = ["run", str(example), "--agent", str(example), "--no-record", "--format", "json"]
    with_stats = json.loads(runner.invoke(main, args).stdout)["eval_sets"][0]["cases"][0]["criteria"][0]
    without = json.loads(runner.invoke(main, [*args, "--no-stats"]).stdout)["eval_sets"][0]["cases"][0][
        "criteria"
    ][0]
    assert with_stats["verdict"]["verdict"] == "PASS" and without["verdict"] is None


def test_show_failing_lists_only_the_cases_that_did_not_pass(runner, example):
    args = ["run", str(example), "--actual", str(example / "travel.actual.json"), "--no-record"]
    short = runner.invoke(main, [*args, "--show", "failing"])
    assert short.exit_code == 1
    assert "flight_then_currency" in short.stdout and "weather_paris" not in short.stdout
    assert "2 passing case(s) not listed (--show all lists them)" in short.stdout
    assert "3 cases: 2 passed · 1 failed" in short.stdout
    default = runner.invoke(main, args)  # --show failing is the default
    assert "weather_paris" not in default.stdout and "2 passing case(s) not listed" in default.stdout
    full = runner.invoke(main, [*args, "--show", "all"])
    assert "weather_paris" in full.stdout and "not listed" not in full.stdout


def test_detailed_results_show_what_the_agent_printed(runner, example, tmp_path):
    agent = tmp_path / "agent.py"
    agent.write_text("def respond(message, history):\n    print('looking up', message)\n    return 'ok'\n")
    result = runner.invoke(
        main, ["run", str(example), "--agent", f"{agent}:respond", "--no-record", "--print-detailed-results"]
    )
    assert "agent output:" in result.stdout and "looking up" in result.stdout


def test_the_run_ends_with_its_folder_and_the_commands_that_open_it(runner, example, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = ["run", str(example), "--actual", str(example / "travel.actual.json"), "--runs-dir", "elsewhere"]
    result = runner.invoke(main, args)
    [run] = list_runs(tmp_path / "elsewhere")
    relative = f"elsewhere/{run.run_id}"
    lines = result.stderr.splitlines()
    assert f"agenteval: see it again: agenteval runs show {relative}" in lines
    assert any(line.startswith(f"agenteval: open it: agenteval view {relative}") for line in lines)
    # the commands it names work from here, whatever --runs-dir was
    assert runner.invoke(main, ["runs", "show", relative]).exit_code == 1
