"""The command that reruns some cases of a recorded run: ``agenteval run FILE:CASE,...``
followed by the options the run was started with (``--agent``/``--actual``, ``--config``,
``--criteria``...), read from its manifest's command line with ``agenteval run``'s own parser."""

from __future__ import annotations

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
    id); every eval file of the run when ``cases`` is empty. ``None`` when the run's eval
    files are unknown. ``--resume`` is left out; everything else the run was given is kept."""
    by_file: dict[str, list[str]] = {}
    if cases:
        for entry, case_id in cases:
            if entry.path:
                by_file.setdefault(entry.path, []).append(case_id)
    else:
        by_file = {entry.path: [] for entry in run.manifest.eval_sets if entry.path}
    if not by_file:
        return None
    words = [f"{path}:{','.join(ids)}" if ids else path for path, ids in by_file.items()]
    return shlex.join(["agenteval", "run", *words, *_options(run)])


def _options(run: RecordedRun) -> list[str]:
    """The run's options as ``agenteval run`` words: parsed from the recorded command line
    when it was ``agenteval run``, else (a run started from the API) its agent or actuals."""
    argv = list(run.manifest.argv)
    if "run" in argv:
        parsed = _parsed(argv[argv.index("run") + 1 :])
        if parsed is not None:
            return parsed
    if run.manifest.agent and run.manifest.agent.get("target"):
        return ["--agent", str(run.manifest.agent["target"])]
    return [word for item in run.manifest.actual_files for word in ("--actual", item.path)]


def _parsed(args: list[str]) -> Optional[list[str]]:
    """``args`` (what followed ``agenteval run``) without the eval paths and ``--resume``,
    each option under its own name; ``None`` when they do not parse."""
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
    return words
