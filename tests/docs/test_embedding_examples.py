"""Every Python block of ``docs/embedding.md`` runs, in order, from the repository root.

The blocks share one namespace, as a reader pasting them into one session would. A block
that defines a pytest-style ``test_*`` function has that function called too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "embedding.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_the_page_has_examples() -> None:
    assert len(_blocks()) >= 5


def test_every_example_runs(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(REPO)
    namespace: dict = {"__name__": "embedding_examples"}
    for index, block in enumerate(_blocks()):
        before = {k for k in namespace if k.startswith("test_")}
        exec(compile(block, f"{DOC.name}[python block {index}]", "exec"), namespace)
        for name in sorted({k for k in namespace if k.startswith("test_")} - before):
            namespace[name]()
    printed = capsys.readouterr().out
    assert "FAILED" in printed  # the travel example fails one case on purpose
    assert "<in-memory>" in printed
    assert "did you mean 'tool_trajectory_avg_score'" in printed
