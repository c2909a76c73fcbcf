"""``Criterion``: what the user asked for (a name, a threshold, raw parameters).

Pure data, built from ``--criteria a,b`` or a ``test_config.json`` entry. The engine
validates ``params`` into the evaluator's ``Params`` model before any work.
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Criterion"]


class Criterion(BaseModel):
    """A requested criterion.

    Attributes:
        name: the entry-point name, e.g. ``tool_trajectory_avg_score``.
        threshold: pass mark; ``None`` uses the evaluator's default threshold.
        params: raw parameters (everything in the config object but ``threshold``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    threshold: Optional[float] = None
    params: dict[str, Any] = Field(default_factory=dict)
