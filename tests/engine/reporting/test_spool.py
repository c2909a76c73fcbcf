"""``reporting/_spool.py``: ``agenteval run --format json`` writes the cases the run rendered as
it finished them, and the document is byte for byte the one rendered from the run folder
(the way every report was written before): on the example sets, several runs per case, a
generated benchmark set, and with a credential scrubbed from the records."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest
from agenteval._reporting import CaseSpool, write_json
from agenteval._results import CaseResult, Status
from agenteval._terminal import json_visible
from agenteval.cli import main
from agenteval.runs import RecordedRun, RunState, list_runs
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[3]
TRAVEL = ROOT / "examples" / "travel"
sys.path.insert(0, str(ROOT / "benchmarks"))

import scale  # noqa: E402  (the benchmark's seeded data)


def _run_json(tmp_path: Path, *args: str, exit_codes: tuple[int, ...] = (0, 1)) -> tuple[str, RecordedRun]:
    runs, output = tmp_path / "runs", tmp_path / "result.json"
    result = CliRunner().invoke(
        main, ["run", *args, "--format", "json", "--output", str(output), "--runs-dir", str(runs), "--quiet"]
    )
    assert result.exit_code in exit_codes, result.output
    [run] = list_runs(runs)
    return output.read_text(encoding="utf-8"), run


def _from_folder(run: RecordedRun) -> str:
    """The document as it was rendered before: every case read back from the records."""
    out = io.StringIO()
    write_json(run, out, summary=run.result_summary(), transform=json_visible)
    return out.getvalue()


def _generated(tmp_path: Path, cases: int) -> list[str]:
    manifest = scale.make_data(tmp_path / "data", cases, per_file=cases // 2)
    actual = [arg for pair in manifest["pairs"] for arg in ("--actual", pair["actual"])]
    return [str(tmp_path / "data" / "expected"), *actual]


@pytest.mark.parametrize(
    "args",
    [
        [str(TRAVEL / "travel.evalset.json"), "--actual", str(TRAVEL / "travel.actual.json")],
        [
            str(TRAVEL / "travel.evalset.json"),
            f"{TRAVEL / 'travel.evalset.json'}:hotel_tokyo_ja",
            "--actual",
            str(TRAVEL / "travel.actual.json"),
        ],
        [
            str(TRAVEL / "travel.evalset.json"),
            *("--actual", str(TRAVEL / "travel.actual.json")) * 3,
        ],
    ],
    ids=["travel", "two sets", "three runs"],
)
def test_the_report_is_the_one_rendered_from_the_folder(tmp_path, args):
    written, run = _run_json(tmp_path, *args)
    assert written == _from_folder(run)


def test_a_generated_set_gives_the_same_bytes(tmp_path):
    written, run = _run_json(tmp_path, *_generated(tmp_path, 120))
    assert written == _from_folder(run)
    assert written.count('"eval_id": "case_') == 120


def test_a_scrubbed_credential_stays_scrubbed(tmp_path, monkeypatch):
    # A word of the agent's recorded answers, taken for a credential: hidden in both.
    monkeypatch.setenv("TRAVEL_API_KEY", "Paris")
    written, run = _run_json(
        tmp_path, str(TRAVEL / "travel.evalset.json"), "--actual", str(TRAVEL / "travel.actual.json")
    )
    assert "Paris" not in written
    assert written == _from_folder(run)


def _refused(*args, **kwargs):
    raise AssertionError("a record was read back for the report")


def test_the_report_reads_no_record_back(tmp_path, monkeypatch):
    monkeypatch.setattr(RecordedRun, "case_records", _refused)
    written, _ = _run_json(tmp_path, *_generated(tmp_path, 40))
    assert written.count('"eval_id": "case_') == 40


def _case(case_id: str) -> CaseResult:
    return CaseResult(eval_id=case_id, status=Status.PASSED, criteria=[])


def test_a_spool_missing_a_case_does_not_cover_the_run(tmp_path):
    _, run = _run_json(
        tmp_path,
        f"{TRAVEL / 'travel.evalset.json'}:weather_paris",
        "--actual",
        str(TRAVEL / "travel.actual.json"),
    )
    spool = CaseSpool(folder=run.folder)
    assert not spool.covers(run.manifest)
    spool.add(0, "weather_paris", _case("weather_paris"))
    assert spool.covers(run.manifest)
    spool.prepare_reading()
    assert '"eval_id": "weather_paris"' in spool.text(0, "weather_paris")
    assert spool._file is not None  # on the run folder's disk
    assert os.fstat(spool._file.fileno()).st_dev == run.folder.stat().st_dev
    spool.discard()
    assert not [p for p in run.folder.iterdir() if p.name.startswith(".report-cases-")]  # nothing left


def test_a_case_the_fast_encoder_refuses_makes_the_spool_unusable(tmp_path):
    spool = CaseSpool()
    spool.add(0, "a", _case("a"))
    spool.add(0, "b", _case("b\ud800"))  # a lone surrogate
    assert not spool.usable
    spool.add(0, "c", _case("c"))
    assert not spool.usable
    _, run = _run_json(tmp_path, *_generated(tmp_path, 4))
    assert not spool.covers(run.manifest)


AGENT = """
import time
def respond(message, history):
    time.sleep(0.05)
    return "ok " + message
"""


def test_an_interrupted_run_and_its_resume_give_the_folder_s_bytes(tmp_path, monkeypatch):
    """Stopped by ``--timeout``, the run has unfinished cases: the run keeps them as well
    (the cases never started rendered once), so the document reads no record back. Resumed,
    the cases finished before come from their records, the rest from the agent: every case
    is kept as it finishes, and the bytes are still the folder's."""
    cases = [
        {
            "eval_id": f"case_{i:02d}",
            "conversation": [
                {
                    "invocation_id": f"i{i}",
                    "user_content": {"role": "user", "parts": [{"text": f"q{i}"}]},
                    "final_response": {"role": "model", "parts": [{"text": f"ok q{i}" if i % 3 else "no"}]},
                }
            ],
        }
        for i in range(30)
    ]
    eval_file = tmp_path / "slow.evalset.json"
    eval_file.write_text(json.dumps({"eval_set_id": "slow", "eval_cases": cases}), encoding="utf-8")
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    common = [str(eval_file), "--agent", f"{tmp_path / 'agent.py'}:respond", "--agent-concurrency", "2"]
    common += ["--criteria", "response_match_score"]
    with monkeypatch.context() as patched:  # unfinished cases too: the run kept them all
        patched.setattr(RecordedRun, "case_records", _refused)
        written, run = _run_json(tmp_path, *common, "--timeout", "0.4", exit_codes=(124,))
    assert run.manifest.state is RunState.INTERRUPTED and 0 < len(run.keys()) < 30
    assert written == _from_folder(run)
    with monkeypatch.context() as patched:  # the resumed run's document reads no record back
        patched.setattr(RecordedRun, "case_records", _refused)
        written, run = _run_json(tmp_path, *common, "--resume", run.run_id)
    assert run.manifest.state is RunState.COMPLETE and len(run.keys()) == 30
    assert written == _from_folder(run)


def test_copies_of_an_unstarted_case_are_rendered_as_each_copy_would_be():
    case = CaseResult(
        eval_id="first",
        status=Status.NOT_EVALUATED,
        criteria=[],
    )
    ids = ["first", "second", "caf\u00e9", 'with "quotes"', "back\\slash", "first"]
    one_by_one, at_once = CaseSpool(), CaseSpool()
    for case_id in ids:
        one_by_one.add(0, case_id, case.model_copy(update={"eval_id": case_id}))
    at_once.add_copies(0, case, ids)
    one_by_one.prepare_reading()
    at_once.prepare_reading()
    try:
        assert [at_once.text(0, c) for c in ids] == [one_by_one.text(0, c) for c in ids]
    finally:
        one_by_one.discard()
        at_once.discard()


def test_copies_take_no_room_on_disk_and_are_scrubbed_as_a_whole(tmp_path):
    """An interruption leaves most cases unstarted: their text is kept once with each id,
    not written out copy by copy, and the scrub still sees each copy's whole text."""
    case = CaseResult(eval_id="first", status=Status.NOT_EVALUATED, criteria=[])
    ids = [f"copy_{i}" for i in range(1000)] + ["secret_7"]

    def scrub(text: str) -> str:
        return text.replace('"secret_7"', '"***"').replace("NOT_EVALUATED", "NOT_EVALUATED!")

    one_by_one = CaseSpool(scrub=scrub, folder=tmp_path)
    at_once = CaseSpool(scrub=scrub, folder=tmp_path)
    for case_id in ids:
        one_by_one.add(0, case_id, case.model_copy(update={"eval_id": case_id}))
    at_once.add_copies(0, case, ids)
    assert at_once._file is None  # nothing written
    one_by_one.prepare_reading()
    at_once.prepare_reading()
    try:
        assert [at_once.text(0, c) for c in ids] == [one_by_one.text(0, c) for c in ids]
        assert '"***"' in at_once.text(0, "secret_7")
        at_once.add(0, "copy_3", _case("copy_3"))  # a later result replaces the copy
        at_once.prepare_reading()
        assert '"PASSED"' in at_once.text(0, "copy_3")
        assert '"NOT_EVALUATED!"' in at_once.text(0, "copy_4")
    finally:
        one_by_one.discard()
        at_once.discard()


def test_an_interrupted_recorded_run_keeps_its_unstarted_cases_in_the_spool(tmp_path):
    """Ctrl-C in a large recorded run: the cases never started are rendered once and kept,
    so the report covers every case without reading the records back, byte for byte."""
    import asyncio

    from agenteval import Evaluator, EvaluatorInfo, Score
    from agenteval._api import run_sync
    from agenteval._run import plan_eval_sets
    from agenteval._run._session import open_run
    from agenteval.models import EvalSet
    from agenteval.testing import make_case, make_invocation, registry_for

    seen: list[str] = []

    class Counting(Evaluator):
        info = EvaluatorInfo(description="Counts.")

        def evaluate(self, ctx):
            seen.append(ctx.case.eval_id)
            if len(seen) == 40:
                asyncio.get_running_loop().call_soon(run.interrupt, "SIGINT")
            return Score(value=1.0 if len(seen) % 3 else 0.0)

    eval_set = EvalSet(
        eval_set_id="s",
        eval_cases=[make_case([make_invocation(f"q{i}", "a")], eval_id=f"c{i:03d}") for i in range(300)],
    )
    plan = plan_eval_sets(
        [eval_set], eval_set, {"counting": 0.5}, registry=registry_for(counting=Counting), judge=None
    )
    run = open_run(plan, runs_dir=tmp_path, argv=["test"], keep_results=False)
    assert run.writer is not None
    spool = CaseSpool(scrub=run.writer.scrub, folder=run.writer.folder)
    run.case_sink = spool
    result = run_sync(run.execute())
    recorded = RecordedRun.open(run.writer.folder)
    assert result.interrupted and 0 < len(recorded.keys()) < 300
    assert spool.covers(recorded.manifest)
    out = io.StringIO()
    try:
        write_json(recorded, out, summary=result.summary, transform=json_visible, spool=spool)
    finally:
        spool.discard()
    assert out.getvalue() == _from_folder(recorded)


def test_a_kept_case_costs_little_memory(tmp_path):
    """The spool keeps each case's place for the whole run (100k cases at 100k): a slot
    number by case id under its eval set, and the slots' starts in one array; no tuple of
    key and place per case."""
    import tracemalloc

    ids = [f"case_{i:06d}" for i in range(20_000)]
    case = _case("x")
    spool = CaseSpool(folder=tmp_path)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for case_id in ids:
            spool.add(3, case_id, case)
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    try:
        spool.prepare_reading()
        assert spool.text(3, ids[-1]) == spool.text(3, ids[0])  # the same case, the same text
        assert kept / len(ids) < 120  # bytes a case
    finally:
        spool.discard()
