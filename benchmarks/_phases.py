"""Timing a command around the agent it runs: the agent writes a timestamp at its first and
last call (to the files named by ``AGENTEVAL_BENCH_FIRST`` / ``AGENTEVAL_BENCH_LAST``), so
a run splits into start-up, agent phase and exit. Shared by the overhead benchmarks."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Optional


def timed_phases(
    command: list[str], workdir: Path, extra_env: Optional[Mapping[str, str]] = None
) -> dict[str, float]:
    """Run ``command`` in ``workdir``; seconds of ``total``, ``startup`` (to the first agent
    call), ``agent_phase`` (first to last call) and ``exit`` (last call to exit)."""
    first, last = workdir / "first.txt", workdir / "last.txt"
    first.unlink(missing_ok=True)
    env = {
        **as_installed(),
        **(extra_env or {}),
        "AGENTEVAL_BENCH_FIRST": str(first),
        "AGENTEVAL_BENCH_LAST": str(last),
    }
    started = time.time()
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=workdir)
    ended = time.time()
    if done.returncode != 0:
        raise SystemExit(
            f"{command[0]} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
        )
    first_call, last_call = float(first.read_text()), float(last.read_text())
    return {
        "total": ended - started,
        "startup": first_call - started,
        "agent_phase": last_call - first_call,
        "exit": ended - last_call,
    }


def as_installed() -> dict[str, str]:
    """This process's environment with byte code written and read as an installed package's
    is (``PYTHONDONTWRITEBYTECODE`` left out: with it, a module changed since its byte code
    was last written is compiled again by every process, and the start-up measured grows)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
