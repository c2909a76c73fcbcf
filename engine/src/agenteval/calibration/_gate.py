"""The calibration gate: a gating judge criterion decides only with a current calibration card.

``statistics.calibration`` (``--calibration``) names the cards; ``statistics.min_kappa``
(``--min-kappa``) a floor on each card's κ lower bound. ``gate_for`` is resolved when the
run is planned and recorded in the manifest (``CriterionEntry.calibration``); the verdict
rules (``agenteval._verdicts``) apply it to every result, so the run folder's reader gives
the same verdicts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from ..errors import ConfigError
from ..runs import CalibrationGate, CriterionEntry
from ._card import CALIBRATION_FILE, CalibrationCard

__all__ = ["cards_path", "gate_for", "read_cards_file"]

_CALIBRATE = "label its verdicts and run `agenteval calibrate RUN --labels FILE`"


def cards_path(path: Path) -> Path:
    """The cards file ``path`` names: the file itself, or a run folder's ``calibration.json``."""
    return path / CALIBRATION_FILE if path.is_dir() else path


def read_cards_file(path: Path) -> dict[str, CalibrationCard]:
    """The cards of ``path`` (``cards_path``) by criterion; ``ConfigError`` naming the file,
    the JSON path and the fix when it is missing or damaged (a gate that cannot read its
    cards must not run)."""
    found = cards_path(path)
    try:
        data = json.loads(found.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"no calibration cards here; {_CALIBRATE} (it writes the run folder's {CALIBRATION_FILE})",
            source=str(found),
        ) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"cannot read the calibration cards: {exc}", source=str(found)) from None
    cards = data.get("cards") if isinstance(data, dict) else None
    if not isinstance(cards, list):
        raise ConfigError(
            'expected {"cards": [...]}, as `agenteval calibrate` writes it', source=f"{found}: cards"
        )
    out: dict[str, CalibrationCard] = {}
    for index, item in enumerate(cards):
        try:
            card = CalibrationCard.model_validate(item)
        except ValueError as exc:
            first = str(exc).splitlines()
            why = " ".join(first[1:3]).strip() if len(first) > 1 else str(exc)
            raise ConfigError(
                f"not a calibration card ({why}); write it again with `agenteval calibrate`",
                source=f"{found}: cards[{index}]",
            ) from None
        out[card.criterion] = card
    return out


def gate_for(
    entry: CriterionEntry,
    cards: dict[str, CalibrationCard],
    cards_file: Path,
    min_kappa: Optional[float],
) -> Optional[CalibrationGate]:
    """What the gate finds for ``entry``: ``None`` for a criterion it does not gate (no
    judge, or informational), else its card's figures and the ``problem`` that makes its
    verdicts INCONCLUSIVE (no card, stale, κ's lower bound below ``min_kappa``)."""
    if not entry.requires_judge or entry.informational:
        return None
    shown = str(cards_path(cards_file))
    card = cards.get(entry.name)
    if card is None:
        return CalibrationGate(
            cards_file=shown,
            min_kappa=min_kappa,
            problem=f"no calibration card for {entry.name} in {shown}; {_CALIBRATE}",
            reason_code="calibration_missing",
        )
    found = {
        "cards_file": shown,
        "min_kappa": min_kappa,
        "kappa": card.kappa,
        "kappa_low": card.kappa_interval.low if card.kappa is not None else None,
        "kappa_high": card.kappa_interval.high if card.kappa is not None else None,
        "n": card.n,
        "card_run_id": card.run_id,
        "prompt_sha256": card.prompt_sha256,
    }
    stale = card.current_for(entry, card.prompt_sha256)  # the prompt is checked per result
    if stale is not None:
        return CalibrationGate(
            **found,
            problem=f"the calibration card (run {card.run_id}) is stale: {stale}; {_CALIBRATE} again",
            reason_code="calibration_stale",
        )
    if min_kappa is not None and (card.kappa is None or card.kappa_interval.low < min_kappa):
        return CalibrationGate(
            **found,
            problem=f"κ {card.kappa_text()} over {card.n} labels: its lower bound is below the floor "
            f"{min_kappa:g} (--min-kappa); more labels narrow the interval",
            reason_code="calibration_below_floor",
        )
    return CalibrationGate(**found)
