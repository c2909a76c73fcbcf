"""HTTP details every judge-model provider needs the same way."""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping
from typing import Any, Optional

__all__ = ["retry_after_seconds"]


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
