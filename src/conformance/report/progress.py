"""A progress bar for long runs: done/total, the current scenario × provider, elapsed and ETA.

Shown only on an interactive terminal; quiet in CI (`CI` set), when output is piped or logged, and
with `--no-progress`. Everything that reports progress takes a `Progress`, so callers never check.
"""

from __future__ import annotations

import os
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

    def advance(self) -> None:
        """One item is done."""
        ...


class _Quiet:
    def start(self, label: str) -> None:
        pass

    def advance(self) -> None:
        pass


class _Bar:
    def __init__(self, bar: RichProgress, total: int, title: str) -> None:
        self._bar = bar
        self._task = bar.add_task(title, total=total, current="")

    def start(self, label: str) -> None:
        self._bar.update(self._task, current=label)

    def advance(self) -> None:
        self._bar.advance(self._task)


def wanted(console: Console, *, disabled: bool = False, env: dict[str, str] | None = None) -> bool:
    """A bar helps a person at a terminal, and nobody else."""
    environ = os.environ if env is None else env
    return not disabled and console.is_terminal and not environ.get("CI") and not console.is_dumb_terminal


@contextmanager
def progress(console: Console, total: int, title: str, *, enabled: bool) -> Iterator[Progress]:
    """A live bar on `console` while the block runs (transient: it leaves no trace), or a quiet one."""
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
    with RichProgress(*columns, console=console, transient=True) as bar:
        yield _Bar(bar, total, title)
