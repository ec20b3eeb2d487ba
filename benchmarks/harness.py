"""Harness benchmark: the whole bundled matrix, the cost of one check against a replay floor, and scaling.

Times, in this one process and in turn within each repeat (so they share the machine's noise):

- matrix: what `conformance run` does after start-up — load every scenario, run every
  scenario × provider against the reference runtime, build the matrix, write matrix.json and
  index.html — from cold caches (parsed files and drawn examples are forgotten before each repeat),
  in this one process (`--jobs 1`) and in forked workers as `conformance run` does by default;
- cli: `conformance run` itself, as a user types it (interpreter start and imports included);
- checks: the decode checks alone, per check (scenario load, request encode, cassette matching,
  decode, contract validation and diff);
- floor: for the same decode checks, the least a replaying harness must do — read the cassette
  (libyaml, no validation), encode the request, send it through an `httpx.MockTransport` that
  returns the recorded bytes, decode the answer — with no matching, validation or comparison;
- scaling: the matrix over a synthetic project with every per-scenario row copied 10× (cassettes
  too) against the bundled one. Rows that read the whole corpus at once (`handoff`, `generated`)
  are kept once in both, as they are one row per provider whatever the scenario count.

Prints medians and the ratios (checks/floor, 10×/1×). Run:

    python benchmarks/harness.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from conformance.capabilities import get_profile, matrix_providers
from conformance.exceptions import ConformanceError
from conformance.fileio import clear_cache, parse_yaml
from conformance.harness import HarnessContext, build_matrix, run_all, run_check
from conformance.harness.checks import WHOLE_CORPUS_CHECKS
from conformance.harness.checks.generated import drawn_examples
from conformance.harness.parallel import auto_jobs
from conformance.model.parse import parse_conversation
from conformance.report.html import write_html
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario, load_scenarios

ROOT = Path(__file__).resolve().parents[1]


def cold() -> None:
    clear_cache()
    drawn_examples.cache_clear()


def run_matrix(root: Path, out: Path, jobs: int = 1) -> int:
    cold()
    ctx = HarnessContext(root=root, runtime=ReferenceRuntime())
    scenarios = load_scenarios(root / "scenarios")
    providers = matrix_providers()
    results = run_all(scenarios, providers, ctx, jobs=jobs)
    matrix = build_matrix(results, providers, ctx, scenario_dir=root / "scenarios")
    matrix.save(out / "matrix.json")
    write_html(matrix, out)
    return len(results)


def decode_pairs(root: Path) -> list[tuple[Scenario, str]]:
    pairs = []
    for scenario in load_scenarios(root / "scenarios"):
        if scenario.check != "decode":
            continue
        for provider in matrix_providers():
            entry = scenario.entry(provider)
            if scenario.cassette_path(provider, root).is_file() and not (entry and entry.unsupported):
                pairs.append((scenario, provider))
    return pairs


def run_checks(root: Path, pairs: list[tuple[Scenario, str]]) -> None:
    cold()
    ctx = HarnessContext(root=root, runtime=ReferenceRuntime())
    for scenario, provider in pairs:
        run_check(scenario, provider, ctx)


def floor_inputs(root: Path, pairs: list[tuple[Scenario, str]]) -> list[tuple[str, dict[str, object], Path]]:

    return [(p, s.conversation(p), s.cassette_path(p, root)) for s, p in pairs]


def run_floor(inputs: list[tuple[str, dict[str, object], Path]]) -> None:
    runtime = ReferenceRuntime()
    for provider, conv, path in inputs:
        data = parse_yaml(path.read_text(encoding="utf-8"))
        recorded = data["interactions"][0]["response"]
        body = recorded["body"]["string"].encode()
        headers = {k: v[-1] for k, v in (recorded.get("headers") or {}).items()}
        profile = get_profile(provider)
        wire = runtime.wire_request(parse_conversation(conv), profile)

        def answer(
            request: httpx.Request, status: int = recorded["status"]["code"], body: bytes = body
        ) -> httpx.Response:
            return httpx.Response(status, content=body)

        with httpx.Client(transport=httpx.MockTransport(answer)) as client:
            response = client.request(wire.method, wire.url(profile), json=wire.body, headers=wire.headers)
            content = response.read()
        # a malformed recording (a decode row whose expected form is a typed error) raises, as in the check
        with contextlib.suppress(ConformanceError):
            runtime.decode(provider, response.status_code, headers, [content], wire.stream)


def synthetic_project(times: int, target: Path) -> Path:
    """The bundled scenarios and cassettes with every per-scenario row copied `times` times."""
    (target / "scenarios").mkdir(parents=True)
    shutil.copytree(ROOT / "cassettes", target / "cassettes")
    for scenario in load_scenarios(ROOT / "scenarios"):
        rel = scenario.path.relative_to(ROOT / "scenarios")
        copies = 1 if scenario.check in WHOLE_CORPUS_CHECKS else times
        for n in range(copies):
            sid = scenario.id if n == 0 else f"{scenario.id}__x{n}"
            dest = target / "scenarios" / rel.parent / f"{sid}.yaml"
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(scenario.path, dest)
            if n == 0:
                continue
            for provider_dir in (target / "cassettes").iterdir():
                src = provider_dir / f"{scenario.id}.yaml"
                if src.is_file():
                    shutil.copyfile(src, provider_dir / f"{sid}.yaml")
    return target


def run_cli(out: Path) -> None:
    command = [sys.executable, "-m", "conformance.cli", "run", "--no-progress", "--root", str(ROOT), "--out", str(out)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--times", type=int, default=10, help="copies of each scenario for the scaling run")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        big = synthetic_project(args.times, base / "big")
        one = synthetic_project(1, base / "one")
        pairs = decode_pairs(ROOT)
        inputs = floor_inputs(ROOT, pairs)
        n_checks = run_matrix(ROOT, base / "out")  # warm-up: imports, first-use costs
        n_one = run_matrix(one, base / "out1")
        n_big = run_matrix(big, base / "out10")
        jobs = auto_jobs(n_checks)
        names = ("matrix", "parallel", "cli", "checks", "floor", "1x", "10x")
        series: dict[str, list[float]] = {name: [] for name in names}
        for _ in range(args.repeat):
            series["matrix"].append(timed(lambda: run_matrix(ROOT, base / "out")))
            series["parallel"].append(timed(lambda: run_matrix(ROOT, base / "out", jobs)))
            series["cli"].append(timed(lambda: run_cli(base / "out")))
            series["checks"].append(timed(lambda: run_checks(ROOT, pairs)))
            series["floor"].append(timed(lambda: run_floor(inputs)))
            series["1x"].append(timed(lambda: run_matrix(one, base / "out1")))
            series["10x"].append(timed(lambda: run_matrix(big, base / "out10")))
    med = {k: statistics.median(v) for k, v in series.items()}
    per_check = med["checks"] / len(pairs) * 1e3
    per_floor = med["floor"] / len(pairs) * 1e3
    added = n_big - n_one
    marginal = (med["10x"] - med["1x"]) / added * 1e3
    print(f"matrix: {n_checks} checks (scenario × provider), HTML included: {med['matrix']:.2f} s in one process")
    speedup = med["matrix"] / med["parallel"]
    print(f"matrix in {jobs} workers (the default): {med['parallel']:.2f} s ({speedup:.2f}× faster)")
    print(f"`conformance run` as typed, start-up included: {med['cli']:.2f} s")
    print(f"decode checks: {len(pairs)}; per check {per_check:.2f} ms; MockTransport floor {per_floor:.2f} ms")
    print(f"ratio check / floor: {med['checks'] / med['floor']:.2f}×")
    print(
        f"scaling: {n_one} checks {med['1x']:.2f} s, {n_big} checks {med['10x']:.2f} s "
        f"({med['10x'] / med['1x']:.2f}× the time for {n_big / n_one:.2f}× the checks); "
        f"each added check {marginal:.2f} ms against {med['1x'] / n_one * 1e3:.2f} ms on average at 1×"
    )
    print(f"(medians of {args.repeat} repeats)")


if __name__ == "__main__":
    main()
