"""The hook a ``conftest.py`` implements to name the agent under test for its eval files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

__all__ = ["pytest_agenteval_agent"]


@pytest.hookspec(firstresult=True)
def pytest_agenteval_agent(path: Path, config: pytest.Config) -> Any:
    """The agent under test for the eval file ``path``, or ``None`` to leave it to others.

    Implement it in a ``conftest.py``: it applies to eval files in that folder and below
    (a deeper ``conftest.py`` wins), before ``--agenteval-agent`` and the
    ``agenteval_agent`` ini option. Return an ``--agent`` target (``pkg.module:function``,
    ``path/to/agent.py:function``, an agent folder, ``http://host/v1?model=m``...; build
    paths from ``__file__``, since a relative one is taken from the directory pytest was
    started in) or an ``agenteval.plugins.Agent``. It is called once per eval file, and a
    returned ``Agent`` is closed after that file's run, so return a new one each time.

    :param path: the eval file (``*.test.json`` or ``*.evalset.json``).
    :param config: the pytest config.
    """
