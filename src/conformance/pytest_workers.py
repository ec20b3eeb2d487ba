"""What `-n auto` does for a session of conformance checks alone (`pytest -m provider -n auto`).

A pytest-xdist worker is a whole pytest process: it imports pytest, every plugin and the harness,
and collects the scenarios again, about a second of CPU before its first check, and the controller
then handles three reports per check. A check costs a few milliseconds, so on 2 CPUs two workers
spent more CPU than they saved: `-n auto` was slower than a serial run for the whole bundled
matrix, and nearly twice as slow for one provider's checks.

So for such a session `-n auto` starts no xdist worker. Where processes fork (Linux), the checks
run ahead in forked processes, one per CPU (`harness.parallel`, as `conformance run --jobs`
does): each inherits the parsed scenarios and the loaded runtime, and only the results come back;
the items then report them in order. Elsewhere, one xdist worker per `CHECKS_PER_WORKER` checks,
and none below two. `-n N`, `PYTEST_XDIST_AUTO_NUM_WORKERS`, other tests in the session, a record
mode and a runtime program (which runs its own processes) leave xdist's `auto` as it is.
Nothing here imports the harness.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

CHECKS_PER_WORKER = 1000
"""Without fork: checks that keep one xdist worker busy long enough to repay its start."""

CHECKS_PER_FORK = 100
"""Checks per forked process at least (as `conformance run`): forking costs more than a few checks."""


@dataclass(frozen=True)
class Decision:
    """What `-n auto` comes to: xdist workers, or checks run ahead in forked processes."""

    workers: int
    forks: int
    checks: int
    cpus: int

    def describe(self) -> str:
        if self.forks > 1:
            return (
                f"-n auto: the {self.checks} checks run ahead in {self.forks} forked processes "
                f"({self.cpus} CPUs), not in xdist workers"
            )
        if self.workers:
            return f"-n auto: {self.workers} xdist workers for {self.checks} checks ({self.cpus} CPUs)"
        return f"-n auto: the {self.checks} checks run in this process ({self.cpus} CPUs)"


def cpus() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def can_fork() -> bool:
    """Whether processes fork safely here (Linux: yes; macOS and Windows: no)."""
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def count_checks(scenario_dirs: Sequence[Path], targets: Iterable[Path], providers: int) -> int:
    """Checks a session would collect, about: the scenario files the targets reach (under the top
    layer's scenarios/, which collects every layer's; a file overridden in a higher layer counted
    once) times the providers."""
    if not scenario_dirs:
        return 0
    top = scenario_dirs[-1]
    names: set[str] = set()
    for target in targets:
        if top.is_relative_to(target):  # the whole directory, with every layer under it
            for directory in scenario_dirs:
                names.update(_yaml_under(directory, directory))
        elif target.is_relative_to(top):
            names.update(_yaml_under(target, top))
    return len(names) * providers


def _yaml_under(path: Path, base: Path) -> set[str]:
    if path.is_file():
        return {str(path.relative_to(base))} if path.suffix == ".yaml" else set()
    if not path.is_dir():
        return set()
    return {str(p.relative_to(base)) for p in path.rglob("*.yaml")}


def decide(checks: int, cpu_count: int, forks: bool) -> Decision:
    """`-n auto` for `checks` checks on `cpu_count` CPUs (`forks`: whether processes fork here)."""
    if forks:
        n = min(cpu_count, checks // CHECKS_PER_FORK)
        return Decision(0, n if n >= 2 else 0, checks, cpu_count)
    n = min(cpu_count, checks // CHECKS_PER_WORKER)
    return Decision(n if n >= 2 else 0, 0, checks, cpu_count)  # one worker under a controller only adds cost
