"""The Ray tests start real local Ray clusters: under pytest-xdist they share one worker
(``--dist loadgroup``), so two clusters never compete for the machine's two cores at once."""

from __future__ import annotations

from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.xdist_group("ray"))
