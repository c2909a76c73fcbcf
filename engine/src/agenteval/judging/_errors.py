"""Judge-call failures. Providers raise ``JudgeCallError``; criteria see ``JudgeUnavailable``.

JudgeCallError       raised by a provider for one failed call; ``retryable`` says
                     whether the service may try again (429, 5xx, timeouts, resets)
JudgeUnavailable     raised to a criterion when a call failed for good (after retries,
                     or not retryable); its ``code`` goes into the NOT_EVALUATED result

Every provider uses the same reason codes (``REASON_CODES``) for the same failure.
"""

from __future__ import annotations

from typing import Optional

__all__ = ["ENDPOINT_DOWN_CODES", "REASON_CODES", "JudgeCallError", "JudgeUnavailable"]

#: The reason codes of judge-call failures, the same for every provider.
REASON_CODES: dict[str, str] = {
    "judge_error": "the call failed after retries (5xx, 429), or in a way retrying cannot fix "
    "(400, 404, an empty or blocked answer)",
    "judge_timeout": "every attempt timed out, or the endpoint stopped answering",
    "judge_unreachable": "the endpoint cannot be reached (connection refused, DNS, TLS); "
    "no further calls go to it",
    "judge_auth": "the endpoint refused the credentials (HTTP 401/403); no further calls go to it",
    "judge_unparseable": "an answer arrived but cannot be read (not the API's response "
    "format, or not the JSON the criterion asked for)",
    "judge_response_too_large": "the answer was larger than the response-size cap",
    "judge_interrupted": "the run was interrupted before the call finished",
    "judge_budget_exhausted": "the run's judge-call budget (--judge-budget) was spent before this call",
}
#: Codes after which an endpoint gets no further calls in the run.
ENDPOINT_DOWN_CODES = frozenset({"judge_unreachable", "judge_auth"})


class JudgeCallError(Exception):
    """One judge call failed.

    Attributes:
        retryable: a later attempt may succeed (HTTP 408/429/5xx, timeouts, dropped
            connections); false for bad requests, auth failures and the like.
        status: the HTTP status, when there was one.
        retry_after: seconds the server asked to wait (``Retry-After``), if it said.
        code: the reason code (``REASON_CODES``) the call's NOT_EVALUATED result gets
            when it fails for good: ``judge_error`` by default. ``judge_unreachable`` and
            ``judge_auth`` stop every further call to the same endpoint.
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

    @property
    def endpoint_down(self) -> bool:
        """Whether no further call should go to this endpoint in this run."""
        return self.code in ENDPOINT_DOWN_CODES


class JudgeUnavailable(Exception):
    """A judge answer could not be had; the invocation becomes NOT_EVALUATED.

    ``code`` is the reason code recorded in results (``REASON_CODES``); criteria raise
    ``judge_unparseable`` themselves when an answer cannot be read.
    """

    def __init__(self, message: str, code: str = "judge_error") -> None:
        super().__init__(message)
        self.code = code
