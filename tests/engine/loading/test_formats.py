"""Data formats (``agenteval.formats``): a file's format is chosen by its content, ADK's eval
sets stay built in (no plugin imported for them), ``--format-in`` overrides, a file no
format claims is refused with the installed formats, and a reader's failure is one clear
``DataError``, never a traceback."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from agenteval import EvalRun, JudgeService, Registry, Status, plan_paths, plugins
from agenteval._api import run_sync
from agenteval._loading import _formats as formats
from agenteval._plugins import KINDS, PluginFinder
from agenteval._registry import FORMATS_GROUP
from agenteval.cli import main
from agenteval.errors import DataError, PluginLoadError
from agenteval.models import EvalCase, EvalSet
from agenteval.plugins import FormatReader, leading_keys
from agenteval.testing import make_case, make_invocation
from click.testing import CliRunner


class Lines(FormatReader):
    """A toy format: ``{"lines": [{"case": ID, "user": TEXT, "answer": TEXT}]}``."""

    description = "toy lines"

    @classmethod
    def claims(cls, head: bytes) -> bool:
        return leading_keys(head)[:1] == ("lines",)

    def read_actual(self, path: Path, cases: Sequence[EvalCase]) -> EvalSet:
        rows = json.loads(path.read_text())["lines"]
        wanted = {case.eval_id for case in cases}
        self.warnings.append("a toy warning")
        return EvalSet(
            eval_set_id="lines",
            eval_cases=[
                make_case([make_invocation(r["user"], r["answer"])], eval_id=r["case"])
                for r in rows
                if r["case"] in wanted
            ],
        )


class NeverAsked(FormatReader):
    @classmethod
    def claims(cls, head: bytes) -> bool:
        raise AssertionError("an ADK file must not reach the format readers")

    def read_actual(self, path: Path, cases: Sequence[EvalCase]) -> EvalSet:
        raise AssertionError


class Broken(Lines):
    def read_actual(self, path: Path, cases: Sequence[EvalCase]) -> EvalSet:
        raise KeyError("lines")


def _finder(**readers: type) -> PluginFinder:
    return PluginFinder(KINDS[FORMATS_GROUP], readers)


def _file(tmp_path: Path, name: str, content: str) -> Path:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("head", "keys"),
    [
        (b'{"a": 1, "b": {"c": [1, 2]}, "d": "x"}', ("a", "b", "d")),
        (b'\xef\xbb\xbf  {"resourceSpans": [{"resource": {"attr', ("resourceSpans",)),
        (b'{"eval_cases": [], "eval_set_id"', ("eval_cases", "eval_set_id")),
        (b'{"a\\"b": 1}', ('a"b',)),
        (b"[1, 2]", ()),
        (b"not json", ()),
        (b"", ()),
        (b"{", ()),
    ],
)
def test_leading_keys_reads_the_top_level_keys_as_far_as_the_head_goes(head, keys):
    assert leading_keys(head) == keys


@pytest.mark.parametrize(
    "content",
    [
        '{"eval_set_id": "s", "eval_cases": []}',
        '{"_comment": "ADK ignores unknown top-level keys", "eval_set_id": "s", "eval_cases": []}',
        "[]",
        '[{"query": "hi"}]',
    ],
)
def test_an_adk_file_is_read_as_adk_without_asking_any_reader(tmp_path, content):
    path = _file(tmp_path, "a.json", content)
    assert formats.choose_format(path, finder=_finder(never=NeverAsked)) is None


def test_a_file_a_reader_claims_goes_to_that_reader(tmp_path):
    path = _file(tmp_path, "t.json", '{"lines": []}')
    assert formats.choose_format(path, finder=_finder(lines=Lines)) is Lines


@pytest.mark.parametrize(
    "content",
    ['{"eval_cases": [], "eval_set_id": "s"}', '{"name": "x"}', '{"note": 1, "eval_cases": [', "{oops", ""],
)
def test_an_unclaimed_file_that_looks_like_an_eval_set_or_cannot_be_sniffed_stays_adk(tmp_path, content):
    # ADK's loader then explains what is wrong with it, as before.
    path = _file(tmp_path, "a.json", content)
    assert formats.choose_format(path, finder=_finder(lines=Lines)) is None


def test_a_file_no_format_claims_is_refused_with_the_installed_formats(tmp_path):
    path = _file(tmp_path, "trace.json", '{"resourceSpans": []}')
    with pytest.raises(DataError) as info:
        formats.choose_format(path, finder=_finder(lines=Lines))
    message = str(info.value)
    assert message.startswith(f"{path}: not an ADK eval set (its top-level keys are 'resourceSpans')")
    assert "Installed formats: adk (built in: ADK eval sets), lines." in message
    assert "--format-in NAME" in message and "agenteval-otel" in message


def test_format_in_overrides_the_content(tmp_path):
    path = _file(tmp_path, "a.json", '{"eval_set_id": "s", "eval_cases": []}')
    assert formats.choose_format(path, "lines", finder=_finder(lines=Lines)) is Lines
    assert formats.choose_format(tmp_path / "x.json", "adk", finder=_finder(lines=Lines)) is None
    with pytest.raises(
        PluginLoadError, match=r"--format-in 'nope' is not an installed data format; installed: adk"
    ):
        formats.choose_format(path, "nope", finder=_finder(lines=Lines))


def test_a_reader_that_breaks_is_one_data_error_naming_it_and_the_file(tmp_path):
    path = _file(tmp_path, "t.json", '{"lines": []}')
    with pytest.raises(DataError) as info:
        formats.read_in_format(Broken, path, [])
    assert str(info.value).startswith(f"{path}: the data format reader Broken (")
    assert "KeyError: 'lines'" in str(info.value)


def test_a_reader_s_data_error_gets_the_file_as_its_source(tmp_path):
    class Refuses(Lines):
        def read_actual(self, path: Path, cases: Sequence[EvalCase]) -> EvalSet:
            raise DataError("line 3: not a span")

    path = _file(tmp_path, "t.json", '{"lines": []}')
    with pytest.raises(DataError, match=rf"^{path}: line 3: not a span$"):
        formats.read_in_format(Refuses, path, [])


def _project(tmp_path: Path) -> tuple[Path, Path]:
    expected = tmp_path / "e.evalset.json"
    eval_set = EvalSet(
        eval_set_id="e",
        eval_cases=[make_case([make_invocation(f"q{i}", f"answer {i}")], eval_id=f"c{i}") for i in (1, 2)],
    )
    expected.write_text(eval_set.model_dump_json(), encoding="utf-8")
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.8}}))
    rows = [
        {"case": "c1", "user": "q1", "answer": "answer 1"},
        {"case": "c2", "user": "q2", "answer": "no idea"},
        {"case": "other", "user": "q", "answer": "ignored"},
    ]
    return expected, _file(tmp_path, "actual.lines.json", json.dumps({"lines": rows}))


def test_a_run_scores_an_actual_file_in_another_format_given_the_selected_cases(tmp_path, monkeypatch):
    monkeypatch.setattr(formats, "_finder", lambda: _finder(lines=Lines))
    expected, actual = _project(tmp_path)
    plan = plan_paths([str(expected)], [actual], registry=Registry(), judge=JudgeService())
    assert [f.path for f in plan.actual_files] == [str(actual)] and plan.actual_files[0].sha256
    assert any(w == f"{actual}: a toy warning" for w in plan.warnings)
    result = run_sync(EvalRun(plan).execute())
    assert {c.eval_id: c.status for c in result.cases()} == {"c1": Status.PASSED, "c2": Status.FAILED}


def test_the_cli_runs_with_format_in_and_refuses_it_without_actual(tmp_path, monkeypatch):
    monkeypatch.setattr(formats, "_finder", lambda: _finder(lines=Lines))
    expected, actual = _project(tmp_path)
    runner = CliRunner()
    ok = runner.invoke(
        main, ["run", str(expected), "--actual", str(actual), "--format-in", "lines", "--no-record"]
    )
    assert ok.exit_code == 1, ok.output  # c2 fails
    assert "1 passed · 1 failed" in ok.output
    bad = runner.invoke(
        main, ["run", str(expected), "--actual", str(actual), "--format-in", "nope", "--no-record"]
    )
    assert bad.exit_code == 2 and "'nope' is not an installed data format" in bad.output
    assert "Traceback" not in bad.output
    alone = runner.invoke(main, ["run", str(expected), "--agent", "x.py:f", "--format-in", "lines"])
    assert alone.exit_code == 2 and "--format-in names the data format of the --actual files" in alone.output


def test_run_command_spells_format_in():
    from agenteval._run._assemble import RunRequest, run_command

    argv = run_command(RunRequest(paths=("e.json",), actual=("t.json",), format_in="otel"))
    assert (
        argv[:6] == ["agenteval", "run", "e.json", "--actual", "t.json", "--format-in"] and argv[6] == "otel"
    )


def test_evaluate_takes_a_file_in_another_format_as_actual(tmp_path, monkeypatch):
    import agenteval

    monkeypatch.setattr(formats, "_finder", lambda: _finder(lines=Lines))
    expected, actual = _project(tmp_path)
    result = agenteval.evaluate(expected, actual, {"response_match_score": 0.8})
    assert {c.eval_id: c.status for c in result.cases()} == {"c1": Status.PASSED, "c2": Status.FAILED}


def test_leading_keys_stops_at_a_value_nested_deeper_than_the_parser_goes():
    assert leading_keys(b'{"a": 1, "b": ' + b"[" * 100_000) == ("a", "b")


class Cases(Lines):
    """The toy format holding eval cases too: ``*-lines.json`` files in a folder search."""

    eval_file_patterns = ("*-lines.json",)

    def read_eval_set(self, path: Path) -> EvalSet:
        self.warnings.append("read as cases")
        rows = json.loads(path.read_text())["lines"]
        return EvalSet(
            eval_set_id="lines",
            eval_cases=[
                make_case([make_invocation(r["user"], r["answer"])], eval_id=r["case"]) for r in rows
            ],
        )


_LINES = '{"lines": [{"case": "c1", "user": "hi", "answer": "hello"}]}'


def test_an_eval_file_in_a_format_that_holds_cases_is_read_through_it(tmp_path, monkeypatch):
    from agenteval._loading import read_eval_file

    monkeypatch.setattr(formats, "_finder", lambda: _finder(lines=Cases))
    loaded = read_eval_file(_file(tmp_path, "greet-lines.json", _LINES))
    assert loaded.format == "lines"
    assert [c.eval_id for c in loaded.eval_set.eval_cases] == ["c1"]
    assert loaded.warnings == [f"{tmp_path / 'greet-lines.json'}: read as cases"]
    assert loaded.sha256 is not None


def test_a_format_of_recorded_turns_only_is_not_asked_for_eval_cases(tmp_path, monkeypatch):
    from agenteval._loading import read_eval_file

    monkeypatch.setattr(formats, "_finder", lambda: _finder(lines=Lines))
    with pytest.raises(DataError, match="not a valid eval set"):
        read_eval_file(_file(tmp_path, "greet-lines.json", _LINES))


def test_a_folder_search_finds_the_eval_files_of_installed_formats(tmp_path, monkeypatch):
    from agenteval._loading import expand_targets

    monkeypatch.setattr(formats, "_finder", lambda: _finder(lines=Cases))
    _file(tmp_path, "greet-lines.json", _LINES)
    _file(tmp_path, "notes.json", "{}")
    assert [t.path.name for t in expand_targets([str(tmp_path)])] == ["greet-lines.json"]
    monkeypatch.setattr(formats, "_finder", lambda: _finder(lines=Lines))
    with pytest.raises(DataError, match=r"no eval files \(\*\.test\.json, \*\.evalset\.json\)"):
        expand_targets([str(tmp_path)])


def test_a_writer_is_a_plugin_kind_of_its_own():
    from agenteval._registry import FORMAT_WRITERS_GROUP
    from agenteval.plugins import FormatWriter

    class Half(FormatWriter):
        pass

    finder = PluginFinder(KINDS[FORMAT_WRITERS_GROUP], {"half": Half, "notone": Lines})
    with pytest.raises(PluginLoadError) as error:
        finder.load_many(["half", "notone"])
    assert "does not implement write" in str(error.value)
    assert "not a subclass of agenteval.plugins.FormatWriter" in str(error.value)


class _Writer(plugins.FormatWriter):
    def write(self, eval_set: EvalSet, folder: Path) -> list[Path]:
        return []


def test_format_writers_are_named_and_made_through_the_public_functions(monkeypatch):
    from agenteval._registry import FORMAT_WRITERS_GROUP

    finder = PluginFinder(KINDS[FORMAT_WRITERS_GROUP], {"lines": _Writer})
    monkeypatch.setattr(formats, "_writer_finder", lambda: finder)
    assert plugins.format_writers() == ["lines"]
    first, second = plugins.format_writer("lines"), plugins.format_writer("lines")
    assert isinstance(first, _Writer) and first is not second and first.warnings == []
    with pytest.raises(PluginLoadError, match="'csv' is not an installed data format writer.*: lines"):
        plugins.format_writer("csv")


class LazyLines(Lines):
    """``Lines`` whose cases hold their turns as a sequence that builds them when read."""

    built: list[str] = []

    def read_actual(self, path: Path, cases: Sequence[EvalCase]) -> EvalSet:
        eager = super().read_actual(path, cases)
        return EvalSet.model_construct(
            eval_set_id="lines",
            eval_cases=[
                EvalCase.model_construct(
                    eval_id=c.eval_id, conversation=_Built(c.eval_id, c.conversation or [])
                )
                for c in eager.eval_cases
            ],
        )


class _Built(Sequence):  # type: ignore[type-arg]
    def __init__(self, case_id: str, turns: list) -> None:
        self.case_id, self.turns = case_id, turns

    def __len__(self) -> int:
        return len(self.turns)

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        turn = self.turns[index].model_copy()
        LazyLines.built.append(self.case_id)
        return turn


def test_a_reader_s_turns_built_when_read_are_built_once_per_case_when_its_run_starts(tmp_path, monkeypatch):
    monkeypatch.setattr(formats, "_finder", lambda: _finder(lines=LazyLines))
    monkeypatch.setattr(LazyLines, "built", [])
    expected, actual = _project(tmp_path)
    plan = plan_paths([str(expected)], [actual], registry=Registry(), judge=JudgeService())
    assert LazyLines.built == []  # nothing built while the run is planned
    result = run_sync(EvalRun(plan).execute())
    assert {c.eval_id: c.status for c in result.cases()} == {"c1": Status.PASSED, "c2": Status.FAILED}
    assert sorted(LazyLines.built) == ["c1", "c2"]  # each case's one turn, built once


class Sessions(Lines):
    """A toy format whose files record sessions a case can start from."""

    def recorded_sessions(self, path: Path) -> dict:
        rows = json.loads(path.read_text())["lines"]
        listed = [{"session_id": r["case"], "case_id": r["case"], "first_user_text": r["user"]} for r in rows]
        return {"sessions": [{**s, "turns": 1, "findings": []} for s in listed], "notes": []}


class NotAReader:  # does not keep the contract: never loads
    @classmethod
    def claims(cls, head: bytes) -> bool:
        return True


def test_session_formats_are_the_readers_that_record_sessions_and_load():
    finder = _finder(lines=Lines, sessions=Sessions, not_a_reader=NotAReader)
    assert formats.session_formats(finder) == [Sessions]
    assert formats.session_formats(_finder()) == []


def test_a_format_without_sessions_says_so_when_asked_for_one(tmp_path):
    path = _file(tmp_path, "t.json", json.dumps({"lines": [{"case": "a", "user": "hi", "answer": "yo"}]}))
    assert Lines().recorded_sessions(path) is None
    with pytest.raises(DataError, match="the Lines format records no sessions to start a case from"):
        Lines().session_case(path, "a")
    assert Sessions().recorded_sessions(path)["sessions"][0]["first_user_text"] == "hi"


def test_a_timeline_asked_case_after_case_chooses_each_file_s_format_once(tmp_path, monkeypatch):
    """A viewer asks ``read_timeline`` of every ``--actual`` file of a run for each case it
    shows: each unchanged file's format is chosen once, however many files the run names (a
    run of 100 files read every file's head 100 times a case)."""
    formats._timeline_format.cache_clear()
    paths = [_file(tmp_path, f"set{i}.evalset.json", json.dumps({"eval_set_id": f"s{i}", "eval_cases": []}))
             for i in range(40)]  # fmt: skip
    chosen = []
    real = formats.choose_format
    monkeypatch.setattr(
        formats, "choose_format", lambda path, *a, **k: chosen.append(path) or real(path, *a, **k)
    )
    for _ in range(3):
        assert [plugins.read_timeline(path, ["i"]) for path in paths] == [None] * 40  # ADK: no timeline
    assert sorted(chosen) == sorted(paths)
    paths[0].write_text(json.dumps({"eval_set_id": "changed", "eval_cases": []}))  # a new size
    assert plugins.read_timeline(paths[0], ["i"]) is None and chosen[-1] == paths[0] and len(chosen) == 41


def test_a_format_with_no_timeline_has_none_even_for_no_turns(tmp_path, monkeypatch):
    class Plain(FormatReader):
        description = "a format without timelines"

        @classmethod
        def claims(cls, head: bytes) -> bool:
            return True

    formats._timeline_format.cache_clear()
    monkeypatch.setattr(formats, "choose_format", lambda path, *a, **k: Plain)
    path = _file(tmp_path, "plain.json", "{}")
    assert plugins.read_timeline(path, []) is None and plugins.read_timeline(path, ["i"]) is None
    formats._timeline_format.cache_clear()


def test_a_file_starts_as_an_adk_eval_file_by_its_head_alone(tmp_path):
    files = {
        "set.evalset.json": '\ufeff  {"eval_set_id": "s", "eval_cases": []}',
        "flat.test.json": '[{"query": "hi"}]',
        "trace.jsonl": '{"resourceSpans": []}\n',
        "other.json": '{"eval_cases": [], "eval_set_id": "s"}',  # ADK's, but not as it writes them
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    found = {name: formats.starts_as_eval_set(tmp_path / name) for name in files}
    assert found == {
        "set.evalset.json": True,
        "flat.test.json": True,
        "trace.jsonl": False,
        "other.json": False,
    }
    assert not formats.starts_as_eval_set(tmp_path / "missing.json")
    assert not formats.starts_as_eval_set(tmp_path)  # (a folder)
