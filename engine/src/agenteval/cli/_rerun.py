"""The command that reruns some cases of a recorded run: ``agenteval run FILE:CASE,...``
followed by the options the run was started with (``--agent``/``--actual``, ``--config``,
``--criteria``...), read from its manifest's command line with ``agenteval run``'s own parser."""

from __future__ import annotations

import functools
import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING, Optional

import click

if TYPE_CHECKING:
    from ..runs import EvalSetEntry, RecordedRun

__all__ = ["rerun_command"]

_DROPPED = {"paths", "resume"}


def rerun_command(run: RecordedRun, cases: Sequence[tuple[EvalSetEntry, str]] = ()) -> Optional[str]:
    """``agenteval run FILE:CASE,... <the run's own options>`` for ``cases`` (eval set, case
    id). With no ``cases``: the run's own eval paths as it was given them (a ``FILE:CASE``
    selection stays one), else every eval file of the run. ``None`` when the run's eval files
    are unknown. ``--resume`` is left out; everything else the run was given is kept."""
    recorded = _recorded(run)
    by_file: dict[str, list[str]] = {}
    if cases:
        for entry, case_id in cases:
            if entry.path:
                by_file.setdefault(entry.path, []).append(case_id)
    elif recorded is not None and recorded[0]:
        by_file = dict.fromkeys(recorded[0], [])
    else:
        by_file = {entry.path: [] for entry in run.manifest.eval_sets if entry.path}
    if not by_file:
        return None
    words = [f"{path}:{','.join(ids)}" if ids else path for path, ids in by_file.items()]
    options = recorded[1] if recorded is not None else _inputs(run)
    return shlex.join(["agenteval", "run", *words, *options])


def _recorded(run: RecordedRun) -> Optional[tuple[list[str], list[str]]]:
    """The eval paths and the options of the run's recorded ``agenteval run`` command line;
    ``None`` when it was not one (a run started from the API) or does not parse."""
    argv = tuple(run.manifest.argv)
    if "run" not in argv:
        return None
    found = _parsed(argv[argv.index("run") + 1 :])
    return None if found is None else (list(found[0]), list(found[1]))


def _inputs(run: RecordedRun) -> list[str]:
    """Where the turns came from, for a run with no command line: its agent or actuals."""
    if run.manifest.agent and run.manifest.agent.get("target"):
        return ["--agent", str(run.manifest.agent["target"])]
    return [word for item in run.manifest.actual_files for word in ("--actual", item.path)]


@functools.lru_cache(maxsize=8)
def _parsed(args: tuple[str, ...]) -> Optional[tuple[tuple[str, ...], tuple[str, ...]]]:
    """``args`` (what followed ``agenteval run``) as its eval paths and its options without
    ``--resume``, each option under its own name; ``None`` when they do not parse. Parsed
    once per command line (a report asks for each case's rerun command)."""
    from ._run import run as run_command

    parser = run_command.make_parser(click.Context(run_command))
    try:
        values, _, order = parser.parse_args(list(args))
    except click.ClickException:
        return None
    words: list[str] = []
    for param in dict.fromkeys(order):
        if param.name in _DROPPED or not isinstance(param, click.Option) or param.name not in values:
            continue
        value = values[param.name]
        if param.is_flag:
            words.append(param.opts[0] if value or not param.secondary_opts else param.secondary_opts[0])
            continue
        for item in value if param.multiple else [value]:
            words += [param.opts[0], str(item)]
    return tuple(str(path) for path in values.get("paths") or ()), tuple(words)
