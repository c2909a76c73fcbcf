"""What the providers share: ``Retry-After`` parsing and transport-error classification.

Nothing here imports an SDK or an HTTP library at module import time; transport
libraries are recognised only if something already imported them.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, Optional

from agenteval.judging import retry_after_seconds

__all__ = ["MALFORMED", "clip", "is_retryable_status", "retry_after_seconds", "transport_error"]

#: What an SDK raises when a 200 answer's body cannot be read as the API's response
#: (json.JSONDecodeError and pydantic's ValidationError are ValueErrors).
MALFORMED = (ValueError, TypeError, KeyError, AttributeError)


def is_retryable_status(status: int, *, conflict: bool = False) -> bool:
    """408, 429 and 5xx (and 409 when ``conflict``, as OpenAI documents it) are retryable."""
    if status >= 500 or status in (408, 429):
        return True
    return conflict and status == 409


def transport_error(exc: BaseException) -> Optional[str]:
    """A short description when ``exc`` is a network-level failure (timeout, refused or
    dropped connection) from httpx, httpx2 or aiohttp, else ``None``. These are
    retryable: the request may not even have reached the server."""
    for module_name in ("httpx", "httpx2"):
        module = sys.modules.get(module_name)
        if module is None:
            continue
        if isinstance(exc, module.TimeoutException):
            return f"timed out ({type(exc).__name__})"
        if isinstance(exc, module.TransportError):
            return f"connection failed ({type(exc).__name__}: {clip(str(exc)) or 'no detail'})"
    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is not None and isinstance(exc, aiohttp.ClientError):
        return f"connection failed ({type(exc).__name__}: {clip(str(exc)) or 'no detail'})"
    if isinstance(exc, asyncio.TimeoutError):
        # Not the JudgeService's own timeout (that one cancels ``generate`` from outside
        # and never reaches a provider's ``except``): a client-side timeout inside the SDK.
        return "timed out"
    if isinstance(exc, (ConnectionError, TimeoutError)):
        return f"connection failed ({type(exc).__name__}: {clip(str(exc)) or 'no detail'})"
    return None


def clip(text: Any, limit: int = 300) -> str:
    """``text`` on one line, at most ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
