"""A progress bar for long runs: done/total, the current scenario × provider, elapsed and ETA.

Shown only on an interactive terminal; quiet in CI (`CI` set), when output is piped or logged, and
with `--no-progress`. Everything that reports progress takes a `Progress`, so callers never check.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as RichProgress


class Progress(Protocol):
    def start(self, label: str) -> None:
        """The next item has started (shown as the current one)."""
        ...

    def advance(self, label: str | None = None) -> None:
        """One item is done (`label`: the one that finished, when items run elsewhere)."""
        ...


class _Quiet:
    def start(self, label: str) -> None:
        pass

    def advance(self, label: str | None = None) -> None:
        pass


class _Bar:
    def __init__(self, bar: RichProgress, total: int, title: str, *, redraw_every: float | None) -> None:
        self._bar = bar
        self._task = bar.add_task(title, total=total, current="")
        self._redraw_every = redraw_every
        self._drawn = 0.0

    def start(self, label: str) -> None:
        self._bar.update(self._task, current=label)
        self._redraw()

    def advance(self, label: str | None = None) -> None:
        if label is not None:
            self._bar.update(self._task, current=label)
        self._bar.advance(self._task)
        self._redraw()

    def _redraw(self) -> None:
        """Without a refresh thread, redraw from the caller, at most every `redraw_every` seconds."""
        if self._redraw_every is None:
            return
        now = time.monotonic()
        if now - self._drawn >= self._redraw_every:
            self._drawn = now
            self._bar.refresh()


def wanted(console: Console, *, disabled: bool = False, env: dict[str, str] | None = None) -> bool:
    """A bar helps a person at a terminal, and nobody else."""
    environ = os.environ if env is None else env
    return not disabled and console.is_terminal and not environ.get("CI") and not console.is_dumb_terminal


@contextmanager
def progress(console: Console, total: int, title: str, *, enabled: bool, thread: bool = True) -> Iterator[Progress]:
    """A live bar on `console` while the block runs (transient: it leaves no trace), or a quiet one.

    `thread=False`: no refresh thread (the bar redraws as items start and finish), for callers
    that fork worker processes while the bar is shown."""
    if not enabled or total <= 0:
        yield _Quiet()
        return
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[current]}", style="dim", markup=False),  # ids hold [brackets]
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    with RichProgress(*columns, console=console, transient=True, auto_refresh=thread) as bar:
        yield _Bar(bar, total, title, redraw_every=None if thread else 0.1)
