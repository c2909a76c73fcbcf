"""``reporting/_json.py``: the JSON document streamed from a run folder, one case at a time,
is the document of the run's whole result, character for character."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from agenteval._reporting import json_chunks, render_json, write_json
from agenteval.cli import main
from agenteval.runs import list_runs
from click.testing import CliRunner

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "travel"


def _recorded(tmp_path: Path, *paths: str, actual: Path = EXAMPLE / "travel.actual.json"):
    runs = tmp_path / "runs"
    args = ["run", *paths, "--actual", str(actual), "--runs-dir", str(runs)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code in (0, 1), result.output
    [run] = list_runs(runs)
    return run


@pytest.mark.parametrize(
    "paths",
    [
        [str(EXAMPLE / "travel.evalset.json")],
        [f"{EXAMPLE / 'travel.evalset.json'}:weather_paris"],
        # The same file twice: two eval sets in one document.
        [str(EXAMPLE / "travel.evalset.json"), f"{EXAMPLE / 'travel.evalset.json'}:hotel_tokyo_ja"],
    ],
    ids=["one set", "one case", "two sets"],
)
def test_the_streamed_document_is_the_whole_result_s(tmp_path, paths):
    run = _recorded(tmp_path, *paths)
    streamed = "".join(json_chunks(run))
    assert streamed == render_json(run.result())
    assert json.loads(streamed)["run_id"] == run.run_id


def test_an_eval_set_with_no_case_and_a_transform(tmp_path):
    empty = tmp_path / "empty.evalset.json"
    empty.write_text('{"eval_set_id": "nothing", "eval_cases": []}')
    run = _recorded(tmp_path, str(empty), actual=empty)
    out = io.StringIO()
    write_json(run, out, transform=str.upper)
    assert out.getvalue() == render_json(run.result()).upper()
    assert json.loads(out.getvalue().lower())["eval_sets"][0]["cases"] == []


def test_a_run_result_in_memory_is_written_whole(tmp_path):
    run = _recorded(tmp_path, str(EXAMPLE / "travel.evalset.json"))
    result = run.result()
    out = io.StringIO()
    write_json(result, out)
    assert out.getvalue() == render_json(result)


class _Writes(io.StringIO):
    """A stream that counts its writes."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)


def test_the_pieces_go_out_in_few_writes(tmp_path, monkeypatch):
    """A write to a terminal stream has a cost of its own: the pieces (one per case) are
    gathered, and the document goes out in writes of about a megabyte, unchanged."""
    import agenteval._reporting._json as json_module

    run = _recorded(tmp_path, str(EXAMPLE / "travel.evalset.json"))
    whole = render_json(run.result())
    out = _Writes()
    write_json(run, out)
    assert out.getvalue() == whole
    assert out.writes == 1  # far less than a megabyte
    monkeypatch.setattr(json_module, "_WRITE_SIZE", 200)  # a small size: several writes, same text
    out = _Writes()
    write_json(run, out, transform=str.upper)
    assert out.getvalue() == whole.upper()
    assert 1 < out.writes < len(list(json_chunks(run)))
