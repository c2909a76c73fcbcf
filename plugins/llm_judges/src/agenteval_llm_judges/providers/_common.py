"""What the providers share: failure classification, the size-capped HTTP client, an SDK
client per event loop, and releasing failed responses at once.

Every provider maps the same failure to the same reason code
(``agenteval.errors.REASON_CODES``):

* connection refused, DNS failure, TLS failure -> ``judge_unreachable`` (not retried; the
  judge service takes the endpoint out of the run);
* HTTP 401/403 -> ``judge_auth`` (likewise);
* timeouts -> ``judge_timeout``, dropped connections -> ``judge_error`` (both retried);
* a body over the size cap -> ``judge_response_too_large``;
* a 200 answer that is not the API's response format -> ``judge_unparseable``.

Nothing here imports an SDK or an HTTP library at module import time; transport
libraries are recognised only if something already imported them.
"""

from __future__ import annotations

import asyncio
import functools
import socket
import ssl
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, Optional

from agenteval.errors import JudgeCallError
from agenteval.plugins import response_size_cap, retry_after_seconds
from agenteval.text import one_line

__all__ = [
    "MALFORMED",
    "LoopClient",
    "ResponseTooLarge",
    "capped_async_client",
    "clip",
    "is_retryable_status",
    "release",
    "retry_after_seconds",
    "status_code",
    "transport_failure",
]

#: What an SDK raises when a 200 answer's body cannot be read as the API's response
#: (json.JSONDecodeError and pydantic's ValidationError are ValueErrors).
MALFORMED = (ValueError, TypeError, KeyError, AttributeError)
#: Attributes of SDK exceptions that hold the response and its body.
_BODY_ATTRIBUTES = ("response", "body", "details", "request", "_response", "response_json")


class ResponseTooLarge(Exception):
    """The response body passed the size cap; reading stopped there."""

    def __init__(self, cap: int, declared: Optional[int] = None) -> None:
        size = f"{declared:,} bytes" if declared is not None else f"more than {cap:,} bytes"
        super().__init__(
            f"the answer is {size}, over the {cap:,}-byte cap (judge_model_options.max_response_bytes)"
        )


def is_retryable_status(status: int, *, conflict: bool = False) -> bool:
    """408, 429 and 5xx (and 409 when ``conflict``, as OpenAI documents it) are retryable."""
    if status >= 500 or status in (408, 429):
        return True
    return conflict and status == 409


def status_code(status: int) -> str:
    """The reason code of a failed HTTP status: ``judge_auth`` for 401/403."""
    return "judge_auth" if status in (401, 403) else "judge_error"


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: Optional[BaseException] = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _is_connect_failure(exc: BaseException) -> bool:
    for module_name in ("httpx", "httpx2"):
        module = sys.modules.get(module_name)
        if module is not None and isinstance(exc, module.ConnectError):
            return True
    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is not None and isinstance(exc, aiohttp.ClientConnectorError):
        return True
    return isinstance(exc, (ConnectionRefusedError, socket.gaierror, ssl.SSLError))


def _is_timeout(exc: BaseException) -> bool:
    for module_name in ("httpx", "httpx2"):
        module = sys.modules.get(module_name)
        if module is not None and isinstance(exc, module.TimeoutException):
            return True
    # Not the JudgeService's own timeout (that one cancels ``generate`` from outside and
    # never reaches a provider's ``except``): a client-side timeout inside the SDK.
    return isinstance(exc, (asyncio.TimeoutError, TimeoutError))


def _is_dropped(exc: BaseException) -> bool:
    for module_name in ("httpx", "httpx2"):
        module = sys.modules.get(module_name)
        if module is not None and isinstance(exc, module.TransportError):
            return True
    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is not None and isinstance(exc, aiohttp.ClientError):
        return True
    return isinstance(exc, ConnectionError)


def transport_failure(exc: BaseException, where: str) -> Optional[JudgeCallError]:
    """The ``JudgeCallError`` for a network-level failure anywhere in ``exc``'s chain
    (``where`` names the endpoint), else ``None``."""
    chain = list(_chain(exc))
    for link in chain:
        if isinstance(link, ResponseTooLarge):
            return JudgeCallError(f"{where}: {link}", retryable=False, code="judge_response_too_large")
    for link in chain:
        if _is_connect_failure(link):
            return JudgeCallError(
                f"{where}: cannot connect ({type(link).__name__}: {clip(link) or 'no detail'}); check "
                "that the server runs and that the base URL, its host name and its certificate are right",
                retryable=False,
                code="judge_unreachable",
            )
    for link in chain:
        if _is_timeout(link):
            message = f"{where}: timed out ({type(link).__name__})"
            return JudgeCallError(message, retryable=True, code="judge_timeout")
    for link in chain:
        if _is_dropped(link):
            message = f"{where}: connection failed ({type(link).__name__}: {clip(link) or 'no detail'})"
            return JudgeCallError(message, retryable=True)
    return None


def release(exc: BaseException) -> None:
    """Drop what a failed call's exceptions hold (response bodies, tracebacks and their
    frames) so the memory is freed at once, not at the next full garbage collection (the
    CLI runs with the collector frozen)."""
    for link in list(_chain(exc)):
        for name in _BODY_ATTRIBUTES:
            try:
                if getattr(link, name, None) is not None:
                    setattr(link, name, None)
            except Exception:  # noqa: BLE001 - a read-only property: nothing to drop
                pass
        link.__traceback__ = None
        link.__cause__ = link.__context__ = None


@functools.lru_cache(maxsize=1)
def _capped_transport_class() -> type:
    import httpx

    class CappedStream(httpx.AsyncByteStream):
        def __init__(self, inner: Any, cap: int) -> None:
            self._inner, self._cap = inner, cap

        async def __aiter__(self) -> Any:
            total = 0
            async for chunk in self._inner:
                total += len(chunk)
                if total > self._cap:
                    await self._inner.aclose()  # close the connection: nothing more is read
                    raise ResponseTooLarge(self._cap)
                yield chunk

        async def aclose(self) -> None:
            await self._inner.aclose()

    class CappedTransport(httpx.AsyncBaseTransport):
        """Stops reading a response body past the current judge call's size cap."""

        def __init__(self, inner: Any) -> None:
            self._inner = inner

        async def handle_async_request(self, request: Any) -> Any:
            response = await self._inner.handle_async_request(request)
            cap = response_size_cap()
            if cap is None:
                return response
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > cap:
                await response.aclose()
                raise ResponseTooLarge(cap, int(declared))
            response.stream = CappedStream(response.stream, cap)
            return response

        async def aclose(self) -> None:
            await self._inner.aclose()

    return CappedTransport


#: Connections kept open between calls, per client (httpx's default keeps 20: above a judge
#: concurrency of 20, every call beyond them would open a connection and close it after).
KEPT_CONNECTIONS = 64


def capped_async_client(**kwargs: Any) -> Any:
    """An ``httpx.AsyncClient`` that enforces the judge call's response-size cap
    (``agenteval.plugins.response_size_cap``) while reading; no client-side timeout (the
    judge service bounds each call in wall time and closes what it cancels), and no cap on
    connections (the service's per-endpoint limit bounds the calls in flight; a pool cap
    below it would make calls wait for a connection inside their time). ``KEPT_CONNECTIONS``
    are kept alive. The pool is the transport's: httpx ignores a client's ``limits`` when
    it is given a transport."""
    import httpx

    limits = httpx.Limits(max_connections=None, max_keepalive_connections=KEPT_CONNECTIONS)
    transport = _capped_transport_class()(httpx.AsyncHTTPTransport(limits=limits))
    kwargs.setdefault("timeout", httpx.Timeout(None))
    kwargs.setdefault("follow_redirects", True)
    return httpx.AsyncClient(transport=transport, **kwargs)


async def _closed_with_loop(close: Callable[[], Awaitable[None]]) -> AsyncIterator[None]:
    try:
        yield
    finally:
        await close()
        await asyncio.sleep(0)  # the closed sockets' callbacks run before the loop ends


class LoopClient:
    """A provider's SDK client for the running event loop. ``make()`` gives a new client
    and the coroutine function that closes it; ``get()`` makes one on first use in a loop.

    Its connections belong to that loop, so it is closed there: by ``aclose()``, or, when
    nobody calls that, as the loop shuts down (``asyncio.run`` closes the loop's async
    generators before the loop, and a started one holds the close). A call from another
    loop gets a new client; the old one is closed at its own loop's end."""

    def __init__(self, make: Callable[[], tuple[Any, Callable[[], Awaitable[None]]]]) -> None:
        self._make = make
        self._client: Any = None
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._closer: Optional[AsyncIterator[None]] = None

    @property
    def current(self) -> Any:
        """The client made last, or ``None`` (none yet, or closed)."""
        return self._client

    async def get(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._client is not None and self._loop is loop:
            return self._client
        client, close = self._make()
        closer = _closed_with_loop(close)
        await closer.__anext__()
        self._client, self._loop, self._closer = client, loop, closer
        return client

    async def aclose(self) -> None:
        closer, self._client, self._loop, self._closer = self._closer, None, None, None
        if closer is not None:
            await closer.aclose()  # type: ignore[attr-defined]


def clip(text: Any, limit: int = 300) -> str:
    """``text`` on one line, at most ``limit`` characters (``agenteval.text.one_line``)."""
    return one_line(text, limit)
