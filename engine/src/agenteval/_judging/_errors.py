"""Judge-call failures: ``JudgeCallError`` (providers raise it), ``JudgeUnavailable`` (criteria
see it) and the one set of reason codes, defined with every other exception in
``agenteval.errors``."""

from ..errors import ENDPOINT_DOWN_CODES, REASON_CODES, JudgeCallError, JudgeUnavailable

__all__ = ["ENDPOINT_DOWN_CODES", "REASON_CODES", "JudgeCallError", "JudgeUnavailable"]
