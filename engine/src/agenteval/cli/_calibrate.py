"""``agenteval calibrate``: a recorded run's judge verdicts against human labels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import click

from ._exit import reports_errors
from ._options import RUNS_DIR_OPTION, runs_folder

if TYPE_CHECKING:
    from .._results import IntervalInfo
    from ..calibration import CalibrationCard

__all__ = ["calibrate"]


@click.command("calibrate")
@click.argument("run_ref", metavar="RUN")
@click.option(
    "--labels",
    "labels_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help=(
        'Human labels, JSONL: {"eval_id": ..., "criterion": ..., "label": "pass"|"fail"} a line, '
        "optionally invocation_id, score (0 to 1) and note."
    ),
)
@click.option(
    "--format", "output_format", type=click.Choice(["table", "json"]), default="table", show_default=True
)
@click.option(
    "--confidence",
    type=click.FloatRange(0.5, 0.999),
    default=0.95,
    show_default=True,
    help="The level of the intervals (kappa, accuracy, sensitivity, specificity).",
)
@RUNS_DIR_OPTION
@reports_errors
def calibrate(
    run_ref: str, labels_path: Path, output_format: str, confidence: float, runs_dir: Optional[Path]
) -> None:
    """How a recorded run's judge verdicts agree with human labels: a calibration card per
    labelled criterion (Cohen's kappa with an interval, base rate, accuracy, sensitivity,
    specificity, rank correlation), bound to the criterion's version, judge model and
    prompt hash, and kept in the run folder's calibration.json.

    RUN is an id, its prefix, a run folder, or latest. Exit codes: 0 cards written, 2 a bad
    labels file or no labelled criterion in the run.
    """
    from ..calibration import calibrate as make_cards
    from ..calibration import read_labels, write_cards
    from ..errors import DataError
    from ..runs import find_run

    run = find_run(runs_folder(runs_dir), run_ref)
    labels = read_labels(labels_path)
    cards = make_cards(run, labels, labels_path, level=confidence)
    missing = list(
        dict.fromkeys(x.criterion for x in labels if x.criterion not in {c.criterion for c in cards})
    )
    if not cards:
        named = ", ".join(dict.fromkeys(e.name for s in run.manifest.eval_sets for e in s.criteria))
        raise DataError(
            f"run {run.run_id} has none of the labelled criteria ({', '.join(map(repr, missing))}); "
            f"label one of its criteria: {named}",
            source=str(labels_path),
        )
    path = write_cards(run, cards)
    if output_format == "json":
        document = {
            "run_id": run.run_id,
            "cards": [c.model_dump(mode="json") for c in cards],
            "missing": missing,
        }
        click.echo(json.dumps(document, indent=2))
    else:
        from .._terminal import visible

        for card in cards:
            click.echo(_card_text(card))
        for name in missing:
            click.echo(f"no criterion {visible(name)} in run {run.run_id}: its labels were not used")
    click.echo(f"calibration card(s) kept in {path}", err=True)


def _interval(info: IntervalInfo) -> str:
    if info.method == "no-data" or info.estimate is None:
        return "n/a"
    return f"{info.estimate:.2f} [{info.low:.2f}, {info.high:.2f}]"


def _card_text(card: CalibrationCard) -> str:
    """The card as a few terminal lines (untrusted names escaped)."""
    from .._terminal import visible

    judges = visible(", ".join(card.judge_models) or "none")
    prompt = visible(card.prompt_sha256 or "-")[:12]
    rank = "" if card.rank_correlation is None else f"; Kendall's tau-b {card.rank_correlation:.2f}"
    lines = [
        f"{visible(card.criterion)} ({visible(card.criterion_version)}; judge {judges}; prompt {prompt})",
        f"  {card.n} labelled verdict(s): people passed {card.base_rate:.0%}, judge {card.judge_rate:.0%}",
        f"  Cohen's kappa {card.kappa_text()} ({card.accuracy.level:.0%} interval); "
        f"accuracy {_interval(card.accuracy)}",
        f"  sensitivity {_interval(card.sensitivity)}; specificity {_interval(card.specificity)}{rank}",
    ]
    if card.unmatched:
        reasons: dict[str, int] = {}
        for item in card.unmatched:
            reasons[item.reason] = reasons.get(item.reason, 0) + 1
        counted = ", ".join(f"{n} {reason}" for reason, n in reasons.items())
        lines.append(f"  {len(card.unmatched)} label(s) not compared: {counted}")
    return "\n".join(lines)
