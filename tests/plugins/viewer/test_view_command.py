"""``agenteval view``: what it serves, what it opens, and its loud failures (exit 2)."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import agenteval_viewer_server_test_helpers as helpers
import pytest
from agenteval_viewer import _view_command
from agenteval_viewer._server import ViewerServer
from click.testing import CliRunner


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch) -> Path:
    """The viewer's disk cache goes to a temporary folder, never the user's."""
    folder = tmp_path / "viewer-cache"
    monkeypatch.setenv("AGENTEVAL_VIEWER_CACHE", str(folder))
    return folder


@pytest.fixture
def served(monkeypatch, tmp_path):
    """Records what ``view`` would serve and open; serving stops at once, as after Ctrl-C.
    Runs in an empty folder, so no ``.agenteval/runs`` of the caller's is found."""
    seen: dict = {"opened": []}
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    monkeypatch.chdir(workdir)

    def serve_forever(self, poll_interval=0.5):
        seen["server"] = self
        seen["port"] = self.port
        raise KeyboardInterrupt

    monkeypatch.setattr(ViewerServer, "serve_forever", serve_forever)
    monkeypatch.setattr(_view_command, "_open_browser", seen["opened"].append)
    monkeypatch.delenv("AGENTEVAL_RUNS_DIR", raising=False)
    return seen


def _view(*args: str):
    from agenteval.cli import main

    return CliRunner().invoke(main, ["view", *args])


def test_a_runs_folder_opens_its_newest_run(served, runs_dir, run_ids):
    result = _view(str(runs_dir), "--port", "0")
    assert result.exit_code == 0, result.output
    url = f"http://127.0.0.1:{served['port']}/#/run/{run_ids[-1]}"
    assert url in result.stdout
    assert served["opened"] == [url]
    assert served["server"].runs_dir == runs_dir.resolve()
    assert "stopped" in result.stderr


def test_a_run_folder_serves_its_runs_folder_and_opens_that_run(served, runs_dir, run_ids):
    result = _view(str(runs_dir / run_ids[0]), "--port", "0", "--no-open")
    assert result.exit_code == 0, result.output
    assert f"/#/run/{run_ids[0]}" in result.stdout
    assert served["opened"] == []
    assert served["server"].runs_dir == runs_dir.resolve()


def test_a_run_id_prefix_in_runs_dir_opens_that_run(served, runs_dir, run_ids):
    result = _view(run_ids[0][:22], "--runs-dir", str(runs_dir), "--port", "0", "--no-open")
    assert result.exit_code == 0, result.output
    assert f"/#/run/{run_ids[0]}" in result.stdout


def test_the_runs_folder_comes_from_the_environment(served, runs_dir, run_ids, monkeypatch):
    monkeypatch.setenv("AGENTEVAL_RUNS_DIR", str(runs_dir))
    result = _view("--port", "0", "--no-open")
    assert result.exit_code == 0, result.output
    assert f"/#/run/{run_ids[-1]}" in result.stdout


def test_an_empty_runs_folder_opens_the_history(served, tmp_path):
    result = _view(str(tmp_path), "--port", "0", "--no-open")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().endswith(f"http://127.0.0.1:{served['port']}/  (Ctrl-C stops)")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{tmp}/nowhere/at-all"], "there is no folder"),
        (["nowhere/at-all", "--runs-dir", "{tmp}"], "there is no folder"),
        (["no[such", "--runs-dir", "{tmp}"], "no run 'no[such'"),
        (["{file}"], "is a file"),
        (["--runs-dir", "{tmp}/missing"], "there is no runs folder"),
        (["{tmp}", "--runs-dir", "{tmp}"], "not both"),
        (["no-such-run", "--runs-dir", "{tmp}"], "no run 'no-such-run'"),
    ],
)
def test_a_bad_path_is_one_message_and_exit_2(served, tmp_path, args, message):
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    args = [a.format(tmp=tmp_path, file=tmp_path / "file.txt") for a in args]
    result = _view(*args, "--port", "0", "--no-open")
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and message in result.stderr
    assert "Traceback" not in result.output and "server" not in served


def test_a_busy_port_is_exit_2_with_the_fix(served, runs_dir):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = _view(str(runs_dir), "--port", str(port), "--no-open")
    assert result.exit_code == 2
    assert result.stderr == f"error: port {port} is in use; give --port 0 or another port\n"


def test_a_non_loopback_host_needs_allow_remote(served, runs_dir):
    result = _view(str(runs_dir), "--host", "0.0.0.0", "--port", "0", "--no-open")
    assert result.exit_code == 2
    assert "--allow-remote" in result.stderr and "server" not in served


def test_allow_remote_serves_with_a_warning(served, runs_dir):
    result = _view(str(runs_dir), "--host", "0.0.0.0", "--port", "0", "--no-open", "--allow-remote")
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("warning: serving on '0.0.0.0'")
    assert served["server"].allow_remote
    assert f"http://127.0.0.1:{served['port']}/" in result.stdout


def test_an_unknown_host_is_exit_2(served, runs_dir):
    result = _view(str(runs_dir), "--host", "192.0.2.1", "--port", "0", "--no-open", "--allow-remote")
    assert result.exit_code == 2
    assert "cannot listen on --host '192.0.2.1'" in result.stderr


def test_opening_a_browser_never_fails(monkeypatch):
    import webbrowser

    called = threading.Event()

    def broken(url):
        called.set()
        raise webbrowser.Error("no runnable browser")

    monkeypatch.setattr(webbrowser, "open", broken)
    _view_command._open_browser("http://127.0.0.1:1/")
    assert called.wait(5)


def test_the_command_serves_until_interrupted(runs_dir, run_ids, monkeypatch):
    """A real server: the printed address answers, Ctrl-C (KeyboardInterrupt) stops it."""
    import _thread

    monkeypatch.setattr(_view_command, "_open_browser", lambda url: None)
    results = {}
    original = ViewerServer.serve_forever

    def serve_forever(self, poll_interval=0.5):
        results["server"] = self

        def probe():
            results["answer"] = helpers.get_json(self, "/api/runs")
            _thread.interrupt_main()

        threading.Thread(target=probe, daemon=True).start()
        original(self, poll_interval)

    monkeypatch.setattr(ViewerServer, "serve_forever", serve_forever)
    result = _view(str(runs_dir), "--port", "0")
    assert result.exit_code == 0, result.output
    status, document = results["answer"]
    assert status == 200 and [r["run_id"] for r in document["runs"]] == run_ids[::-1]


def test_the_disk_cache_is_used_unless_no_cache(served, runs_dir, cache_dir):
    assert _view(str(runs_dir), "--port", "0", "--no-open").exit_code == 0
    assert served["server"].store._disk.folder == cache_dir
    assert _view(str(runs_dir), "--port", "0", "--no-open", "--no-cache").exit_code == 0
    assert served["server"].store._disk is None


def test_help_lists_the_options():
    result = _view("--help")
    assert result.exit_code == 0
    for option in ("--host", "--port", "--no-open", "--runs-dir", "--allow-remote", "--no-cache", "--labels"):
        assert option in result.stdout


def test_labelling_goes_to_each_run_folder_or_the_labels_file_and_is_off_for_a_remote_host(
    served, runs_dir, run_ids, tmp_path
):
    assert _view(str(runs_dir), "--port", "0", "--no-open").exit_code == 0
    run_folder = runs_dir / run_ids[0]
    labelling = served["server"].labelling
    assert labelling.file_for(run_folder).path == (run_folder / "labels.jsonl").absolute()
    given = tmp_path / "mine.jsonl"
    assert _view(str(runs_dir), "--port", "0", "--no-open", "--labels", str(given)).exit_code == 0
    assert served["server"].labelling.file_for(run_folder).path == given.absolute()
    result = _view(str(runs_dir), "--host", "0.0.0.0", "--port", "0", "--no-open", "--allow-remote")
    assert result.exit_code == 0, result.output
    assert served["server"].labelling is None
