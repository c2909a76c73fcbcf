"""Judge calibration: human labels for a criterion's verdicts, and the card that says how
well the judge agrees with them.

* ``read_labels(path)``: the labels file, JSONL, one object a line:
  ``{"eval_id": …, "criterion": …, "label": "pass" | "fail"}``, optionally
  ``invocation_id``, ``score`` (0 to 1) and ``note``; a bad line is a ``DataError`` with
  ``file:line:column``.
* ``calibrate(run, labels)``: one ``CalibrationCard`` per labelled criterion of a recorded
  run, bound to the criterion's version, its judge models and its prompt's hash
  (``CalibrationCard.current_for`` tells a stale card), with the statistics of
  ``agenteval._stats.judge_calibration``; ``write_cards`` / ``read_cards`` keep them in the
  run folder's ``calibration.json``.
* the calibration gate (``statistics.calibration``, ``--calibration``): ``read_cards_file``
  reads the cards a run is gated on (loudly), ``gate_for`` finds a criterion's
  ``CalibrationGate`` (recorded in the manifest; ``agenteval._verdicts.calibration_gated``
  applies it to each verdict).
"""

from __future__ import annotations

from ._card import CALIBRATION_FILE, CalibrationCard, calibrate, read_cards, write_cards
from ._gate import cards_path, gate_for, read_cards_file
from ._labels import HumanLabel, read_labels

__all__ = [
    "CALIBRATION_FILE",
    "CalibrationCard",
    "HumanLabel",
    "calibrate",
    "cards_path",
    "gate_for",
    "read_cards",
    "read_cards_file",
    "read_labels",
    "write_cards",
]
