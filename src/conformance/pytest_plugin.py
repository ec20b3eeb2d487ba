"""pytest plugin: one test item per scenario × provider, named `<scenario id>[<provider>]`.

Installed through the `pytest11` entry point, so it lives in other people's test suites: it adds
only `--conformance-*` options and does nothing until a project asks for it, with the ini key
`conformance_root` (a directory holding `scenarios/` and `cassettes/`, relative to the rootdir) or
the option `--conformance-root DIR`. Then scenario files under that root are collected as items
with the `provider` marker, so `pytest -m provider` runs exactly the conformance checks, and
`--conformance-provider NAME` narrows them.

A failing item shows the expected and actual normalized forms and the diff by contract path. Each
item's result travels on its test report, so under pytest-xdist the controller gathers every
worker's results; with `--conformance-html DIR` it writes DIR/matrix.json and DIR/index.html at the
end of the session, in the same order whatever the worker count or the test order.
"""

from __future__ import annotations

import argparse
import copy
import os
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # the idle plugin imports nothing of the harness: pytest starts as fast without it
    from conformance.compare import ScenarioResult

_RESULTS = pytest.StashKey["list[ScenarioResult]"]()
_REAL = pytest.StashKey["list[dict[str, Any]]"]()
_CONTEXT = pytest.StashKey[Any]()
_ROOT = pytest.StashKey["Path | None"]()
_LAYERS = pytest.StashKey["tuple[Path, ...]"]()
_WORKERS = pytest.StashKey[str]()
_FORKS = pytest.StashKey[int]()

MARKER = "provider: a conformance check of one scenario against one provider, replayed from cassettes"
RECORD_MODES = ("none", "once", "new_episodes", "all")
_REPORT_ATTR = "conformance_result"
_REAL_ATTR = "conformance_real"


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    _rewrite_only_this_module(pluginmanager)
    group = parser.getgroup("conformance", "conformance matrix (active with --conformance-root or the ini key)")
    group.addoption(
        "--conformance-root",
        action="append",
        default=None,
        metavar="DIR",
        help="collect the scenarios of this project root (holding scenarios/ and cassettes/); repeatable, each "
        "layered over the ones before it (and over the bundled data when its conformance.yaml says bundled: true)",
    )
    group.addoption(
        "--conformance-provider",
        action="append",
        default=None,
        metavar="NAME",
        help="only this provider (repeatable)",
    )
    group.addoption(
        "--conformance-runtime",
        default=None,
        metavar="MODULE:FACTORY",
        help="runtime under test (default: reference)",
    )
    group.addoption(
        "--conformance-runtime-cmd",
        default=None,
        metavar="COMMAND",
        help='runtime under test as a program speaking the JSON-lines protocol, e.g. "node adapter.mjs"',
    )
    group.addoption(
        "--conformance-runtime-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="seconds one call to the --conformance-runtime-cmd program may take before it counts as hung (60)",
    )
    group.addoption(
        "--conformance-runtime-max-answer",
        type=int,
        default=None,
        metavar="BYTES",
        help="longest line (one answer) the --conformance-runtime-cmd program may print (16 MiB)",
    )
    group.addoption(
        "--conformance-runtime-start-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="seconds the --conformance-runtime-cmd program may take to start and answer the handshake (120)",
    )
    group.addoption(
        "--conformance-strict",
        action=argparse.BooleanOptionalAction,
        default=bool(os.environ.get("CI")),
        help="a scenario whose cassette is missing fails instead of being skipped (default: on when CI is set)",
    )
    group.addoption("--conformance-html", default=None, metavar="DIR", help="write matrix.json and index.html here")
    group.addoption(
        "--conformance-base-url",
        default=None,
        metavar="URL",
        help="with a record mode: send the requests here instead of the provider (e.g. the emulator)",
    )
    group.addoption(
        "--conformance-accept",
        action="store_true",
        default=False,
        help="with a record mode: make the recorded outcomes the expected forms (per-provider overrides); "
        "without one: write a new scenario's expected form (it has none yet) from its cassette",
    )
    group.addoption(
        "--conformance-record-mode",
        default="none",
        choices=RECORD_MODES,
        help="record cassettes from the live providers first (default none: replay only)",
    )
    group.addoption(
        "--conformance-no-real",
        action="store_true",
        default=False,
        help="leave out the real traffic (the items real[<column>]: the shipped corpus's generation calls)",
    )
    parser.addini(
        "conformance_real",
        "collect the real traffic items real[<column>] (default true)",
        type="bool",
        default=True,
    )
    parser.addini(
        "conformance_root",
        "collect conformance scenarios from these directories (relative to the ini file), the last on top",
        type="linelist",
    )
    parser.addini(
        "conformance_runtime",
        "runtime under test as package.module:factory, when --conformance-runtime is not given",
        default="",
    )


def _rewrite_only_this_module(pluginmanager: pytest.PytestPluginManager) -> None:
    """pytest rewrites the asserts of every module in a plugin's distribution. This one's are the
    harness (no test among them), and where compiled modules are not cached (PYTHONDONTWRITEBYTECODE,
    a read-only site-packages) rewriting them cost about a second of CPU in every process, each
    xdist worker included. This module, imported already, is the only one rewritten."""
    _unmark_rewrite(pluginmanager, __name__.partition(".")[0])


def _unmark_rewrite(pluginmanager: pytest.PytestPluginManager, name: str) -> bool:
    """Stop pytest rewriting the asserts of package `name` (through its private hook: with another
    pytest, nothing changes). True when it was marked."""
    hook = getattr(pluginmanager, "rewrite_hook", None)
    marked = getattr(hook, "_must_rewrite", None)
    if not isinstance(marked, set) or name not in marked:
        return False
    marked.discard(name)
    cache = getattr(hook, "_marked_for_rewrite_cache", None)
    if isinstance(cache, dict):
        cache.clear()
    return True


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_RESULTS] = []
    config.stash[_REAL] = []
    _check_space_form(config)
    config.stash[_ROOT] = _root(config)
    if config.stash[_ROOT] is None:
        return
    config.addinivalue_line("markers", MARKER)
    # hypothesis, a dependency of the checks, ships a pytest plugin, so pytest rewrites the whole
    # package, and its plugin imports it at every session's end (workers included): where compiled
    # modules are not cached that is about a second per process, for asserts no test of the project holds.
    _unmark_rewrite(config.pluginmanager, "hypothesis")
    # Bad input is one usage error now, not one failure per item later.
    from conformance.capabilities import get_profile
    from conformance.exceptions import ConformanceError

    try:
        for name in config.getoption("--conformance-provider") or ():
            get_profile(name)
    except ConformanceError as exc:
        raise pytest.UsageError(f"--conformance-provider: {exc}") from None
    if _xdist_controller(config) and not _runtime_given(config):
        return  # the reference runtime, loaded by each worker: nothing here to check or to run
    _context(config)


def _xdist_controller(config: pytest.Config) -> bool:
    """This process hands the items to pytest-xdist workers and runs none itself."""
    return getattr(config.option, "dist", "no") != "no" and not hasattr(config, "workerinput")


def _runtime_given(config: pytest.Config) -> bool:
    return bool(_runtime_spec(config) or config.getoption("--conformance-runtime-cmd"))


def _runtime_spec(config: pytest.Config) -> str | None:
    """`--conformance-runtime`, else the `conformance_runtime` ini key (the project's configuration)."""
    return config.getoption("--conformance-runtime") or str(config.getini("conformance_runtime") or "") or None


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """`--conformance-root DIR` with a space: pytest reads its configuration before this plugin is
    loaded, taking DIR for a test path, so a DIR holding a pytest configuration of its own made pytest
    read that one instead of the project's. Now that the option is known, the configuration is
    looked up again without DIR, as it is for `--conformance-root=DIR`."""
    if not _space_form_roots(early_config):
        return
    ns = early_config.known_args_namespace
    try:
        from _pytest.config.findpaths import determine_setup

        rootpath, inipath, inicfg, ignored = determine_setup(
            inifile=ns.inifilename,
            override_ini=ns.override_ini,
            args=ns.file_or_dir,
            rootdir_cmd_arg=ns.rootdir or None,
            invocation_dir=early_config.invocation_params.dir,
        )
    except (ImportError, TypeError, AttributeError):  # another pytest: the configure-time check names the fix
        return
    if inipath == early_config.inipath and rootpath == early_config.rootpath:
        return
    old_addopts = list(early_config.getini("addopts"))
    early_config._rootpath = rootpath
    early_config._inipath = inipath
    early_config._inicfg = inicfg
    early_config._ignored_config_files = ignored
    early_config._inicache.clear()
    parser.extra_info["rootdir"] = str(rootpath)
    parser.extra_info["inifile"] = str(inipath)
    new_addopts = list(early_config.getini("addopts"))
    if args[: len(old_addopts)] == old_addopts:
        args[: len(old_addopts)] = new_addopts
        early_config.pluginmanager.consider_preparse(new_addopts, exclude_only=False)
    early_config.known_args_namespace = parser.parse_known_args(args, namespace=copy.copy(early_config.option))
    if not any(arg.startswith("--confcutdir") for arg in args):
        base = inipath.parent if inipath is not None else rootpath
        early_config.known_args_namespace.confcutdir = str(base)


def _space_form_roots(config: pytest.Config) -> list[str]:
    args = list(config.invocation_params.args)
    return [args[i + 1] for i, arg in enumerate(args[:-1]) if arg == "--conformance-root"]


def _check_space_form(config: pytest.Config) -> None:
    """The configuration still read from inside DIR (a pytest whose internals differ): say how to fix it."""
    given = _space_form_roots(config)
    if not given or config.inipath is None:
        return
    root = (config.invocation_params.dir / given[-1]).resolve()
    named = [Path(a).resolve() for a in config.invocation_params.args if not str(a).startswith("-")]
    inside = [p for p in named if p != root and p.is_relative_to(root)]
    if config.inipath.parent == root and not inside and not config.invocation_params.dir.resolve().is_relative_to(root):
        raise pytest.UsageError(
            f"--conformance-root {given[-1]}: pytest read its configuration from {config.inipath}, taking "
            f"{given[-1]} for a test path; write --conformance-root={given[-1]} (or set conformance_root in the ini)"
        )


def _root(config: pytest.Config) -> Path | None:
    """The top project root when the conformance checks were asked for, else None (the plugin stays idle).

    With several roots, or a root whose conformance.yaml layers it over the bundled data, the layers
    are kept on the stash and the top root's scenarios/ collects every layer's scenarios."""
    roots = _given_roots(config)
    if not roots:
        return None
    for root in roots:
        if not root.is_dir():
            raise pytest.UsageError(f"conformance root {root} is not a directory")
    if len(roots) == 1 and not (roots[0] / "conformance.yaml").is_file():
        if not (roots[0] / "scenarios").is_dir():
            raise pytest.UsageError(f"conformance root {roots[0]} has no scenarios/ directory")
        return roots[0]
    from conformance.data import bundled_root
    from conformance.exceptions import ConformanceError
    from conformance.scenarios import stack_roots

    try:
        layers = stack_roots(roots, bundled_root())
    except ConformanceError as exc:
        raise pytest.UsageError(f"conformance root: {exc}") from None
    if not (roots[-1] / "scenarios").is_dir():
        raise pytest.UsageError(f"conformance root {roots[-1]} has no scenarios/ directory")
    if len(layers) > 1:
        config.stash[_LAYERS] = layers
    return roots[-1]


def _given_roots(config: pytest.Config) -> list[Path]:
    """The roots named by `--conformance-root` or the ini key, lowest first (none: the plugin is idle)."""
    given = config.getoption("--conformance-root")
    if given:
        return [Path(g).resolve() for g in given]
    ini = [str(line) for line in config.getini("conformance_root") if str(line).strip()]
    base = config.inipath.parent if config.inipath is not None else config.rootpath
    return [(base / line).resolve() for line in ini]


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto` over conformance checks alone (`-m provider`, replayed by an in-process runtime):
    checks run ahead in forked processes, or as many xdist workers as the run repays
    (`conformance.pytest_workers`); else xdist decides."""
    import os

    markexpr = str(config.getoption("markexpr", "") or "").strip()
    if (
        markexpr != "provider"
        or os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS")
        or config.getoption("--conformance-runtime-cmd")
        or config.getoption("--conformance-record-mode") != "none"
    ):
        return None
    roots = _given_roots(config)
    if not roots or not all(root.is_dir() for root in roots):
        return None
    from conformance.capabilities import matrix_providers
    from conformance.data import bundled_root
    from conformance.exceptions import ConformanceError
    from conformance.pytest_workers import can_fork, count_checks, cpus, decide
    from conformance.scenarios import stack_roots

    layered = len(roots) > 1 or (roots[0] / "conformance.yaml").is_file()
    try:
        layers = stack_roots(roots, bundled_root()) if layered else tuple(roots)
    except ConformanceError:
        return None  # said once, at configure time
    targets = [(config.invocation_params.dir / str(arg).split("::")[0]).resolve() for arg in config.args]
    providers = len(config.getoption("--conformance-provider") or ()) or len(matrix_providers())
    checks = count_checks([layer / "scenarios" for layer in layers], targets, providers)
    decision = decide(checks, cpus(), can_fork())
    config.stash[_WORKERS] = decision.describe()
    config.stash[_FORKS] = decision.forks
    return decision.workers


def pytest_report_header(config: pytest.Config) -> str | None:
    return f"conformance: {config.stash[_WORKERS]}" if _WORKERS in config.stash else None


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session: pytest.Session) -> Generator[None, object, object]:
    """With `-n auto` turned into forked processes, every selected check runs ahead, in parallel;
    each item then reports its result as if it had just run it."""
    forks = session.config.stash.get(_FORKS, 0)
    if forks > 1 and not session.testsfailed and not session.config.option.collectonly:
        _run_ahead(session, forks)
    return (yield)


def _run_ahead(session: pytest.Session, forks: int) -> None:
    from conformance.exceptions import ConformanceError
    from conformance.harness.parallel import can_fork, run_parallel
    from conformance.harness.run import fewer_collections

    items = [item for item in session.items if isinstance(item, ScenarioItem)]
    ctx = _context(session.config)
    if len(items) < 2 or getattr(ctx.runtime, "real_time", False) or not can_fork():
        return
    try:
        with fewer_collections():
            results = run_parallel([(item.scenario, item.provider) for item in items], ctx, min(forks, len(items)))
    except ConformanceError:  # a worker died: each item runs its check itself, and shows what goes wrong
        return
    if len(results) == len(items):
        for item, res in zip(items, results, strict=True):
            item.ahead = res


def _context(config: pytest.Config) -> Any:
    if _CONTEXT not in config.stash:
        from conformance.exceptions import ConformanceError
        from conformance.harness import HarnessContext
        from conformance.runtime.loading import load_runtime

        root = config.stash[_ROOT]
        assert root is not None
        command = config.getoption("--conformance-runtime-cmd")
        where = "--conformance-runtime-cmd" if command else "--conformance-runtime"
        try:
            runtime, name = load_runtime(
                _runtime_spec(config),
                where=where,
                command=command,
                timeout=config.getoption("--conformance-runtime-timeout"),
                start_timeout=config.getoption("--conformance-runtime-start-timeout"),
                max_answer=config.getoption("--conformance-runtime-max-answer"),
            )
        except ConformanceError as exc:
            raise pytest.UsageError(f"{where}: {exc}") from None
        layers = config.stash.get(_LAYERS, ())
        config.stash[_CONTEXT] = HarnessContext(root=root, runtime=runtime, runtime_name=name, layers=layers)
    return config.stash[_CONTEXT]


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """The top root's scenarios/ collects its scenarios (with layered roots, every layer's) and the
    real traffic (`real[<column>]`)."""
    root = parent.config.stash.get(_ROOT, None)
    if root is None or path.resolve() != root / "scenarios":
        return None
    if _LAYERS not in parent.config.stash:
        return Scenarios.from_parent(parent, path=path)
    return LayeredScenarios.from_parent(parent, path=path)


class Scenarios(pytest.Directory):
    """The scenarios/ folder collected as pytest collects any folder (`pytest.Dir`, which cannot be
    subclassed), and its real traffic after it."""

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        ihook, config = self.ihook, self.config
        for entry in sorted(self.path.iterdir()):
            initial = self.session.isinitpath(entry, with_parents=entry.is_dir())
            if not initial and ihook.pytest_ignore_collect(collection_path=entry, config=config):
                continue
            if entry.is_dir():
                col = ihook.pytest_collect_directory(path=entry, parent=self)
                if col is not None:
                    yield col
            elif entry.is_file():
                yield from ihook.pytest_collect_file(file_path=entry, parent=self)
        if _real_wanted(self.config):
            yield RealTraffic.from_parent(self, name="real", path=_corpus_catalog())


class LayeredScenarios(pytest.Directory):
    def collect(self) -> Iterator[pytest.Collector]:
        from conformance.exceptions import ConformanceError
        from conformance.scenarios import load_layered

        layers: tuple[Path, ...] = self.config.stash[_LAYERS]
        try:
            scenarios = load_layered(layers)
        except ConformanceError as exc:
            raise self.CollectError(str(exc)) from None
        for scenario in scenarios:
            node = ScenarioFile.from_parent(self, path=scenario.path)
            node.scenario = scenario
            yield node
        if _real_wanted(self.config):
            yield RealTraffic.from_parent(self, name="real", path=_corpus_catalog())


def _real_wanted(config: pytest.Config) -> bool:
    return not config.getoption("--conformance-no-real") and bool(config.getini("conformance_real"))


def _corpus_catalog() -> Path:
    from conformance.evidence.expected import bundled_corpus

    return bundled_corpus() / "catalog.json"


class RealTraffic(pytest.Collector):
    """One item per column whose real calls the run judges (`harness.real.judged_columns`); the
    corpus is read when the first item runs, not at collection."""

    def collect(self) -> Iterator[pytest.Item]:
        from conformance.capabilities import matrix_providers
        from conformance.evidence.manifest import bundled_manifest
        from conformance.harness.real import judged_columns

        providers = self.config.getoption("--conformance-provider") or matrix_providers()
        read = {rec.provider for rec in bundled_manifest().recordings}
        for column in judged_columns(list(providers), read):
            if column in read:
                item = RealColumnItem.from_parent(self, name=f"real[{column}]", column=column)
                item.add_marker(pytest.mark.provider)
                yield item


class RealColumnItem(pytest.Item):
    """Every real call one column reads, decoded by the runtime under test and judged."""

    def __init__(self, *, column: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.column = column
        self.judged: list[Any] = []

    def runtest(self) -> None:
        from conformance.harness.real import column_cases, judge_call

        ctx = _context(self.config)
        self.judged = [judge_call(case, ctx) for case in column_cases(self.column)]
        self.user_properties.append(("real", f"{sum(r.verdict == 'pass' for r in self.judged)}/{len(self.judged)}"))
        if any(r.verdict in ("fail", "error") for r in self.judged):
            raise ScenarioFailed(None)
        if self.judged and all(r.verdict in ("skipped", "not_offered") for r in self.judged):
            pytest.skip(f"{self.judged[0].verdict}: {self.judged[0].reason}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        from conformance.harness.real import render_failures

        if isinstance(excinfo.value, ScenarioFailed):
            return f"real traffic of {self.column}: " + render_failures(self.judged)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"real[{self.column}] (the corpus's generation calls)"


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    root = parent.config.stash.get(_ROOT, None)
    if root is None or file_path.suffix != ".yaml" or _LAYERS in parent.config.stash:
        return None
    if not file_path.resolve().is_relative_to(root / "scenarios"):
        return None
    return ScenarioFile.from_parent(parent, path=file_path)


class ScenarioFile(pytest.File):
    scenario: Any = None
    """The scenario as its layers loaded it (None: read from the file)."""

    def collect(self) -> Iterator[pytest.Item]:
        from conformance.capabilities import default_columns, get_profile
        from conformance.exceptions import ConformanceError
        from conformance.scenarios import load_scenario

        try:
            scenario = self.scenario or load_scenario(self.path)
            providers = self.config.getoption("--conformance-provider") or default_columns()
            for name in providers:
                get_profile(name)
        except ConformanceError as exc:
            raise self.CollectError(str(exc)) from None
        for provider in (p for p in providers if scenario.applies(p)):
            item = ScenarioItem.from_parent(
                self, name=f"{scenario.id}[{provider}]", scenario=scenario, provider=provider
            )
            item.add_marker(pytest.mark.provider)
            yield item


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """In an xdist worker, the rows whose check reads every provider's cassettes come first. Every
    worker orders them alike, and xdist hands its first worker the first batch of items, so one
    worker decodes the whole corpus (and draws the generated examples) instead of each of them."""
    if not hasattr(config, "workerinput") or config.stash.get(_ROOT, None) is None:
        return
    from conformance.harness.checks import WHOLE_CORPUS_CHECKS

    first = [i for i in items if isinstance(i, ScenarioItem) and i.scenario.check in WHOLE_CORPUS_CHECKS]
    if first:
        moved = {id(i) for i in first}
        items[:] = first + [i for i in items if id(i) not in moved]


class ScenarioFailed(Exception):
    def __init__(self, result: ScenarioResult | None) -> None:
        super().__init__(result.reason if result is not None else "real calls failed")
        self.result = result


class RecordFailed(Exception):
    """A recording that failed, as one scrubbed line: shown without a traceback, so no frame's
    locals (the request headers, the key) are ever rendered."""


class ScenarioItem(pytest.Item):
    def __init__(self, *, scenario: Any, provider: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario
        self.provider = provider
        self.result: ScenarioResult | None = None
        self.ahead: ScenarioResult | None = None
        """The result of the check run ahead in a forked process (`-n auto`), when it was."""

    def runtest(self) -> None:
        from conformance.harness import run_check

        mode = self.config.getoption("--conformance-record-mode")
        if mode != "none" and self.scenario.check == "decode":
            self._record(mode)
        elif self.config.getoption("--conformance-accept") and self._new():
            self._accept_new()
        res = self.ahead if self.ahead is not None else run_check(self.scenario, self.provider, _context(self.config))
        self.result = res
        self.user_properties.append(("verdict", res.verdict))
        if res.verdict == "missing" and self.config.getoption("--conformance-strict"):
            pytest.fail(f"missing (--conformance-strict): {res.reason}", pytrace=False)
        if res.verdict in ("unsupported", "not_offered", "missing", "skipped", "policy"):
            pytest.skip(f"{res.verdict}: {res.reason}")
        if res.verdict in ("fail", "error"):
            raise ScenarioFailed(res)

    def _new(self) -> bool:
        """A decode scenario with no expected form yet (none shared, none for this provider)."""
        from conformance.scenarios.loader import override_providers

        spec = self.scenario.spec
        named = {name for key in spec.overrides for name in override_providers(key)}
        return self.scenario.check == "decode" and spec.expected is None and self.provider not in named

    def _accept_new(self) -> None:
        """`--conformance-accept` without recording: the cassette's outcome becomes the new scenario's
        expected form (as snapshot tools write a first snapshot); the item is skipped, to be reviewed."""
        from conformance.harness.record import accept

        root = _context(self.config).root
        cassette = self.scenario.cassette_path(self.provider, root)
        if not cassette.is_file():
            return  # judged as missing below
        accept(self.scenario, self.provider, cassette, root)
        pytest.skip(f"accepted: wrote the expected form of {self.scenario.id} from {cassette}; review it, run again")

    def _record(self, mode: str) -> None:
        import os
        from datetime import date

        from conformance.capabilities import get_profile
        from conformance.exceptions import MissingKeyError
        from conformance.harness.record import RecordReport, accept, record_scenario
        from conformance.runtime.auth import resolve_key

        entry = self.scenario.entry(self.provider)
        if entry is not None and entry.unsupported:
            return
        canonical = get_profile(self.provider)
        base_url = self.config.getoption("--conformance-base-url")
        profile = canonical.with_base_url(base_url) if base_url else canonical
        try:
            key = resolve_key(profile, os.environ)
        except MissingKeyError as exc:
            pytest.skip(f"skipped: {exc}")
        report = RecordReport()
        root = _context(self.config).root
        try:
            record_scenario(
                self.scenario,
                profile,
                canonical=canonical,
                root=root,
                key=key,
                mode=mode,  # type: ignore[arg-type]
                transport=None,
                today=date.today(),
                report=report,
            )
        except Exception as exc:  # rendered as one scrubbed line, never with its frames
            from conformance.exceptions import one_line
            from conformance.secrets import redact_line, scrub_exact

            secrets = (key.reveal(),) if key is not None else ()
            line = redact_line(scrub_exact(f"{type(exc).__name__}: {one_line(exc)}", secrets))
            raise RecordFailed(f"recording {self.scenario.id}[{self.provider}] failed: {line}") from None
        for message in report.refused.values():
            raise RecordFailed(f"recording refused: {message}")
        if self.config.getoption("--conformance-accept") and self.scenario.id in report.recorded:
            accept(self.scenario, self.provider, root / self.scenario.cassette_rel(self.provider), root)
        for sid, change in report.drift.items():
            self.user_properties.append(("drift", f"{sid}: {change}"))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioFailed) and excinfo.value.result is not None:
            return render_failure(excinfo.value.result)
        if isinstance(excinfo.value, RecordFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.scenario.id}[{self.provider}] ({self.scenario.feature})"


def render_failure(res: ScenarioResult) -> str:
    import json

    from conformance.compare import render_diff

    lines = [f"{res.scenario}[{res.provider}] — {res.title}", f"{res.verdict}: {res.reason}"]
    if res.cassette:
        lines.append(f"cassette: {res.cassette}")
    if res.diff:
        lines += ["", "differences (expected → actual, by contract path):", render_diff(res.diff)]
    if res.expected is not None or res.actual is not None:
        lines += ["", "expected:", json.dumps(res.expected, indent=2, ensure_ascii=False)]
        lines += ["actual:", json.dumps(res.actual, indent=2, ensure_ascii=False)]
    if res.traceback:
        lines += ["", "traceback of the runtime:", res.traceback]
    return "\n".join(lines)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    """With `--conformance-html`, the item's result rides on its report (plain JSON), so xdist carries
    it to the controller; without it, nothing reads the results and none is sent."""
    report = yield
    if (
        call.when == "call"
        and isinstance(item, ScenarioItem)
        and item.result is not None
        and item.config.getoption("--conformance-html")
    ):
        setattr(report, _REPORT_ATTR, item.result.model_dump(mode="json"))
    if call.when == "call" and isinstance(item, RealColumnItem) and item.config.getoption("--conformance-html"):
        from conformance.harness.real import to_json

        setattr(report, _REAL_ATTR, [to_json(r) for r in item.judged])
    return report


class _Collector:
    """Gathers results from reports, in-process or from xdist workers."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        from conformance.compare import ScenarioResult

        data = getattr(report, _REPORT_ATTR, None)
        if data is not None:
            self.config.stash[_RESULTS].append(ScenarioResult.model_validate(data))
        self.config.stash[_REAL].extend(getattr(report, _REAL_ATTR, None) or [])


def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    if config.stash.get(_ROOT, None) is not None and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_Collector(config), "conformance-collector")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
        _explain_nothing_collected(config)
    out = config.getoption("--conformance-html")
    results = config.stash.get(_RESULTS, [])
    real_json = config.stash.get(_REAL, [])
    if not out or not (results or real_json) or hasattr(config, "workerinput"):
        return
    from conformance.capabilities import matrix_providers
    from conformance.harness import build_matrix
    from conformance.report.html import write_html

    ctx = _context(config)
    ctx.declaration  # noqa: B018  read as the checks read it, so serial and xdist runs write the same matrix
    known = matrix_providers()
    order = {name: i for i, name in enumerate(known)}
    results = sorted(results, key=lambda r: (r.scenario_path, order.get(r.provider, len(order)), r.provider))
    providers = sorted({r.provider for r in results}, key=lambda p: (order.get(p, len(order)), p))
    real = None
    if real_json:
        from conformance.harness.real import from_json

        real = sorted(from_json(real_json), key=lambda r: r.case.call.where)
    matrix = build_matrix(results, providers, ctx, scenario_dir=ctx.root / "scenarios", real=real)
    matrix.interrupted = exitstatus == pytest.ExitCode.INTERRUPTED or bool(session.shouldstop)
    target = Path(out)
    matrix.save(target / "matrix.json")
    write_html(matrix, target)


def pytest_unconfigure(config: pytest.Config) -> None:
    """A runtime program (and every process it was started as) gets `shutdown`."""
    ctx = config.stash.get(_CONTEXT, None)
    close = getattr(getattr(ctx, "runtime", None), "close", None)
    if callable(close):
        close()


def _explain_nothing_collected(config: pytest.Config) -> None:
    """No item under `-m provider`: say where the scenarios are and why they were not collected."""
    root = config.stash.get(_ROOT, None)
    markexpr = str(config.getoption("markexpr", "") or "")
    if root is None or "provider" not in markexpr:
        return
    scenarios = root / "scenarios"
    paths = [Path(arg.split("::")[0]).resolve() for arg in config.args]
    if any(scenarios.is_relative_to(p) or p.is_relative_to(scenarios) for p in paths):
        return
    why = "the collected paths"
    testpaths = config.getini("testpaths")
    if testpaths and config.args_source == pytest.Config.ArgsSource.TESTPATHS:
        why = f"testpaths ({', '.join(map(str, testpaths))})"
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(
            f"conformance: no scenario collected: {scenarios} is outside {why}; "
            f"run `pytest -m provider {_shown(scenarios, config)}` or add it to testpaths",
            yellow=True,
        )


def _shown(path: Path, config: pytest.Config) -> str:
    try:
        return str(path.relative_to(config.invocation_params.dir))
    except ValueError:
        return str(path)
