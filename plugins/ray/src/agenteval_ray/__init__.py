"""agenteval on Ray: the ``ray`` executor (``agenteval run --executor ray``)."""

from ._executor import RayExecutor

__all__ = ["RayExecutor"]
