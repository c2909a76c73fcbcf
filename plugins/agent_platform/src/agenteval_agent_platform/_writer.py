"""The ``agent-platform`` writer: an eval set as agents-cli's ``<id>-dataset.json``."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval.models import EvalSet
from agenteval.plugins import FormatWriter

from ._to_dataset import dataset_of

__all__ = ["AgentPlatformWriter", "dataset_json"]


def dataset_json(eval_set: EvalSet, warnings: list[str]) -> str:
    """The file's text: the SDK's JSON dump of the dataset, two-space indented, UTF-8."""
    return json.dumps(dataset_of(eval_set, warnings), indent=2, ensure_ascii=False) + "\n"


class AgentPlatformWriter(FormatWriter):
    """Writes ``<eval_set_id>-dataset.json``, what google-cloud-aiplatform's
    ``EvaluationDataset.load_from_adk_eval_set`` makes of the same eval set."""

    description = "Agent Platform EvaluationDataset (agents-cli <id>-dataset.json)"

    def write(self, eval_set: EvalSet, folder: Path) -> list[Path]:
        stem = eval_set.eval_set_id
        target = folder / (stem if stem.endswith("-dataset") else f"{stem}-dataset")
        target = target.with_name(target.name + ".json")
        target.write_text(dataset_json(eval_set, self.warnings), encoding="utf-8")
        return [target]
