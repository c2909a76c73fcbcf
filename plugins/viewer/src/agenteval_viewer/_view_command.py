"""``agenteval view [RUNS_DIR|RUN]``: the local viewer over recorded runs.

Module-level imports stay light (click only): ``agenteval --help`` lists this command.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

import click
from agenteval.plugins import RUNS_DIR_OPTION, runs_folder

__all__ = ["view"]

_USAGE = 2


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(_USAGE)


def _target(target: Optional[str], runs_dir: Optional[Path]) -> tuple[Path, Optional[str]]:
    """(the runs folder to serve, the run to open first): TARGET is a run folder, a runs
    folder, or a run id (or unique prefix, or ``latest``) in ``--runs-dir``."""
    from agenteval.errors import ConfigError
    from agenteval.runs import find_run, list_runs

    if target is not None:
        path = Path(target)
        if (path / "manifest.json").is_file():
            folder = path.resolve()
            return folder.parent, folder.name
        if path.is_dir():
            if runs_dir is not None:
                _fail(f"give a runs folder either as RUNS_DIR ({target!r}) or with --runs-dir, not both")
            return path.resolve(), _newest(list_runs(path))
        if path.exists():
            _fail(f"{target!r} is a file; give a runs folder, a run folder or a run id")
        if "/" in target or "\\" in target or target.startswith("."):
            _fail(f"there is no folder {target!r}; give a runs folder, a run folder or a run id")
    folder = runs_folder(runs_dir)
    if target is not None:
        try:
            return folder, find_run(folder, target).run_id
        except ConfigError as exc:
            _fail(str(exc))
        except (OSError, ValueError, NotImplementedError) as exc:  # a name glob cannot take
            _fail(f"no run {target!r} in {str(folder)!r} ({exc}); list them with: agenteval runs list")
    if not folder.is_dir():
        _fail(
            f"there is no runs folder {str(folder)!r}; record a run with agenteval run first, "
            "or give the folder (agenteval view DIR, --runs-dir DIR or $AGENTEVAL_RUNS_DIR)"
        )
    return folder, _newest(list_runs(folder))


def _authoring(dirs: tuple[str, ...], host: str, runs_folder: Path) -> Any:
    """The authoring API over the eval-set folders ``dirs`` (exit 2 for a missing folder or
    a host other machines can reach)."""
    from ._authoring_api import Authoring
    from ._authoring_guard import WriteGuard
    from ._server import is_loopback

    if not is_loopback(host):
        _fail(
            f"--allow-write serves only a loopback address, not --host {host!r}: it writes files and "
            "runs agents on this machine. Drop --host, or drop --allow-write"
        )
    folders = []
    for name in dict.fromkeys(dirs):
        path = Path(name)
        if not path.is_dir():
            _fail(f"--allow-write {name!r}: there is no such folder; give the folder of your eval sets")
        folders.append(path)
    runs_folder.mkdir(parents=True, exist_ok=True)
    return Authoring(WriteGuard(folders), runs_folder)


def _newest(runs: list[Any]) -> Optional[str]:
    return runs[-1].run_id if runs else None


def _open_browser(url: str) -> None:
    """Open ``url`` in the user's browser, in the background; never fails the command."""
    import threading

    def open_it() -> None:
        import webbrowser

        try:
            webbrowser.open(url)
        except Exception:  # noqa: BLE001 - no browser is fine: the URL is printed
            pass

    threading.Thread(target=open_it, daemon=True).start()


@click.command()
@click.argument("target", metavar="[RUNS_DIR|RUN]", required=False)
@RUNS_DIR_OPTION
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8585,
    show_default=True,
    help="The port to listen on (0: any free port).",
)
@click.option("--no-open", is_flag=True, help="Print the address without opening a browser.")
@click.option(
    "--no-cache",
    is_flag=True,
    help="Do not keep finished runs' case indexes between sessions "
    "(in $AGENTEVAL_VIEWER_CACHE, else ~/.cache/agenteval/viewer).",
)
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Allow a --host other machines can reach (the viewer stays read-only, with no login).",
)
@click.option(
    "--allow-write",
    "allow_write",
    multiple=True,
    is_flag=False,
    flag_value=".",
    metavar="[EVAL_DIR]",
    help="Build eval sets in the browser: chat with an agent, edit and run cases. Writes go only "
    "to eval-set files under EVAL_DIR (repeatable; default: the current folder); loopback only, "
    "with a per-session token in the address printed.",
)
@click.option(
    "--labels",
    "labels_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The file the case drawer writes human labels to, for `agenteval calibrate RUN --labels FILE` "
    "(default: labels.jsonl in each run's folder). Labelling is on with a loopback --host only.",
)
def view(
    target: Optional[str],
    runs_dir: Optional[Path],
    host: str,
    port: int,
    no_open: bool,
    no_cache: bool,
    allow_remote: bool,
    allow_write: tuple[str, ...] = (),
    labels_file: Optional[Path] = None,
) -> None:
    """Browse recorded runs in a local, read-only viewer (live while a run is going).

    RUNS_DIR is a runs folder (default: $AGENTEVAL_RUNS_DIR, else .agenteval/runs); RUN is a
    run folder, or a run id in the runs folder, which opens first. The server listens on
    127.0.0.1 only and answers no other host name; Ctrl-C stops it.
    """
    import errno
    import socket
    from urllib.parse import quote

    from ._disk_cache import default_cache_dir
    from ._labels_api import Labelling
    from ._server import ViewerServer, is_loopback

    if allow_write and target is None:  # authoring records its runs there: the folder may be new
        runs_folder(runs_dir).mkdir(parents=True, exist_ok=True)
    folder, first = _target(target, runs_dir)
    authoring = _authoring(allow_write, host, folder) if allow_write else None
    if not is_loopback(host):
        if not allow_remote:
            _fail(
                f"--host {host!r} is not a loopback address: other machines could read every run "
                "(agent outputs, judge reasoning). Pass --allow-remote as well if that is what you want"
            )
        click.echo(
            f"warning: serving on {host!r}: anyone who can reach this machine can read these runs "
            "(read-only, no login)",
            err=True,
        )
    try:
        cache_dir = None if no_cache else default_cache_dir()
        labelling = Labelling(labels_file) if is_loopback(host) else None
        server = ViewerServer(
            folder,
            host,
            port,
            allow_remote=allow_remote,
            cache_dir=cache_dir,
            authoring=authoring,
            labelling=labelling,
        )
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            _fail(f"port {port} is in use; give --port 0 or another port")
        if exc.errno == errno.EACCES:
            _fail(f"not allowed to listen on port {port}; give a port above 1023, or --port 0")
        if isinstance(exc, socket.gaierror) or exc.errno == errno.EADDRNOTAVAIL:
            _fail(f"cannot listen on --host {host!r}: {exc.strerror or exc}; give an address of this machine")
        _fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
        return
    url = server.url + (f"#/run/{quote(first, safe='')}" if first else "")
    if authoring is not None:
        url = server.url + "#/author?token=" + authoring.guard.token
    if first is not None:
        server.warm(first)
    click.echo(f"agenteval view: {str(folder)!r} at {url}  (Ctrl-C stops)")
    if not no_open:
        _open_browser(url)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        click.echo("agenteval view: stopped", err=True)
    finally:
        server.stopping.set()
        server.server_close()
        server.store.flush(10.0)  # a payload being written to the disk cache is finished
