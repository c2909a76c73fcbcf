"""Judge-call failures. Providers raise ``JudgeCallError``; criteria see ``JudgeUnavailable``.

JudgeCallError       raised by a provider for one failed call; ``retryable`` says
                     whether the service may try again (429, 5xx, timeouts, resets)
JudgeUnavailable     raised to a criterion when a call failed for good (after retries,
                     or not retryable); its ``code`` goes into the NOT_EVALUATED result
"""

from __future__ import annotations

from typing import Optional

__all__ = ["JudgeCallError", "JudgeUnavailable"]


class JudgeCallError(Exception):
    """One judge call failed.

    Attributes:
        retryable: a later attempt may succeed (HTTP 408/429/5xx, timeouts, dropped
            connections); false for bad requests, auth failures and the like.
        status: the HTTP status, when there was one.
        retry_after: seconds the server asked to wait (``Retry-After``), if it said.
        code: the reason code the call's NOT_EVALUATED result gets when it fails for good:
            ``judge_error`` by default, ``judge_unparseable`` for an answer that arrived but
            cannot be read.
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        status: Optional[int] = None,
        retry_after: Optional[float] = None,
        code: str = "judge_error",
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.code = code


class JudgeUnavailable(Exception):
    """A judge answer could not be had; the invocation becomes NOT_EVALUATED.

    ``code`` is the reason code recorded in results: ``judge_error`` (the call failed
    after retries), ``judge_timeout``, ``judge_unparseable`` (criteria raise it when an
    answer cannot be read), ``judge_interrupted``.
    """

    def __init__(self, message: str, code: str = "judge_error") -> None:
        super().__init__(message)
        self.code = code
