"""``EvalFiles``: eval files kept in memory while they fit a budget, read again (and checked
unchanged) when a dropped one is needed; a run under a zero budget gives the same results
as one that keeps everything, and ``keep_results=False`` returns only the summary."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Optional

import pytest
from agenteval import EvalRun, JudgeService, Registry, Status, _fork, plan_paths
from agenteval._api import run_sync
from agenteval._loading import _eval_files
from agenteval._run import _files
from agenteval._run._files import EvalFiles, measured_cost
from agenteval.errors import DataError
from agenteval.models import EvalSet
from agenteval.testing import make_case, make_invocation
from hypothesis import given
from hypothesis import strategies as st


def _write_set(path: Path, set_id: str, texts: dict[str, str]) -> Path:
    eval_set = EvalSet(
        eval_set_id=set_id,
        eval_cases=[make_case([make_invocation(f"q {i}", text)], eval_id=i) for i, text in texts.items()],
    )
    path.write_text(eval_set.model_dump_json(by_alias=False), encoding="utf-8")
    return path


def _sets(tmp_path: Path, count: int = 3, per_set: int = 4) -> tuple[list[Path], list[Path]]:
    expected, actual = tmp_path / "expected", tmp_path / "actual"
    expected.mkdir(parents=True)
    actual.mkdir(parents=True)
    (expected / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.8}}))
    want, got = [], []
    for n in range(count):
        ids = {f"s{n}c{i}": f"the answer is {n} {i}" for i in range(per_set)}
        answers = {case: (text if i % 2 else "something else") for i, (case, text) in enumerate(ids.items())}
        want.append(_write_set(expected / f"set{n}.evalset.json", f"set{n}", ids))
        got.append(_write_set(actual / f"set{n}.actual.json", f"set{n}", answers))
    return want, got


def test_files_that_fit_the_budget_are_read_once(tmp_path):
    want, _ = _sets(tmp_path)
    files = EvalFiles(budget=10**9)
    for path in want:
        files.read(path)
    assert [files.get(p).eval_set.eval_set_id for p in want] == ["set0", "set1", "set2"]
    assert files.case(want[1], "s1c2").eval_id == "s1c2"
    assert files.case(want[1], "nope") is None
    assert files.rereads == 0


def test_files_over_the_budget_are_read_again_least_recently_used_out(tmp_path):
    want, _ = _sets(tmp_path)
    files = EvalFiles(budget=0)
    loaded = [files.read(path) for path in want]
    assert files.rereads == 0 and [x.sha256 for x in loaded] == [files.sha256(p) for p in want]
    assert files.get(want[0]).eval_set.eval_set_id == "set0"
    assert files.get(want[0]).eval_set.eval_set_id == "set0"  # the one just read stays
    assert files.rereads == 1
    files.get(want[1])
    files.get(want[0])  # dropped when set1 was read: read again
    assert files.rereads == 3


def test_files_no_later_set_uses_are_let_go_and_the_one_needed_last_is_dropped_first(tmp_path):
    want, got = _sets(tmp_path)
    files = EvalFiles(budget=10**9)
    for path in [*want, *got]:
        files.read(path)
    files.schedule({path: [n] for n, path in enumerate(want)} | {path: [n] for n, path in enumerate(got)})
    files.reached(2)  # sets 0 and 1 have started every case
    assert set(files._cases) == {want[2], got[2]}
    files = EvalFiles(budget=0)  # nothing kept: files are read whole again when needed
    for path in want:
        files.read(path)
    files.schedule({path: [n] for n, path in enumerate(want)})
    files.get(want[2])
    files.budget = 2 * files._cost
    files.get(want[1])
    files.get(want[0])  # over budget: set 2's file is needed last, so it goes
    assert set(files._kept) == {want[0], want[1]} and files.rereads == 3


def test_cases_planning_kept_are_handed_to_the_run_without_reading_anything(tmp_path):
    want, _ = _sets(tmp_path)
    files = EvalFiles(budget=10**9)
    seen: list[tuple[int, str]] = []
    header = files.read(want[1], lambda index, case: seen.append((index, case.eval_id)))
    assert header.eval_set.eval_set_id == "set1" and header.eval_set.eval_cases == []
    assert seen == [(n, f"s1c{n}") for n in range(4)]
    whole = _files.read_eval_file(want[1]).eval_set
    assert [files.case(want[1], f"s1c{n}") for n in range(4)] == whole.eval_cases
    assert files.case(want[1], "nope") is None
    assert files.get(want[1]).eval_set == whole
    assert (files.rereads, files.case_reads) == (0, 0)


def test_once_the_run_starts_a_kept_case_is_handed_out_once_and_let_go(tmp_path):
    want, _ = _sets(tmp_path)
    files = EvalFiles(budget=10**9)
    files.read(want[0])
    full = files._cost
    files.start_run()
    first = files.case(want[0], "s0c1")
    assert 0 < files._cost < full and files.case_reads == 0
    assert files.case(want[0], "s0c1") == first and files.case_reads == 1  # read alone again
    assert files.case(want[0], "nope") is None


def test_a_file_over_the_budget_keeps_its_first_cases_and_reads_the_others_alone(tmp_path):
    want, _ = _sets(tmp_path, count=1, per_set=40)
    files = EvalFiles(budget=10**9)
    files.read(want[0])
    files = EvalFiles(budget=want[0].stat().st_size + files._cost // 4)  # about 10 cases
    files.read(want[0])
    kept = len(files._cases[want[0]].by_id)
    assert 5 <= kept <= 15 and list(files._cases[want[0]].by_id) == [f"s0c{n}" for n in range(kept)]
    whole = _files.read_eval_file(want[0]).eval_set.eval_cases
    assert [files.case(want[0], f"s0c{n}") for n in range(40)] == whole
    assert (files.rereads, files.case_reads) == (0, 40 - kept)


def test_a_file_that_changed_since_planning_stops_with_a_clear_error(tmp_path):
    want, _ = _sets(tmp_path)
    files = EvalFiles(budget=0)
    files.read(want[0])
    _write_set(want[0], "set0", {"other": "text"})
    with pytest.raises(DataError, match="changed on disk while the run was going"):
        files.get(want[0])


def test_a_dropped_file_gives_each_case_alone_and_a_changed_case_stops_the_run(tmp_path, monkeypatch):
    from agenteval._loading import _case_spans

    monkeypatch.setattr(_case_spans, "_WINDOW", 1)  # no bytes read ahead: each case from the file now
    want, _ = _sets(tmp_path)
    files = EvalFiles(budget=0)
    files.read(want[0])
    loaded = _files.read_eval_file(want[0])
    assert files.case(want[0], "s0c2") == loaded.eval_set.eval_cases[2]
    assert files.case(want[0], "nope") is None
    assert (files.rereads, files.case_reads) == (0, 1)
    want[0].write_bytes(want[0].read_bytes().replace(b"the answer is 0 3", b"the answer is 0 9"))
    assert files.case(want[0], "s0c2") == loaded.eval_set.eval_cases[2]  # its bytes did not change
    with pytest.raises(DataError, match="changed on disk while the run was going"):
        files.case(want[0], "s0c3")


def test_a_case_read_ahead_before_its_file_changed_is_the_case_planning_checked(tmp_path):
    """A case's bytes read with the window of the case before it are the bytes planning
    checked (their digest says so): the run goes on with them; a case past the window
    is read from the file as it is now."""
    want, _ = _sets(tmp_path)
    files = EvalFiles(budget=0)
    files.read(want[0])
    loaded = _files.read_eval_file(want[0])
    assert files.case(want[0], "s0c2") == loaded.eval_set.eval_cases[2]
    want[0].write_bytes(want[0].read_bytes().replace(b"the answer is 0 3", b"the answer is 0 9"))
    assert files.case(want[0], "s0c3") == loaded.eval_set.eval_cases[3]
    assert files.case_reads == 2


def test_the_cost_of_a_file_is_measured_not_assumed(tmp_path):
    want, _ = _sets(tmp_path, count=1, per_set=40)
    files = EvalFiles(budget=10**9)
    files.read(want[0])
    tracemalloc.start()
    again = _files.read_eval_file(want[0])
    traced = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert 0.7 * traced < measured_cost(again) < 1.3 * traced
    assert 0.7 * measured_cost(again) < files._cost < 1.3 * measured_cost(again)


def test_one_file_larger_than_the_budget_is_read_once_however_many_cases_it_has(tmp_path, monkeypatch):
    """Issue 21: a file over the budget was read again for every case (a 30,000-case file
    never finished). Each file is read once, by planning; the run reads each case alone."""
    want, got = _sets(tmp_path / "big", count=1, per_set=30)
    kept_plan = plan_paths(
        [str(tmp_path / "big" / "expected")], got, registry=Registry(), judge=JudgeService()
    )
    kept = run_sync(EvalRun(kept_plan).execute())
    reads: list[Path] = []
    for name in ("read_eval_file", "read_eval_cases"):
        real = getattr(_files, name)

        def counted(path, *args, real=real, **options):
            reads.append(Path(path))
            return real(path, *args, **options)

        monkeypatch.setattr(_files, name, counted)
    monkeypatch.setenv("AGENTEVAL_EVAL_CACHE_MB", "0")
    plan = plan_paths([str(tmp_path / "big" / "expected")], got, registry=Registry(), judge=JudgeService())
    streamed = run_sync(EvalRun(plan).execute())
    assert sorted(reads) == sorted([*want, *got])
    assert plan.files is not None and plan.files.case_reads == 60
    assert _statuses(streamed) == _statuses(kept) and len(_statuses(kept)) == 30
    assert streamed.summary == kept.summary
    assert _scores(streamed) == _scores(kept)


def _scores(result) -> list[tuple]:
    return [
        (case.eval_id, [(c.criterion, c.score, c.status, c.reason, c.details) for c in case.criteria])
        for case in result.cases()
    ]


def _run(tmp_path: Path, *, keep_results: bool = True):
    want, got = _sets(tmp_path)
    plan = plan_paths([str(tmp_path / "expected")], got, registry=Registry(), judge=JudgeService())
    return plan, run_sync(EvalRun(plan, keep_results=keep_results).execute())


def _statuses(result) -> dict[str, Status]:
    return {case.eval_id: case.status for case in result.cases()}


def test_a_run_under_a_zero_budget_scores_exactly_as_one_that_keeps_every_file(tmp_path, monkeypatch):
    _, kept = _run(tmp_path / "kept")
    monkeypatch.setenv("AGENTEVAL_EVAL_CACHE_MB", "0")
    plan, streamed = _run(tmp_path / "streamed")
    files = plan.sets[0].files
    assert files is not None and files.rereads == 0 and files.case_reads == 24  # 12 expected, 12 actual
    assert _statuses(streamed) == _statuses(kept)
    assert len(_statuses(kept)) == 12 and set(_statuses(kept).values()) == {Status.PASSED, Status.FAILED}
    assert streamed.summary == kept.summary


def test_without_kept_results_the_run_returns_the_summary_only(tmp_path):
    _, full = _run(tmp_path / "full")
    _, summary_only = _run(tmp_path / "summary", keep_results=False)
    assert summary_only.cases() == [] and [s.eval_set_id for s in summary_only.eval_sets] == [
        "set0",
        "set1",
        "set2",
    ]
    assert summary_only.summary == full.summary and summary_only.passed is full.passed


def _where_checked(monkeypatch) -> list[str]:
    """Where each file's JSON is checked, in planning order: "ahead" or "here"."""
    checked: list[str] = []
    real = _files.read_eval_cases

    def counted(path, each_case, ahead=None, *more):
        checked.append("ahead" if ahead is not None else "here")
        return real(path, each_case, ahead, *more)

    monkeypatch.setattr(_files, "read_eval_cases", counted)
    return checked


def test_files_checked_ahead_by_another_process_plan_and_score_as_those_checked_here(tmp_path, monkeypatch):
    _, here = _run(tmp_path / "here")
    monkeypatch.setattr(_files, "_AHEAD_BYTES", 1)
    monkeypatch.setattr(_files, "_forkable", lambda: True)
    monkeypatch.setattr(_files.EvalFiles, "_read_next", lambda self, path: None)  # (its own tests below)
    checked = _where_checked(monkeypatch)
    plan, ahead = _run(tmp_path / "ahead")
    assert checked == ["ahead"] * 6
    assert _scores(ahead) == _scores(here) and ahead.summary == here.summary
    assert plan.files is not None and (plan.files.rereads, plan.files.case_reads) == (0, 0)


def test_a_damaged_file_checked_ahead_gives_the_error_it_gives_when_checked_here(tmp_path, monkeypatch):
    want, got = _sets(tmp_path)
    want[1].write_text(want[1].read_text().replace('"eval_id":"s1c2"', '"eval_id":"s1c2","eval_id":"x"'))

    def planned() -> str:
        with pytest.raises(DataError) as failed:
            plan_paths([str(tmp_path / "expected")], got, registry=Registry(), judge=JudgeService())
        return str(failed.value)

    here = planned()
    monkeypatch.setattr(_files, "_AHEAD_BYTES", 1)
    monkeypatch.setattr(_files, "_forkable", lambda: True)
    assert planned() == here and "duplicate key" in here


#: The file the other process checks only after a while (``_slow_check_of``).
_SLOW: Optional[Path] = None


def _slow_check(path: str):
    """``check_eval_file``, slow for ``_SLOW`` (a module function: the pool pickles it)."""
    if _SLOW is not None and Path(path) == _SLOW:
        time.sleep(1.0)
    return _eval_files.check_eval_file(path)


def _slow_check_of(monkeypatch, slow: Path) -> None:
    """The other process checks ``slow`` only after a while (it is forked after this)."""
    monkeypatch.setattr(sys.modules[__name__], "_SLOW", slow)
    monkeypatch.setattr(_files, "check_eval_file", _slow_check)
    monkeypatch.setattr(_files, "_AHEAD_BYTES", 1)
    monkeypatch.setattr(_files, "_forkable", lambda: True)


def test_while_the_other_process_checks_a_file_the_next_is_read_and_the_run_is_the_same(
    tmp_path, monkeypatch
):
    _, here = _run(tmp_path / "here")
    _slow_check_of(monkeypatch, tmp_path / "ahead" / "actual" / "set0.actual.json")
    checked = _where_checked(monkeypatch)
    plan, ahead = _run(tmp_path / "ahead")
    # set1's actual file is read while set0's is checked, then handed to planning in its turn
    # (each later file is checked ahead, or read ahead while the one before it is checked)
    assert checked[:2] == ["here", "ahead"] and len(checked) == 6
    assert _scores(ahead) == _scores(here) and ahead.summary == here.summary
    assert [s.eval_set_id for s in plan.sets] == ["set0", "set1", "set2"]
    assert plan.files is not None and (plan.files.rereads, plan.files.case_reads) == (0, 0)


@pytest.mark.parametrize("damaged", [[1], [0, 1]])
def test_a_damaged_file_read_ahead_gives_its_error_in_planning_s_turn(tmp_path, monkeypatch, damaged):
    want, got = _sets(tmp_path)
    for n in damaged:
        got[n].write_text(
            got[n].read_text().replace(f'"eval_id":"s{n}c2"', f'"eval_id":"s{n}c2","eval_id":"x"')
        )

    def planned() -> str:
        with pytest.raises(DataError) as failed:
            plan_paths([str(tmp_path / "expected")], got, registry=Registry(), judge=JudgeService())
        return str(failed.value)

    here = planned()
    _slow_check_of(monkeypatch, got[0])
    checked = _where_checked(monkeypatch)
    assert planned() == here and "duplicate key" in here and got[damaged[0]].name in here
    assert checked[0] == "here"  # set1's file was read ahead (and failed): planning read it again


def test_only_a_file_of_adk_s_format_read_by_planning_and_fitting_the_budget_is_read_ahead(
    tmp_path, monkeypatch
):
    want, got = _sets(tmp_path)
    trace = tmp_path / "trace.jsonl"
    trace.write_text('{"resourceSpans": []}\n', encoding="utf-8")
    _slow_check_of(monkeypatch, got[0])

    def read_ahead(paths, read_here, budget=10**9) -> bool:
        files = EvalFiles(budget=budget)
        with files.checking_ahead(paths, read_here):
            files.read(paths[0])
            return paths[1] in files._cases

    assert read_ahead([got[0], got[1]], [got[0], got[1]])
    assert not read_ahead([got[0], got[1]], [got[0]])  # (another format's reader reads it)
    assert not read_ahead([got[0], trace], [got[0], trace])
    assert not read_ahead([got[0], got[1]], [got[0], got[1]], budget=got[0].stat().st_size * 4)


def test_files_are_checked_here_while_another_thread_runs(tmp_path, monkeypatch):
    # A fork copies only the calling thread: with another one alive (an embedder's server,
    # a test runner), nothing is forked.
    monkeypatch.setattr(_files, "_AHEAD_BYTES", 1)
    checked = _where_checked(monkeypatch)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    try:
        _run(tmp_path)
    finally:
        stop.set()
        other.join()
    assert checked == ["here"] * 6


def test_the_default_budget_is_the_measured_one_within_a_quarter_of_the_available_memory(monkeypatch):
    monkeypatch.delenv("AGENTEVAL_EVAL_CACHE_MB", raising=False)
    monkeypatch.setattr(_files, "free_memory", lambda: 64 * 2**30)
    assert EvalFiles().budget == _files.DEFAULT_BUDGET_MB * 2**20
    monkeypatch.setattr(_files, "free_memory", lambda: 400 * 2**20)
    assert EvalFiles().budget == 100 * 2**20
    monkeypatch.setattr(_files, "free_memory", lambda: None)
    assert EvalFiles().budget == _files.DEFAULT_BUDGET_MB * 2**20
    monkeypatch.setenv("AGENTEVAL_EVAL_CACHE_MB", "7")
    assert EvalFiles().budget == 7 * 2**20
    assert _files.free_memory() is None or _files.free_memory() > 0


def _size_by_recursion(value, seen):
    """The pricer's measure as its definition reads: each object once, with what it holds."""
    import sys

    from pydantic import BaseModel

    if value is None or value is True or value is False or id(value) in seen:
        return 0
    seen.add(id(value))
    size = sys.getsizeof(value)
    if isinstance(value, BaseModel):
        parts = (value.__dict__, value.__pydantic_extra__, value.__pydantic_fields_set__)
        size += sum(_size_by_recursion(part, seen) for part in parts)
    elif isinstance(value, dict):
        size += sum(_size_by_recursion(k, seen) + _size_by_recursion(v, seen) for k, v in value.items())
    elif isinstance(value, (list, tuple, set, frozenset)):
        size += sum(_size_by_recursion(item, seen) for item in value)
    return size


def test_the_pricer_s_walk_counts_what_the_recursive_definition_counts():
    shared = {"k": [1, 2.5, "x"]}
    cases = [
        make_case(
            [make_invocation(f"q {i}", "a b c", tool_calls=[("t", {"n": i, "s": shared})])], eval_id=f"c{i}"
        )
        for i in range(5)
    ]
    mixed = [shared, (shared, frozenset({1, 2})), {3: b"bytes", "m": cases[0]}, True, None]
    walked, recursed = set(), set()
    for value in [*cases, mixed]:  # one ``seen`` across values, as the pricer shares it
        assert _files._size_of(value, walked) == _size_by_recursion(value, recursed)
    assert walked == recursed


@given(budget=st.integers(0, 10**12), total=st.integers(0, 10**12), more=st.integers(0, 10**12))
def test_the_kept_limit_is_the_budget_while_the_run_fits_and_shrinks_continuously_past_it(
    budget, total, more
):
    limit = _files.kept_limit(budget, total)
    assert 0 <= limit <= budget
    assert (limit == budget) is (total <= budget or budget == 0)
    assert _files.kept_limit(budget, total + more) <= limit  # a larger run never keeps more
    if total > budget:
        assert abs(limit - budget * budget / total) <= 1  # the share budget / total of the budget
    assert _files.kept_limit(budget, budget + 1) >= budget - 1  # continuous where the run stops fitting


def _whole_cost(paths: list[Path]) -> int:
    files = EvalFiles(budget=10**12)
    for path in paths:
        files.read(path)
    return files._cost


def test_a_run_over_the_budget_keeps_the_share_budget_over_total_of_it(tmp_path):
    want, got = _sets(tmp_path, count=4, per_set=30)
    paths = [*got, *want]
    total = _whole_cost(paths)
    files = EvalFiles(budget=total // 2)
    files.will_read(paths)
    for path in paths:
        files.read(path)
    assert files._unread == {} and 0.8 * total < files._priced < 1.2 * total  # every case priced
    # A quarter of the run (half of the budget) kept, not the whole budget as before.
    assert 0 < files._cost <= 1.2 * _files.kept_limit(total // 2, total) < 0.7 * files.budget
    whole = {path: _files.read_eval_file(path).eval_set.eval_cases for path in paths}
    files.start_run()
    assert {
        path: [files.case(path, case.eval_id) for case in cases] for path, cases in whole.items()
    } == whole
    assert files.rereads == 0 and 0 < files.case_reads < 240


def test_a_run_that_fits_the_budget_keeps_every_case_and_reads_nothing_again(tmp_path, monkeypatch):
    want, got = _sets(tmp_path, count=4, per_set=30)
    total = _whole_cost([*want, *got])
    budget = int(1.1 * total)
    monkeypatch.setattr(_files, "_budget_from_environment", lambda: budget)
    plan = plan_paths([str(tmp_path / "expected")], got, registry=Registry(), judge=JudgeService())
    assert plan.files is not None and plan.files._unread == {} and plan.files._priced <= budget
    run_sync(EvalRun(plan).execute())
    assert (plan.files.rereads, plan.files.case_reads) == (0, 0)
    monkeypatch.setattr(_files, "_budget_from_environment", lambda: total // 2)
    plan = plan_paths([str(tmp_path / "expected")], got, registry=Registry(), judge=JudgeService())
    assert plan.files is not None and plan.files._cost <= 1.2 * _files.kept_limit(total // 2, total)


# -- parts validated by the other process (a run past the budget) ----------------------------


def _die(*args, **kwargs):
    os._exit(3)  # the other process is killed mid-part


def _no_part(*args, **kwargs):
    return None


def _parts_ahead(monkeypatch, on: bool = True) -> None:
    """Every case past the budget, and the other process on (or not) for any part."""
    monkeypatch.setattr(_files, "_budget_from_environment", lambda: 0)
    monkeypatch.setattr(_files, "_forkable", lambda: on)
    monkeypatch.setattr(_files, "_LEAST_PART", 1)
    monkeypatch.setattr(_files, "_LEAST_SPLIT", 2)
    monkeypatch.setattr(_files, "_WAIT_FOR_PARTS", True)  # every part from the other process


def _planned_and_run(folder: Path, want: list[Path], got: list[Path]):
    plan = plan_paths([str(folder)], got, registry=Registry(), judge=JudgeService())
    result = run_sync(EvalRun(plan).execute())
    planned = [(s.eval_set_id, s.case_ids, s.sha256) for s in plan.sets]
    return plan, (planned, plan.warnings, plan.actual_files, _scores(result), result.summary)


def _warned_sets(tmp_path: Path) -> tuple[list[Path], list[Path]]:
    """Four sets of 40 cases; late cases of the second have unknown keys and turns sharing an id."""
    want, got = _sets(tmp_path, count=4, per_set=40)
    data = json.loads(want[1].read_text())
    for case in data["eval_cases"][30:33]:
        case["unknown_key"] = 1
        case["conversation"][0]["invocation_id"] = "turn"
        case["conversation"].append(dict(case["conversation"][0]))
    want[1].write_text(json.dumps(data))
    return want, got


def test_parts_validated_by_the_other_process_plan_and_score_as_those_validated_here(tmp_path, monkeypatch):
    want, got = _warned_sets(tmp_path)
    _parts_ahead(monkeypatch, on=False)
    plan, here = _planned_and_run(tmp_path / "expected", want, got)
    assert plan.files is not None and plan.files.cases_ahead == 0
    _parts_ahead(monkeypatch)
    plan, ahead = _planned_and_run(tmp_path / "expected", want, got)
    assert plan.files is not None and plan.files.cases_ahead > 0
    assert ahead == here
    assert (
        sum("unknown case key" in w for w in here[1]) == 3 and sum("invocation_id" in w for w in here[1]) == 3
    )


@pytest.mark.parametrize("helper", [_die, _no_part])
def test_a_part_the_other_process_fails_on_is_validated_here(tmp_path, monkeypatch, helper):
    want, got = _warned_sets(tmp_path)
    _parts_ahead(monkeypatch, on=False)
    _, here = _planned_and_run(tmp_path / "expected", want, got)
    _parts_ahead(monkeypatch)
    monkeypatch.setattr(_files, "validate_part", helper)
    plan, ahead = _planned_and_run(tmp_path / "expected", want, got)
    assert plan.files is not None and plan.files.cases_ahead == 0
    assert ahead == here


_SCENARIO = '"eval_id":"s2c36","conversation_scenario":{"starting_prompt":"hi","conversation_plan":"p"},"x":'


def _damages(want: list[Path], got: list[Path]) -> list[tuple[Path, str, str]]:
    """Damage deep in a file (past its first part), as (file, text replaced, by)."""
    return [
        (want[2], '"eval_id":"s2c37"', '"eval_id":37'),  # an invalid case far past the budget
        (want[2], '"eval_id":"s2c37"', '"eval_id":"s2c3"'),  # an id repeated across the parts
        (want[3], '"eval_id":"s3c39",', '"eval_id":"s3c39",,'),  # bad JSON in the last case
        (got[1], '"eval_id":"s1c38"', '"eval_id":"s1c38","evalId":"x"'),  # a key spelt twice
        (got[2], '"eval_id":"s2c36","conversation":', _SCENARIO),  # a scenario, not actual turns
    ]


@pytest.mark.parametrize("index", range(5))
def test_damage_in_a_part_gives_the_error_it_gives_validated_here(tmp_path, monkeypatch, index):
    want, got = _sets(tmp_path, count=4, per_set=40)
    path, old, new = _damages(want, got)[index]
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))

    def planned() -> str:
        with pytest.raises(DataError) as failed:
            plan_paths([str(tmp_path / "expected")], got, registry=Registry(), judge=JudgeService())
        return str(failed.value)

    _parts_ahead(monkeypatch, on=False)
    here = planned()
    _parts_ahead(monkeypatch)
    assert planned() == here


def test_the_other_process_starts_only_for_a_run_past_the_budget_or_files_worth_checking(
    tmp_path, monkeypatch
):
    want, got = _sets(tmp_path)
    paths = [*got, *want]
    forkable = _files._forkable
    monkeypatch.setattr(_files, "_forkable", lambda: True)

    def started(budget: int) -> bool:
        files = EvalFiles(budget=budget)
        with files.checking_ahead(paths):
            return files._pool is not None

    assert not started(10**9) and started(0)
    monkeypatch.setattr(_files, "_forkable", lambda: False)
    assert not started(0)
    monkeypatch.setattr(_files, "_forkable", forkable)  # the rule itself, on one CPU, busy or not
    monkeypatch.setattr(_fork.threading, "active_count", lambda: 1)
    monkeypatch.setattr(_fork.os, "sched_getaffinity", lambda pid: {0}, raising=False)
    monkeypatch.setattr(_fork.os, "cpu_count", lambda: 1)
    assert not started(0)
    monkeypatch.setattr(_fork.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(_fork.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(_fork, "_load", lambda: 64.0)
    assert started(0) is hasattr(os, "fork")


def test_a_part_this_process_took_itself_is_skipped_by_the_other(monkeypatch):
    monkeypatch.setattr(_files, "_SKIPPED", bytearray(_files._SLOTS))
    calls: list[tuple] = []
    monkeypatch.setattr(_files, "validate_part", lambda *args: calls.append(args) or "validated")
    assert _files._validate_part_ahead(5, "path") == "validated"
    _files._skip(5 + _files._SLOTS, True)  # slots wrap around
    assert _files._validate_part_ahead(5, "path") is None and calls == [("path",)]
    _files._skip(5, False)
    assert _files._validate_part_ahead(5, "path") == "validated"
