"""``agenteval run --shard I/N`` then ``agenteval merge``: the shards of a plan make the run
one process would have made (records, summary, verdicts), and shards that do not make one
run are refused with what is wrong (exit 2)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from agenteval.cli import main
from agenteval.runs import RecordedRun, RunState, find_run, list_runs
from click.testing import CliRunner

from tests.fixtures.one_turn import one_turn_eval_set

CASES = 9


def _eval_set(answers) -> dict:
    return one_turn_eval_set(CASES, answers)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An eval set, and two recorded runs of an agent that answers some cases well, some
    badly and some differently each run."""
    expected = lambda i: f"the answer to q{i} is {i * 7} apples"  # noqa: E731
    (tmp_path / "shop.evalset.json").write_text(json.dumps(_eval_set(expected)))
    first = lambda i: expected(i) if i % 3 else "no idea"  # noqa: E731
    second = lambda i: expected(i) if i % 4 else "no idea at all"  # noqa: E731
    (tmp_path / "run1.json").write_text(json.dumps(_eval_set(first)))
    (tmp_path / "run2.json").write_text(json.dumps(_eval_set(second)))
    return tmp_path


def _run(project: Path, runs: str, *extra: str, threshold: str = "0.8") -> int:
    config = project / f"config-{threshold}.json"
    config.write_text(json.dumps({"criteria": {"response_match_score": float(threshold)}}))
    result = CliRunner().invoke(
        main,
        ["run", str(project / "shop.evalset.json"), "--actual", str(project / "run1.json")]
        + ["--actual", str(project / "run2.json"), "--config", str(config), "--no-cache", "-q"]
        + ["--runs-dir", str(project / runs), *extra],
    )
    assert result.exit_code in (0, 1), result.output
    return result.exit_code


def _merge(project: Path, folders, out: str = "merged"):
    return CliRunner().invoke(
        main, ["merge", *map(str, folders), "-o", out, "--runs-dir", str(project / "runs")]
    )


def _shards(project: Path, count: int, runs: str = "shards", **kwargs) -> list[Path]:
    for index in range(1, count + 1):
        _run(project, runs, "--shard", f"{index}/{count}", **kwargs)
    return sorted((project / runs).iterdir())


def _records(run: RecordedRun) -> list[dict]:
    found = []
    for record in run.records():
        data = record.model_dump(mode="json", by_alias=True, exclude={"run_id", "duration_s"})
        for criterion in data["criteria"]:
            criterion.pop("duration_seconds", None)
        found.append(data)
    return sorted(found, key=lambda r: (r["eval_set_index"], r["case_id"], r["run_index"]))


def _verdicts(run: RecordedRun) -> list:
    return sorted(
        (case.eval_id, case.status.value, _timeless(case.model_dump(mode="json")["criteria"]))
        for case in run.result().cases()
    )


def _timeless(data):
    """``data`` without what differs between two runs of the same plan: times and run ids."""
    if isinstance(data, dict):
        return {k: _timeless(v) for k, v in data.items() if k not in ("duration_seconds", "run_id")}
    if isinstance(data, list):
        return [_timeless(v) for v in data]
    return data


@pytest.mark.parametrize("count", [1, 3, 12])  # 12 shards of 9 cases: some are empty
def test_the_merged_shards_are_the_one_process_run(project, count):
    code = _run(project, "full")
    full = find_run(project / "full")
    shards = _shards(project, count)
    assert len(shards) == count
    assert {find_run(project / "shards", s.name).manifest.shard["count"] for s in shards} == {count}
    result = _merge(project, shards)
    assert result.exit_code == code, result.output
    assert f"merged {count} shard(s) into" in result.output
    merged = find_run(project / "runs", "merged")
    assert merged.manifest.state is RunState.COMPLETE
    assert merged.manifest.exit_code == full.manifest.exit_code == code == 1
    assert _records(merged) == _records(full)
    assert merged.result_summary().model_dump(exclude={"run_id"}) == full.result_summary().model_dump(
        exclude={"run_id"}
    )
    assert _verdicts(merged) == _verdicts(full)
    for key in ("eval_sets", "inputs_fingerprint", "num_runs", "confidence", "set_verdict", "actual_files"):
        assert getattr(merged.manifest, key) == getattr(full.manifest, key), key
    assert merged.manifest.executor["name"] == "shards" and merged.manifest.executor["workers"] == count
    in_order = sorted(
        (find_run(project / "shards", s.name) for s in shards), key=lambda r: r.manifest.shard["index"]
    )
    assert merged.manifest.merged_from == [r.run_id for r in in_order]
    # Every reader takes it as one run: its summary.json is sealed over these records.
    shown = CliRunner().invoke(main, ["runs", "show", "merged", "--runs-dir", str(project / "runs")])
    assert shown.exit_code == code and "case_0" in shown.output, shown.output


def test_a_missing_shard_is_named(project):
    shards = _shards(project, 3)
    result = _merge(project, shards[:2])
    assert result.exit_code == 2
    missing = {1, 2, 3} - {find_run(project / "shards", s.name).manifest.shard["index"] for s in shards[:2]}
    assert f"shard(s) {missing.pop()}/3 missing: merge needs all 3 shards" in result.output
    assert not (project / "runs" / "merged").exists()


def test_shards_of_other_plans_are_refused(project):
    two = _shards(project, 2, runs="two")
    three = _shards(project, 3, runs="three")
    result = _merge(project, [*two, *three])
    assert result.exit_code == 2 and "the shards come from different plans" in result.output
    other = _shards(project, 2, runs="stricter", threshold="0.9")  # another threshold: another plan
    result = _merge(project, [two[0], other[1]])
    assert result.exit_code == 2 and "the shards come from different plans" in result.output


def test_a_shard_given_twice_and_a_run_that_is_no_shard_are_refused(project):
    shards = _shards(project, 2)
    _run(project, "full")
    copy = project / "copy"
    shutil.copytree(shards[0], copy)
    result = _merge(project, [*shards, copy, next((project / "full").iterdir())])
    assert result.exit_code == 2
    assert (
        "is given twice" in result.output
        and "is not a shard (it was not run with --shard I/N)" in result.output
    )


def test_an_unfinished_shard_is_refused_unless_a_retry_of_it_completed(project):
    shards = _shards(project, 2)
    attempt = project / "attempt"
    shutil.copytree(shards[0], attempt)
    manifest = json.loads((attempt / "manifest.json").read_text())
    manifest["state"] = "interrupted"
    (attempt / "manifest.json").write_text(json.dumps(manifest))
    refused = _merge(project, [attempt, shards[1]])
    assert refused.exit_code == 2
    assert "is interrupted, not complete: finish it first" in refused.output
    assert f"--resume {manifest['run_id']}" in refused.output
    merged = _merge(project, [attempt, *shards])  # the first attempt of a retried pod
    assert merged.exit_code in (0, 1), merged.output


def test_overlapping_shards_are_refused(project):
    shards = _shards(project, 2)
    first, second = (find_run(project / "shards", s.name) for s in shards)
    line = (first.folder / "results.jsonl").read_text().splitlines()[0]
    with open(second.folder / "results.jsonl", "a") as results:
        results.write(line + "\n")
    result = _merge(project, shards)
    assert result.exit_code == 2 and "the shards overlap" in result.output


def test_merge_never_overwrites_a_run(project):
    shards = _shards(project, 2)
    assert _merge(project, shards).exit_code in (0, 1)
    again = _merge(project, shards)
    assert again.exit_code == 2 and "it exists; give -o a new folder" in again.output
    assert len(list_runs(project / "runs")) == 1


def test_records_are_copied_as_bytes_and_a_shard_not_laid_out_as_ours_is_read_instead(project):
    """A shard this engine wrote has its records copied (the run id spliced in); one another
    engine wrote, or whose scores file is gone, has each record read and written again: the
    merged folder is the same bytes either way."""
    from agenteval.runs import _merge as merging

    shards = _shards(project, 3)
    real = merging._Copier.copy
    answers: list = []

    def counted(self, key, writer):
        answers.append(real(self, key, writer))
        return answers[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(merging._Copier, "copy", counted)
        assert _merge(project, shards, "merge1").exit_code in (0, 1)
        copied = find_run(project / "runs", "merge1")
        assert answers and all(answers) and len(answers) == len(copied.keys())
        manifest = json.loads((shards[0] / "manifest.json").read_text())
        (shards[0] / "manifest.json").write_text(json.dumps({**manifest, "engine_version": "0.0.1"}))
        (shards[1] / "scores.jsonl").unlink()
        answers.clear()
        assert _merge(project, shards, "merge2").exit_code in (0, 1)
    assert answers.count(False) == len(copied.keys()) - len(
        find_run(project / "shards", shards[2].name).keys()
    )
    read = find_run(project / "runs", "merge2")
    for name in ("results.jsonl", "index.jsonl", "scores.jsonl"):
        mine, theirs = ((run.folder / name).read_bytes() for run in (copied, read))
        assert mine.replace(b'"merge1"', b'"merge2"') == theirs, name


def test_an_index_line_that_is_not_utf8_is_read_as_a_model_not_copied(project):
    """A byte of a shard's index changed by hand into one UTF-8 cannot hold: that record is
    read and written again (the copy stopped the merge with a ``UnicodeDecodeError``)."""
    from agenteval.runs import _merge as merging

    shards = _shards(project, 2)
    assert _merge(project, shards, "whole").exit_code in (0, 1)
    index = shards[0] / "index.jsonl"
    data = index.read_bytes()
    at = data.index(b'"preview"')
    index.write_bytes(data[:at] + b"\xc3" + data[at + 1 :])
    real = merging._Copier.copy
    answers: list = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(merging._Copier, "copy", lambda *a: answers.append(real(*a)) or answers[-1])
        result = _merge(project, shards, "damaged")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code in (0, 1), result.output
    assert answers.count(False) == 1, answers
    runs = [find_run(project / "runs", name) for name in ("whole", "damaged")]
    assert _records(runs[0]) == _records(runs[1])


def test_case_ids_that_json_escapes_are_copied_as_one_process_writes_them(tmp_path):
    """Ids with a quote, a backslash, accents, an emoji and a line separator: the copied
    lines hold them as the writer encodes them (the merged folder is the same bytes as when
    every record is read and written again)."""
    from agenteval.runs import _merge as merging

    ids = ['say "hi"', "back\\slash", "café", "rocket 🚀", "line\u2028sep", "plain"]
    for name, answer in (("expected", "the answer"), ("actual", "the answer, roughly")):
        document = one_turn_eval_set(len(ids), lambda i, text=answer: f"{text} {i}")
        for case, case_id in zip(document["eval_cases"], ids, strict=True):
            case["eval_id"] = case_id
        (tmp_path / f"{name}.json").write_text(json.dumps(document), encoding="utf-8")
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"criteria": {"response_match_score": 0.8}}))
    for index in (1, 2):
        result = CliRunner().invoke(
            main,
            ["run", str(tmp_path / "expected.json"), "--actual", str(tmp_path / "actual.json")]
            + [
                "--config",
                str(config),
                "--runs-dir",
                str(tmp_path / "shards"),
                "--shard",
                f"{index}/2",
                "-q",
            ],
        )
        assert result.exit_code in (0, 1), result.output
    shards = sorted((tmp_path / "shards").iterdir())
    answers: list = []
    real = merging._Copier.copy
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            merging._Copier,
            "copy",
            lambda self, key, writer: answers.append(real(self, key, writer)) or answers[-1],
        )
        assert _merge(tmp_path, shards, "merge1").exit_code in (0, 1)
        patch.setattr(merging._Copier, "copy", lambda self, key, writer: False)  # every record read
        assert _merge(tmp_path, shards, "merge2").exit_code in (0, 1)
    assert answers == [True] * len(ids)
    copied, read = (find_run(tmp_path / "runs", name) for name in ("merge1", "merge2"))
    assert {key[1] for key in copied.keys()} == set(ids)
    for name in ("results.jsonl", "index.jsonl", "scores.jsonl"):
        assert (copied.folder / name).read_bytes().replace(b'"merge1"', b'"merge2"') == (
            read.folder / name
        ).read_bytes()
