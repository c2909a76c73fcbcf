"""Recorded figures, shared by the benchmarks whose figures a doc quotes: each ``--write``
run merges its rows into the script's JSON file (a row replaces the recorded one with the
same key, so separate runs of one script, e.g. another agent speed, build one file), each row
with the machine's load and CPU count when it was measured. The script's ``doc_lines``
words them, and a test under ``tests/docs/`` holds the doc to those words."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any


def machine() -> dict[str, Any]:
    """The 1-minute load average and the CPU count, for a row measured now."""
    return {"load": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}


def record(path: Path, rows: Iterable[dict[str, Any]], key: Sequence[str]) -> list[dict[str, Any]]:
    """Merge ``rows`` into the figures at ``path`` (a row replaces the one with the same
    values of ``key``); the rows now recorded, in the order first recorded."""
    kept = load(path)
    place = {tuple(row[k] for k in key): i for i, row in enumerate(kept)}
    for row in rows:
        found = place.get(tuple(row[k] for k in key))
        if found is None:
            place[tuple(row[k] for k in key)] = len(kept)
            kept.append(row)
        else:
            kept[found] = row
    path.write_text(json.dumps({"rows": kept}, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return kept


def load(path: Path) -> list[dict[str, Any]]:
    """The rows recorded at ``path`` (none when there is no file)."""
    if not path.exists():
        return []
    return list(json.loads(path.read_text(encoding="utf-8"))["rows"])


def loads_of(rows: Iterable[dict[str, Any]]) -> str:
    """The loads the rows were measured at, as a doc says it: ``0.4-1.2`` (or one value)."""
    values = sorted(row["load"] for row in rows)
    low, high = values[0], values[-1]
    return f"{low:.1f}" if f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f}-{high:.1f}"


def measured_on(rows: Sequence[dict[str, Any]]) -> str:
    """Where the rows were measured, as a doc says it: ``on 2 CPUs at a load of 0.4-1.2``;
    with a ``repeat`` in each row, the median's count first (``the median of 3 runs, ...``)."""
    where = f"on {rows[0]['cpus']} CPUs at a load of {loads_of(rows)}"
    repeats = sorted({row["repeat"] for row in rows if "repeat" in row})
    return f"the median of {' or '.join(map(str, repeats))} runs, {where}" if repeats else where


def table_row(cells: Iterable[str]) -> str:
    """A Markdown table row of ``cells``."""
    return "| " + " | ".join(cells) + " |"


def write_option(parser: argparse.ArgumentParser, path: Path, doc: str, *, merges: bool = True) -> None:
    """The script's ``--write [PATH]`` option (default ``path``), for ``doc``; ``merges``: the
    rows measured are merged into the recorded ones (``write``), else they replace them."""
    what = "merge the rows into the recorded figures" if merges else "record the figures"
    parser.add_argument(
        "--write",
        nargs="?",
        const=str(path),
        metavar="PATH",
        help=f"{what} (default {path.name}, beside this script) for {doc}",
    )


def write(
    path: str,
    rows: Iterable[dict[str, Any]],
    key: Sequence[str],
    doc_lines: Callable[[list[dict[str, Any]]], dict[str, str]],
    doc: str,
) -> None:
    """``--write``: ``rows`` merged into the figures at ``path`` (``record``), then the
    lines ``doc`` quotes of all the recorded rows printed."""
    recorded = record(Path(path), rows, key)
    print(f"\nwrote {path}; {doc} quotes:")
    for line in doc_lines(recorded).values():
        print(line)
