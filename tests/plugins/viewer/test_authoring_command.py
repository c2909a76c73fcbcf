"""``agenteval view --allow-write``: refused on a non-loopback host and for a missing folder
(exit 2, one message); without it the server has no authoring routes."""

from __future__ import annotations

from pathlib import Path

import pytest
from agenteval_viewer._view_command import view
from click.testing import CliRunner


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    folder = tmp_path / "runs"
    folder.mkdir()
    return folder


def test_allow_write_refuses_a_host_other_machines_can_reach(runs: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        view, [str(runs), "--allow-write", str(tmp_path), "--host", "0.0.0.0", "--allow-remote", "--no-open"]
    )
    assert result.exit_code == 2
    assert "--allow-write serves only a loopback address" in result.output
    assert "Traceback" not in result.output


def test_allow_write_refuses_a_missing_folder(runs: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(view, [str(runs), "--allow-write", str(tmp_path / "nope"), "--no-open"])
    assert result.exit_code == 2
    assert "there is no such folder" in result.output
