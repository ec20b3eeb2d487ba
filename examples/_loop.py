"""`run`: `asyncio.run` for the adapters' async clients, on one event loop kept per thread.

`asyncio.run` makes a new event loop per call and ends it with its default executor: an SDK that
hands one blocking call of each new client to a thread (the openai and Anthropic SDKs read the
platform that way on a client's first request) starts a thread and joins it on every row. Here
each thread keeps one `asyncio.Runner` (the standard library's own way to run several top-level
calls on one loop), so its executor's thread is started once. Each call still runs as
`asyncio.run` runs it: in a copy of the caller's context, and the tasks it left behind are
cancelled and awaited before it returns. A forked process makes runners of its own (a loop is not
shared across a fork); every runner is closed at exit.
"""

from __future__ import annotations

import asyncio
import atexit
import contextvars
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_RUNNERS: dict[tuple[int, int], asyncio.Runner] = {}
_LOCK = threading.Lock()


def _close_all() -> None:
    with _LOCK:
        runners = [r for (pid, _), r in _RUNNERS.items() if pid == os.getpid()]
        _RUNNERS.clear()
    for runner in runners:
        runner.close()


atexit.register(_close_all)


def _runner() -> asyncio.Runner:
    key = (os.getpid(), threading.get_ident())
    runner = _RUNNERS.get(key)
    if runner is None:
        runner = asyncio.Runner()
        with _LOCK:
            _RUNNERS[key] = runner
    return runner


async def _alone(coro: Coroutine[Any, Any, T]) -> T:
    """`coro`, then the tasks it started and left running cancelled and awaited (as `asyncio.run` ends)."""
    try:
        return await coro
    finally:
        me = asyncio.current_task()
        left = [task for task in asyncio.all_tasks() if task is not me]
        for task in left:
            task.cancel()
        if left:
            await asyncio.gather(*left, return_exceptions=True)


def run(coro: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(coro)` on this thread's kept event loop."""
    return _runner().run(_alone(coro), context=contextvars.copy_context())
