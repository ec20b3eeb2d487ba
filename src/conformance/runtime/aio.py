"""`run`: `asyncio.run` for the reference runtime's synchronous capabilities.

On the main thread, `asyncio.run` reads the SIGINT handler back after the coroutine ends; Python
3.11 builds an error message holding the `repr` of the finished task on the way, and so of its
result — a whole turn's outcome, pydantic models and all, on every call. The coroutine's result is
handed over beside the task instead, so the task ends holding None.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(coro)`, its result returned as is."""
    box: list[T] = []

    async def main() -> None:
        box.append(await coro)

    asyncio.run(main())
    return box[0]


__all__ = ["run"]
