"""Running ``agenteval run --format json`` in process and reading each criterion's outcome."""

from __future__ import annotations

import json

from agenteval.cli import main
from click.testing import CliRunner


def run_scores(runner: CliRunner, *args: str) -> dict[tuple[str, str], tuple]:
    """``(case, criterion)`` → ``(score, status, per-invocation scores)`` of a run that must exit 0."""
    result = runner.invoke(main, ["run", *args, "--format", "json", "--no-record"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    return {
        (case["eval_id"], r["criterion"]): (
            r["score"],
            r["status"],
            [p["score"] for p in r["per_invocation"]],
        )
        for case in doc["eval_sets"][0]["cases"]
        for r in case["criteria"]
    }
