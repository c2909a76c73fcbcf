"""Running a run's coroutine from synchronous code."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

__all__ = ["run_sync"]

T = TypeVar("T")


def run_sync(awaitable: Awaitable[T]) -> T:
    """``asyncio.run`` for a result-returning coroutine, without its hidden cost.

    On Python 3.11 ``asyncio.run`` builds the repr of its finished main task, which
    includes the whole result (tens of milliseconds for a large ``RunResult``); the
    wrapper returns ``None`` to the loop and hands the result over directly.
    """
    box: list[T] = []

    async def main() -> None:
        box.append(await awaitable)

    asyncio.run(main())
    return box[0]
