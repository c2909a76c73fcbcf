"""agenteval and Google's Agent Platform ``EvaluationDataset``.

* the ``agent-platform`` data format (``agenteval.formats``): agents-cli datasets
  (``tests/eval/datasets/*-dataset.json``), JSONL and CSV tables read as eval sets, their
  recorded responses as actual turns (``--actual``);
* the ``agent-platform`` writer (``agenteval.format_writers``) and ``agenteval export``
  (``agenteval.commands``): an eval set written as google-cloud-aiplatform's converter does.

See ``docs/data-model.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._reader import AgentPlatformReader
    from ._writer import AgentPlatformWriter

__all__ = ["AgentPlatformReader", "AgentPlatformWriter", "__version__"]

__version__ = "0.2.2"


def __getattr__(name: str) -> Any:
    # Imported on first use: ``agenteval --help`` loads this package for its ``export``
    # command and must not pay for the reader, the writer and the models they build on.
    if name == "AgentPlatformReader":
        from ._reader import AgentPlatformReader

        return AgentPlatformReader
    if name == "AgentPlatformWriter":
        from ._writer import AgentPlatformWriter

        return AgentPlatformWriter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
