"""``loading/_selection.py``: PATH arguments -> eval files, case selections, configs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agenteval._loading import CONFIG_FILE_NAME, EvalTarget, expand_targets
from agenteval.errors import DataError


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """root/a.test.json, root/sub/b.evalset.json, root/sub/deeper/c.TEST.JSON,
    root/sub/test_config.json and some files that are not eval files."""
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    for name in [
        "a.test.json",
        "sub/b.evalset.json",
        "sub/deeper/c.TEST.JSON",
        "sub/test_config.json",
        "notes.json",
        "sub/actual.json",
        "readme.md",
    ]:
        (tmp_path / name).write_text("{}", encoding="utf-8")
    return tmp_path


def test_a_file(tree):
    assert expand_targets([str(tree / "a.test.json")]) == [EvalTarget(tree / "a.test.json")]


def test_any_file_name_is_accepted_when_named_directly(tree):
    [target] = expand_targets([str(tree / "notes.json")])
    assert target.path == tree / "notes.json" and target.case_ids is None


def test_folder_expands_recursively_to_eval_files_only(tree):
    targets = expand_targets([str(tree)])
    assert [t.path.relative_to(tree).as_posix() for t in targets] == [
        "a.test.json",
        "sub/b.evalset.json",
        "sub/deeper/c.TEST.JSON",
    ]
    assert all(t.case_ids is None for t in targets)


def test_case_selection(tree):
    [target] = expand_targets([f"{tree / 'a.test.json'}:case_a, case_b,,"])
    assert target == EvalTarget(tree / "a.test.json", ("case_a", "case_b"))


def test_empty_selection_means_all_cases(tree):
    [target] = expand_targets([f"{tree / 'a.test.json'}:"])
    assert target.case_ids is None


def test_same_file_twice_merges_selections(tree):
    file = tree / "a.test.json"
    [target] = expand_targets([f"{file}:x,y", f"{file}:y,z"])
    assert target.case_ids == ("x", "y", "z")
    [target] = expand_targets([f"{file}:x", str(file)])
    assert target.case_ids is None
    [target] = expand_targets([str(file), f"{file}:x"])
    assert target.case_ids is None


def test_file_in_a_folder_and_the_folder(tree):
    targets = expand_targets([f"{tree / 'a.test.json'}:x", str(tree)])
    assert len(targets) == 3
    assert targets[0].case_ids is None


def test_a_file_whose_name_contains_a_colon(tmp_path):
    if os.name == "nt":
        pytest.skip("no colons in Windows file names")
    path = tmp_path / "odd:name.test.json"
    path.write_text("{}", encoding="utf-8")
    assert expand_targets([str(path)]) == [EvalTarget(path)]


def test_missing_file(tmp_path):
    with pytest.raises(DataError) as info:
        expand_targets([str(tmp_path / "nope.test.json")])
    assert str(info.value) == f"{tmp_path / 'nope.test.json'}: no such file or folder"


@pytest.mark.parametrize("argument", ["", "  ", ":a,b"])
def test_an_empty_path_names_no_file_not_the_current_folder(tree, monkeypatch, argument):
    monkeypatch.chdir(tree)  # a folder of eval files, which Path("") would name
    with pytest.raises(DataError) as info:
        expand_targets([argument])
    assert str(info.value) == (
        f"PATH argument: {argument!r} names no file: give an eval file or folder (is a shell variable unset?)"
    )


def test_missing_file_with_selection_names_the_file(tmp_path):
    with pytest.raises(DataError) as info:
        expand_targets([f"{tmp_path / 'nope.test.json'}:a,b"])
    assert str(info.value).startswith(f"{tmp_path / 'nope.test.json'}: no such file")


def test_selection_on_a_folder(tree):
    with pytest.raises(DataError) as info:
        expand_targets([f"{tree}:a"])
    assert "applies to a file, not a folder" in str(info.value)


def test_folder_without_eval_files(tmp_path):
    (tmp_path / "x.json").write_text("{}", encoding="utf-8")
    with pytest.raises(DataError) as info:
        expand_targets([str(tmp_path)])
    assert "the folder has no eval files (*.test.json, *.evalset.json" in str(info.value)


def test_beside_config(tree):
    by_name = {t.path.name: t for t in expand_targets([str(tree)])}
    assert by_name["a.test.json"].beside_config() is None
    assert by_name["b.evalset.json"].beside_config() == tree / "sub" / CONFIG_FILE_NAME
    assert by_name["c.TEST.JSON"].beside_config() is None  # only the file's own folder


def test_folder_expansion_skips_hidden_and_dependency_folders(tree):
    for name in [".venv/lib/x.test.json", ".adk/eval_history/y.evalset.json", "node_modules/z.test.json"]:
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text("{}", encoding="utf-8")
    found = {t.path.relative_to(tree).as_posix() for t in expand_targets([str(tree)])}
    assert found == {"a.test.json", "sub/b.evalset.json", "sub/deeper/c.TEST.JSON"}


# -- paths the system cannot take, names no tool can show --------------------------------------


@pytest.mark.parametrize("argument", ["x" * 300 + ".test.json", "dir/" + "y" * 256, "é" * 200 + ".json"])
def test_a_name_over_255_bytes_is_a_clear_error(argument):
    with pytest.raises(DataError) as info:
        expand_targets([argument])
    message = str(info.value)
    assert message.startswith("PATH argument: a file or folder name of ")
    assert "a name is at most 255 bytes: give a shorter path" in message
    assert len(message) < 250


def test_a_path_over_the_system_limit_is_a_clear_error():
    argument = "/".join(["d" * 200] * 30)  # 6,000 bytes of short enough names
    with pytest.raises(DataError) as info:
        expand_targets([argument])
    assert "the path is 6,029 bytes, longer than the system takes" in str(info.value)


def test_a_long_case_selection_on_an_existing_file_is_a_selection(tree):
    long_id = "c" * 400
    [target] = expand_targets([f"{tree / 'a.test.json'}:{long_id}"])
    assert target.case_ids == (long_id,)


@pytest.mark.parametrize("name", ["bad\nname.test.json", "bell\x07.evalset.json", "esc\x1b[2J.test.json"])
def test_an_eval_file_with_a_control_character_in_its_name_is_an_error(tmp_path, name):
    (tmp_path / "fine.test.json").write_text("{}", encoding="utf-8")
    (tmp_path / name).write_text("{}", encoding="utf-8")
    with pytest.raises(DataError) as info:
        expand_targets([str(tmp_path)])
    message = str(info.value)
    assert "has a control character" in message and "rename it" in message
    assert "\n" not in message and "\x07" not in message and "\x1b" not in message


def test_a_nul_character_in_a_path_is_a_clear_error():
    with pytest.raises(DataError) as info:
        expand_targets(["a\x00b.test.json"])
    assert str(info.value) == "a\\x00b.test.json: the path has a NUL character, which no file name can hold"
