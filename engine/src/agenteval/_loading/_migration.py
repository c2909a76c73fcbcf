"""What ``agenteval migrate`` checks before converting a legacy list file, as ADK 2.13's
``AgentEvaluator.migrate_eval_data_to_new_schema`` does.

ADK reads the ``test_config.json`` beside the old file (its default criteria when there
is none), refuses criteria other than the four its legacy format knows, and requires keys
of the turns depending on the criteria: ``expected_tool_use`` for
``tool_trajectory_avg_score`` and ``reference`` for ``response_match_score`` (``query`` is
always required; the loader checks it). ADK checks only the first turn of the file; we
check every turn, of every case of a multi-case list too (ADK cannot migrate those).
A key given with ``null`` counts as present, as in ADK (the reference becomes ``""``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ConfigError, DataError
from ._config import EvalConfig, load_config

__all__ = ["MIGRATION_CRITERIA", "check_migratable", "migration_config"]

_EXAMPLES = {
    "reference": '"reference": "the expected answer"',
    "expected_tool_use": '"expected_tool_use": []',
}

#: The criteria ADK's migration accepts (its ``ALLOWED_CRITERIA``), and the turn key each needs.
MIGRATION_CRITERIA: dict[str, str | None] = {
    "tool_trajectory_avg_score": "expected_tool_use",
    "response_evaluation_score": None,
    "response_match_score": "reference",
    "safety_v1": None,
}


def migration_config(old: Path) -> EvalConfig:
    """The config ADK migrates ``old`` with: ``test_config.json`` in its folder, else the
    default criteria. ``ConfigError`` when it names a criterion ADK's migration refuses."""
    path = old.parent / "test_config.json"
    if not path.is_file():
        return EvalConfig.default()
    config = load_config(path)
    allowed = ", ".join(MIGRATION_CRITERIA)
    for criterion in config.criteria:
        if criterion.name not in MIGRATION_CRITERIA:
            msg = (
                f"criteria.{criterion.name}: ADK migrates legacy files only with the legacy criteria "
                f"({allowed}) and refuses this one. Fix: migrate with a test_config.json that names "
                "only those (or move this one aside), then add the new criteria to the new config"
            )
            raise ConfigError(msg, source=str(path))
    return config


def _turns(data: list[Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(JSON path, turn) of every turn of a legacy flat or multi-case list."""
    for index, item in enumerate(data):
        if isinstance(item, dict) and isinstance(item.get("data"), list):
            for number, turn in enumerate(item["data"]):
                if isinstance(turn, dict):
                    yield f"[{index}].data[{number}]", turn
        elif isinstance(item, dict):
            yield f"[{index}]", item


def check_migratable(data: Any, config: EvalConfig, *, source: str) -> None:
    """``DataError`` naming the first turn (file and JSON path) that lacks a key the
    config's criteria need (see the module docstring); nothing for non-list data."""
    if not isinstance(data, list):
        return
    needed = {
        key: criterion.name
        for criterion in config.criteria
        if (key := MIGRATION_CRITERIA.get(criterion.name)) is not None
    }
    for path, turn in _turns(data):
        for key, criterion in needed.items():
            if key not in turn:
                msg = (
                    f"{path}: the turn has no {key!r}, which ADK requires of every turn for {criterion} "
                    f"(ADK refuses the file). Fix: add it, e.g. {_EXAMPLES[key]}"
                )
                raise DataError(msg, source=source)
