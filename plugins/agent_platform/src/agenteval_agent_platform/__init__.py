"""agenteval and Google's Agent Platform ``EvaluationDataset``.

* the ``agent-platform`` data format (``agenteval.formats``): agents-cli datasets
  (``tests/eval/datasets/*-dataset.json``), JSONL and CSV tables read as eval sets, their
  recorded responses as actual turns (``--actual``);
* the ``agent-platform`` writer (``agenteval.format_writers``) and ``agenteval export``
  (``agenteval.commands``): an eval set written as google-cloud-aiplatform's converter does.

See ``docs/data-model.md``.
"""

from ._reader import AgentPlatformReader
from ._writer import AgentPlatformWriter

__all__ = ["AgentPlatformReader", "AgentPlatformWriter", "__version__"]

__version__ = "0.2.0"
