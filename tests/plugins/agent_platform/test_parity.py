"""The writer against Google's own converter (google-cloud-aiplatform 2.7,
``EvaluationDataset.load_from_adk_eval_set``): the same file, byte for byte, from the
repository's eval sets, the real ones, and generated ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agenteval._loading import read_eval_file
from agenteval.errors import DataError
from agenteval_agent_platform._writer import dataset_json
from hypothesis import HealthCheck, given, settings

from tests.plugins.agent_platform._strategies import eval_sets

google_types = pytest.importorskip("vertexai._genai.types", reason="google-cloud-aiplatform is not installed")
pytest.importorskip("pandas", reason="Google's converter (load_from_adk_eval_set) needs pandas")

ROOT = Path(__file__).resolve().parents[3]


def _google(data: dict) -> str:
    dataset = google_types.EvaluationDataset.load_from_adk_eval_set(data)
    return json.dumps(dataset.model_dump(mode="json", exclude_none=True), indent=2, ensure_ascii=False) + "\n"


def _same_as_google(path: Path) -> bool:
    data = json.loads(path.read_text(encoding="utf-8"))
    return dataset_json(read_eval_file(path).eval_set, []) == _google(data)


def _valid(path: Path) -> bool:
    """An eval set ADK reads (agenteval's loader refuses what ADK refuses)."""
    try:
        read_eval_file(path)
    except DataError:
        return False
    return True


@pytest.mark.parametrize(
    "path",
    sorted([*ROOT.glob("examples/**/*.evalset.json"), *ROOT.glob("tests/fixtures/**/*.evalset.json")]),
    ids=lambda p: p.name,
)
def test_the_repositorys_eval_sets_are_written_as_googles_converter_writes_them(path: Path) -> None:
    assert _same_as_google(path)


def test_the_real_eval_sets_are_written_as_googles_converter_writes_them(real_evalsets_dir: Path) -> None:
    """Every real eval set both ADK and Google read (legacy lists, camelCase tops and files ADK
    refuses excluded)."""
    compared = []
    for path in sorted(real_evalsets_dir.glob("*/*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "eval_set_id" in data and _valid(path):
            assert _same_as_google(path), path
            compared.append(path)
    assert len(compared) >= 10


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(eval_set=eval_sets())
def test_generated_eval_sets_are_written_as_googles_converter_writes_them(eval_set) -> None:
    raw = json.loads(eval_set.to_json())
    assert dataset_json(eval_set, []) == _google(raw)
