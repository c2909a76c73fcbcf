"""HTTP details every judge-model provider needs the same way."""

from __future__ import annotations

import contextvars
import email.utils
import time
from collections.abc import Mapping
from typing import Any, Optional

__all__ = ["RESPONSE_SIZE_CAP", "response_size_cap", "retry_after_seconds"]

#: The response-size cap (bytes) of the judge call in progress, set by the judge service
#: around ``JudgeModel.generate``; providers enforce it while reading the body.
RESPONSE_SIZE_CAP: contextvars.ContextVar[Optional[int]] = contextvars.ContextVar(
    "agenteval_judge_response_size_cap", default=None
)


def response_size_cap() -> Optional[int]:
    """The most bytes the current judge call's response body may have (``None``: no cap,
    outside a judge service call). A provider stops reading past it and raises
    ``JudgeCallError(..., code="judge_response_too_large")``."""
    return RESPONSE_SIZE_CAP.get()


def retry_after_seconds(headers: Optional[Mapping[str, Any]]) -> Optional[float]:
    """Seconds a server asked to wait: ``retry-after-ms`` (OpenAI), then ``Retry-After``
    as seconds or an HTTP date; header names in any case. ``None`` when absent or
    unreadable; never negative."""
    if not headers:
        return None
    lowered = {str(name).lower(): value for name, value in headers.items()}
    try:
        millis = lowered.get("retry-after-ms")
        if millis is not None:
            return max(0.0, float(millis) / 1000.0)
    except (TypeError, ValueError):
        pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    value = str(value).strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return None if when is None else max(0.0, when.timestamp() - time.time())
