"""The write guard of ``agenteval view --allow-write``: the token, the origin, and paths kept
inside the eval-set folders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agenteval_viewer._authoring_guard import TOKEN_HEADER, GuardRefused, PathRefused, WriteGuard

ORIGINS = ["http://127.0.0.1:8585", "http://localhost:8585"]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    evals = tmp_path / "evals"
    (evals / "sub").mkdir(parents=True)
    (evals / "a.evalset.json").write_text("{}")
    (evals / "sub" / "b.test.json").write_text("{}")
    (tmp_path / "secret.evalset.json").write_text("{}")
    return evals


def test_a_request_needs_the_sessions_token(tree: Path) -> None:
    guard = WriteGuard([tree], token="t0ken")
    guard.check_request({TOKEN_HEADER: "t0ken"}, ORIGINS)
    with pytest.raises(GuardRefused, match="needs the session's token"):
        guard.check_request({}, ORIGINS)
    with pytest.raises(GuardRefused, match="wrong session token"):
        guard.check_request({TOKEN_HEADER: "t0kem"}, ORIGINS)


def test_a_foreign_origin_is_refused_even_with_the_token(tree: Path) -> None:
    guard = WriteGuard([tree], token="t")
    guard.check_request({TOKEN_HEADER: "t", "Origin": "http://127.0.0.1:8585"}, ORIGINS)
    with pytest.raises(GuardRefused, match="another origin"):
        guard.check_request({TOKEN_HEADER: "t", "Origin": "http://evil.example"}, ORIGINS)
    with pytest.raises(GuardRefused, match="cross-site"):
        guard.check_request({TOKEN_HEADER: "t", "Sec-Fetch-Site": "cross-site"}, ORIGINS)


def test_tokens_are_random_per_session(tree: Path) -> None:
    assert WriteGuard([tree]).token != WriteGuard([tree]).token
    assert len(WriteGuard([tree]).token) >= 32


def test_paths_inside_the_folder_resolve(tree: Path) -> None:
    guard = WriteGuard([tree])
    assert guard.resolve(0, "a.evalset.json") == (tree / "a.evalset.json").resolve()
    assert guard.resolve("0", "sub/b.test.json") == (tree / "sub" / "b.test.json").resolve()
    assert guard.relative((tree / "sub" / "b.test.json").resolve()) == (0, "sub/b.test.json")


@pytest.mark.parametrize(
    ("relative", "why"),
    [
        ("../secret.evalset.json", "'..'"),
        ("sub/../../secret.evalset.json", "'..'"),
        ("./a.evalset.json", "'..'"),
        ("sub//b.test.json", "'..'"),
        ("/etc/passwd", "absolute"),
        ("C:/x.json", "absolute"),
        ("sub\\b.test.json", "backslash"),
        ("a\x00.json", "control"),
        ("", "relative to its folder"),
        ("missing.evalset.json", "there is no eval set"),
        ("a" * 300 + ".evalset.json", "at most 255 bytes"),
        ("sub/" + "é" * 130 + ".json", "at most 255 bytes"),  # 260 bytes in 134 characters
    ],
)
def test_paths_that_leave_the_folder_or_are_malformed_are_refused(
    tree: Path, relative: str, why: str
) -> None:
    with pytest.raises(PathRefused, match=why):
        WriteGuard([tree]).resolve(0, relative)


def test_a_path_too_long_for_the_file_system_is_refused_not_raised(tree: Path) -> None:
    """Each name fits, the whole does not: refused whether the file must exist or not (a
    path returned would fail as ``ENAMETOOLONG`` wherever it is looked at: a new eval set's
    folder, a trace file)."""
    relative = "/".join(["d" * 200] * 30) + "/x.evalset.json"
    guard = WriteGuard([tree])
    for must_exist in (True, False):
        with pytest.raises(PathRefused, match="the path is longer than the system takes"):
            guard.resolve(0, relative, must_exist=must_exist)


def test_a_symbolic_link_out_of_the_folder_is_refused(tree: Path) -> None:
    os.symlink(tree.parent / "secret.evalset.json", tree / "link.evalset.json")
    os.symlink(tree.parent, tree / "up")
    guard = WriteGuard([tree])
    with pytest.raises(PathRefused, match="symbolic link"):
        guard.resolve(0, "link.evalset.json")
    with pytest.raises(PathRefused, match="symbolic link"):
        guard.resolve(0, "up/secret.evalset.json", must_exist=False)


def test_unknown_folders_are_refused(tree: Path) -> None:
    guard = WriteGuard([tree])
    for index in (1, -1, "x", True, None):
        with pytest.raises(PathRefused, match="no eval-set folder"):
            guard.resolve(index, "a.evalset.json")
