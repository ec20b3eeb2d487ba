"""pytest plugin: one test item per scenario × provider, named `<scenario id>[<provider>]`.

Enabled where the root holds both `scenarios/` and `cassettes/` (or `--conformance-root` names
such a directory). Items carry the `provider` marker, so `pytest -m provider` runs exactly the
conformance checks; `--provider NAME` narrows them. A failing item shows the expected and actual
normalized forms and the diff by contract path. Results are kept on `config.stash` and, with
`--conformance-html DIR`, written as DIR/matrix.json and DIR/index.html at the end of the session.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.exceptions import ConformanceError
from conformance.report.matrix import ScenarioResult

_RESULTS = pytest.StashKey[list[ScenarioResult]]()
_CONTEXT = pytest.StashKey[Any]()

MARKER = "provider: a conformance check of one scenario against one provider, replayed from cassettes"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "conformance matrix")
    group.addoption("--provider", action="append", default=None, help="only this provider (repeatable)")
    group.addoption("--conformance-root", default=None, help="project root holding scenarios/ and cassettes/")
    group.addoption("--conformance-html", default=None, metavar="DIR", help="write matrix.json and index.html here")
    group.addoption(
        "--conformance-runtime",
        default=None,
        metavar="MODULE:FACTORY",
        help="runtime under test (default: reference)",
    )
    group.addoption(
        "--record-mode",
        dest="conformance_record_mode",
        default="none",
        choices=["none", "once", "new_episodes", "all"],
        help="record cassettes from the live providers first (as pytest-recording; default none: replay only)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER)
    config.stash[_RESULTS] = []


def _root(config: pytest.Config) -> Path | None:
    given = config.getoption("--conformance-root")
    root = Path(given).resolve() if given else config.rootpath
    return root if (root / "scenarios").is_dir() and (root / "cassettes").is_dir() else None


def _context(config: pytest.Config) -> Any:
    if _CONTEXT not in config.stash:
        from conformance.cli import load_runtime
        from conformance.harness import HarnessContext

        root = _root(config)
        assert root is not None
        runtime, name = load_runtime(config.getoption("--conformance-runtime"))
        config.stash[_CONTEXT] = HarnessContext(root=root, runtime=runtime, runtime_name=name)
    return config.stash[_CONTEXT]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    root = _root(parent.config)
    if root is None or file_path.suffix != ".yaml":
        return None
    if not file_path.resolve().is_relative_to(root / "scenarios"):
        return None
    return ScenarioFile.from_parent(parent, path=file_path)


class ScenarioFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        from conformance.capabilities import get_profile, matrix_providers
        from conformance.scenarios import load_scenario

        try:
            scenario = load_scenario(self.path)
            providers = self.config.getoption("--provider") or matrix_providers()
            for name in providers:
                get_profile(name)
        except ConformanceError as exc:
            raise self.CollectError(str(exc)) from None
        for provider in providers:
            item = ScenarioItem.from_parent(
                self, name=f"{scenario.id}[{provider}]", scenario=scenario, provider=provider
            )
            item.add_marker(pytest.mark.provider)
            yield item


class ScenarioFailed(Exception):
    def __init__(self, result: ScenarioResult) -> None:
        super().__init__(result.reason)
        self.result = result


class ScenarioItem(pytest.Item):
    def __init__(self, *, scenario: Any, provider: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario
        self.provider = provider

    def runtest(self) -> None:
        from conformance.harness import run_check

        mode = self.config.getoption("conformance_record_mode")
        if mode != "none" and self.scenario.check == "decode":
            self._record(mode)
        res = run_check(self.scenario, self.provider, _context(self.config))
        self.config.stash[_RESULTS].append(res)
        self.user_properties.append(("verdict", res.verdict))
        if res.verdict in ("unsupported", "missing", "skipped"):
            pytest.skip(f"{res.verdict}: {res.reason}")
        if res.verdict in ("fail", "error"):
            raise ScenarioFailed(res)

    def _record(self, mode: str) -> None:
        import os

        from conformance.capabilities import get_profile
        from conformance.exceptions import MissingKeyError
        from conformance.replay.record import RecordReport, record_scenario
        from conformance.runtime.auth import resolve_key

        entry = self.scenario.entry(self.provider)
        if entry is not None and entry.unsupported:
            return
        profile = get_profile(self.provider)
        try:
            key = resolve_key(profile, os.environ)
        except MissingKeyError as exc:
            pytest.skip(f"skipped: {exc}")
        from datetime import date

        report = RecordReport()
        record_scenario(
            self.scenario,
            profile,
            canonical=profile,
            root=_context(self.config).root,
            key=key,
            mode=mode,  # type: ignore[arg-type]
            transport=None,
            today=date.today(),
            report=report,
        )
        for sid, change in report.drift.items():
            self.user_properties.append(("drift", f"{sid}: {change}"))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioFailed):
            return render_failure(excinfo.value.result)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.scenario.id}[{self.provider}] ({self.scenario.feature})"


def render_failure(res: ScenarioResult) -> str:
    from conformance.compare import render_diff

    lines = [f"{res.scenario}[{res.provider}] — {res.title}", f"{res.verdict}: {res.reason}"]
    if res.cassette:
        lines.append(f"cassette: {res.cassette}")
    if res.diff:
        lines += ["", "differences (expected → actual, by contract path):", render_diff(res.diff)]
    if res.expected is not None or res.actual is not None:
        lines += ["", "expected:", json.dumps(res.expected, indent=2, ensure_ascii=False)]
        lines += ["actual:", json.dumps(res.actual, indent=2, ensure_ascii=False)]
    return "\n".join(lines)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    out = session.config.getoption("--conformance-html")
    results = session.config.stash.get(_RESULTS, [])
    if not out or not results:
        return
    from conformance.harness import build_matrix
    from conformance.report.html import write_html

    ctx = _context(session.config)
    providers = list(dict.fromkeys(r.provider for r in results))
    matrix = build_matrix(results, providers, ctx, scenario_dir=ctx.root / "scenarios")
    target = Path(out)
    matrix.save(target / "matrix.json")
    write_html(matrix, target)
