"""Mutation fuzzing of run folders: whatever is done to one file of a recorded run (a line's
value swapped for another type, a key deleted, a line cut or doubled, bytes flipped, a file
removed, the run made to look killed), every reader ends with an exit code and a message,
never a traceback: ``runs show`` (table, ``--show all``, JSON, detailed), ``compare`` both
ways and ``--resume``.

The seeds are runs of the bundled travel example: one run per case, three runs per case, and
an agent run of two. Derandomized with a fixed example count, so CI runs the same folders
every time. This found the hand edits that crashed readers (an index or scores line of the
wrong shape, a record of other criteria, a manifest with an impossible setting, a doubled
case id, a shard record without its fields).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from agenteval.cli import main
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "travel"
_KINDS = {
    "one": ["--actual", str(EXAMPLE / "travel.actual.json")],
    "three": ["--actual", str(EXAMPLE / "travel.actual.json")] * 3,
    "agent": ["--agent", str(EXAMPLE), "--num-runs", "2"],
}
_ODD: list[Any] = [None, 0, -1, 1.5, 1e308, "", "x" * 300, [], {}, True, [[]], {"a": None}, ["x"], 2**70]
_READERS = ["show", "show all", "show json", "show detailed", "compare", "compare back", "resume"]


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> dict[str, Path]:
    """One recorded run of each kind, in its own runs folder."""
    made = {}
    for kind, extra in _KINDS.items():
        runs = tmp_path_factory.mktemp(kind)
        command = ["run", str(EXAMPLE / "travel.evalset.json"), *extra, "--runs-dir", str(runs), "-q"]
        result = CliRunner().invoke(main, command)
        assert result.exit_code in (0, 1), result.output
        (made[kind],) = [p for p in runs.iterdir() if p.is_dir()]
    return made


def _paths(value: Any, path: tuple = ()) -> list[tuple]:
    found = [path] if path else []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        found += _paths(inner, (*path, key))
    return found


def _changed(value: Any, draw: Any) -> Any:
    """``value`` (JSON data) with one place swapped for an odd value, deleted or doubled."""
    places = _paths(value)
    if not places:
        return draw(st.sampled_from(_ODD))
    *parents, last = draw(st.sampled_from(places))
    holder = value
    for key in parents:
        holder = holder[key]
    how = draw(st.sampled_from(["swap", "delete", "double"]))
    if how == "swap":
        holder[last] = draw(st.sampled_from(_ODD))
    elif how == "delete":
        del holder[last]
    elif isinstance(holder, list):
        holder.append(holder[last])
    else:
        holder[f"{last}_again"] = holder[last]
    return value


def _damage(folder: Path, draw: Any) -> str:
    """One file of ``folder`` damaged (what was done, for the failure message)."""
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.name != ".lock")
    target = draw(st.sampled_from(files))
    data = target.read_bytes()
    how = draw(st.sampled_from(["value", "value", "cut", "flip", "remove", "double line"]))
    if how == "remove":
        target.unlink()
    elif how == "cut":
        target.write_bytes(data[: draw(st.integers(0, len(data)))])
    elif how == "flip" and data:
        at = draw(st.integers(0, len(data) - 1))
        target.write_bytes(data[:at] + bytes([data[at] ^ 0x20]) + data[at + 1 :])
    elif how == "double line" and target.suffix == ".jsonl" and data.strip():
        lines = data.splitlines(keepends=True)
        at = draw(st.integers(0, len(lines) - 1))
        target.write_bytes(b"".join([*lines[: at + 1], lines[at], *lines[at + 1 :]]))
    elif target.suffix == ".jsonl" and data.strip():
        lines = data.splitlines(keepends=True)
        at = draw(st.integers(0, len(lines) - 1))
        lines[at] = json.dumps(_changed(json.loads(lines[at]), draw)).encode() + b"\n"
        target.write_bytes(b"".join(lines))
    elif target.suffix == ".json":
        target.write_text(json.dumps(_changed(json.loads(data), draw)), encoding="utf-8")
    return f"{how} {target.name}"


def _looks_killed(folder: Path) -> None:
    """As ``kill -9`` leaves a run: no summary, the manifest still running (its scores,
    written after the records, then read unsealed)."""
    (folder / "summary.json").unlink(missing_ok=True)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest.update(state="running", finished_at=None)
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    later = time.time_ns() + 10**9
    if (folder / "scores.jsonl").exists():
        os.utime(folder / "scores.jsonl", ns=(later, later))


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.data())
def test_a_damaged_run_folder_gives_every_reader_an_exit_code_never_a_traceback(seeds, tmp_path, data):
    kind = data.draw(st.sampled_from(sorted(seeds)))
    runs = tmp_path / f"runs-{time.monotonic_ns()}"
    folder = runs / seeds[kind].name
    shutil.copytree(seeds[kind], folder)
    killed = data.draw(st.booleans())
    if killed:
        _looks_killed(folder)
    done = _damage(folder, data.draw)
    reader = data.draw(st.sampled_from(_READERS))
    other = str(seeds[data.draw(st.sampled_from(sorted(seeds)))])
    command = {
        "show": ["runs", "show", str(folder)],
        "show all": ["runs", "show", str(folder), "--show", "all"],
        "show json": ["runs", "show", str(folder), "--format", "json"],
        "show detailed": ["runs", "show", str(folder), "--print-detailed-results"],
        "compare": ["compare", other, str(folder)],
        "compare back": ["compare", str(folder), other, "--format", "json"],
        "resume": [
            "run",
            str(EXAMPLE / "travel.evalset.json"),
            *_KINDS[kind],
            "--resume",
            folder.name,
            "--runs-dir",
            str(runs),
            "-q",
        ],
    }[reader]
    result = CliRunner().invoke(main, command)
    what = f"{reader} of a {'killed ' if killed else ''}{kind} run after {done}"
    assert result.exception is None or isinstance(result.exception, SystemExit), (what, result.exception)
    assert result.exit_code in (0, 1, 2, 3), (what, result.exit_code, result.output[-800:])
    assert "Traceback" not in result.output, (what, result.output[-800:])


def test_a_brief_line_changed_in_place_leaves_the_briefs_unread_and_compare_reads_the_records(
    seeds, tmp_path
):
    """The summary seals ``briefs.jsonl`` by its size: a byte changed by hand keeps the size,
    and the line then lacks its criteria (``compare`` raised ``KeyError``)."""
    folder = tmp_path / seeds["three"].name
    shutil.copytree(seeds["three"], folder)
    path = folder / "briefs.jsonl"
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"criteria":', b'"cRiteria":', 1))
    from agenteval.runs import RecordedRun

    assert RecordedRun.open(folder)._written_briefs() == {}
    same = CliRunner().invoke(main, ["compare", str(seeds["three"]), str(folder), "--format", "json"])
    assert same.exception is None or isinstance(same.exception, SystemExit), same.exception
    assert same.exit_code == 0 and json.loads(same.stdout)["exit_code"] == 0, same.output  # nothing changed


@pytest.mark.parametrize(
    ("place", "value"),
    [
        (("criteria", 0, "verdict", "verdict"), "x"),  # no verdict of the four
        (("criteria", 0, "per_invocation", 0, "details", "alignment"), [{"op": [], "name": "x"}]),
    ],
)
def test_a_record_changed_by_hand_is_reported_by_every_reporter_never_a_traceback(
    seeds, tmp_path, place, value
):
    """A record of a run whose summary no longer covers its records (edited by hand): the
    summary is made again from the records, and every reporter and the HTML report read it."""
    folder = tmp_path / seeds["one"].name
    shutil.copytree(seeds["one"], folder)
    path = folder / "results.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    holder = records[0]
    for step in place[:-1]:
        holder = holder[step] if not isinstance(holder, list) or step < len(holder) else holder[-1]
    holder[place[-1]] = value
    path.write_text("".join(json.dumps(record, separators=(",", ":")) + "\n" for record in records))
    reporters = "json,jsonl,table,junit,markdown,github,otel"
    for command in (
        ["runs", "report", str(folder), "--report", reporters, "--report-dir", str(tmp_path / "out")],
        ["report", str(folder), "-o", str(tmp_path / "report.html")],
    ):
        result = CliRunner().invoke(main, command)
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            command,
            result.exception,
        )
        assert result.exit_code in (0, 1, 2, 3), result.output[-800:]
