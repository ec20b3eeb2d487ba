"""The wheel carries the bundled scenarios and cassettes: installed anywhere, `conformance run` in an
empty folder replays them and writes its reports there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.xdist_group("wheel")  # under --dist loadgroup, with the workflow replays: one build


def test_the_wheel_holds_the_real_corpus(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    shipped = {n for n in names if n.startswith("conformance/data/corpus/") and n.endswith(".yaml")}
    assert len(shipped) == len(list((ROOT / "corpus").rglob("*.yaml")))
    assert "conformance/data/corpus/catalog.json" in names
    assert "conformance/data/corpus/ATTRIBUTION.md" in names


def test_the_wheel_holds_every_scenario_and_cassette(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    scenarios = {n for n in names if n.startswith("conformance/data/scenarios/") and n.endswith(".yaml")}
    cassettes = {n for n in names if n.startswith("conformance/data/cassettes/") and n.endswith(".yaml")}
    assert len(scenarios) == len(list((ROOT / "scenarios").rglob("*.yaml")))
    assert len(cassettes) == len(list((ROOT / "cassettes").rglob("*.yaml")))


@pytest.fixture(scope="module")
def site(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel installed into a folder of its own, once for the tests of this module (each runs in a
    project folder of its own; none writes into the installed package, which the first test checks)."""
    target = tmp_path_factory.mktemp("site")
    install = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)]
    subprocess.run(install, check=True, timeout=300, capture_output=True)
    return target


def test_run_from_the_installed_wheel_in_an_empty_folder(site: Path, tmp_path: Path) -> None:
    target, work = site, tmp_path / "project"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(target)}
    where = subprocess.run(
        [sys.executable, "-c", "import conformance; print(conformance.__file__)"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert where.startswith(str(target))  # the installed copy, not this checkout
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "conformance.cli",
            "run",
            "--no-progress",
            "--provider",
            "openai",
            "--provider",
            "anthropic",
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    matrix = json.loads((work / "reports" / "matrix.json").read_text())
    assert matrix["counts"]["pass"] > 80 and matrix["counts"].get("fail", 0) == 0
    assert (work / "reports" / "index.html").is_file()
    assert not (target / "conformance" / "data" / "reports").exists()  # nothing written into the package
    real = {c["provider"]: c["traffic"] for c in matrix["real_traffic"]}  # the corpus and its expected forms ship
    assert real["openai"]["calls"] > 100 and real["openai"]["counts"] == {"pass": real["openai"]["calls"]}


def test_a_scaffolded_root_layers_over_the_installed_wheel(site: Path, tmp_path: Path) -> None:
    """`conformance init` from the wheel, then its root's own scenario and feature run beside the bundled ones."""
    target, work = site, tmp_path / "project"
    env = {**os.environ, "PYTHONPATH": str(target)}
    cli = [sys.executable, "-m", "conformance.cli"]
    subprocess.run([*cli, "init", str(work)], env=env, check=True, capture_output=True, timeout=120)
    providers = ["--provider", "anthropic", "--provider", "openai"]
    run = subprocess.run(
        [
            *cli,
            "run",
            "--root",
            "conformance",
            "--runtime",
            "my_runtime:make",
            "--no-progress",
            "--no-html",
            *providers,
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode in (0, 1), run.stdout[-2000:] + run.stderr[-2000:]
    matrix = json.loads((work / "reports" / "matrix.json").read_text())  # from the working directory
    results = {(r["scenario"], r["provider"]): r for cell in matrix["cells"] for r in cell["results"]}
    assert results[("my_greeting", "anthropic")]["verdict"] == "pass"
    assert ("my_greeting", "openai") not in results
    assert "my_greeting" in [f["id"] for f in matrix["features"]]
    assert len({sid for sid, _ in results}) == len(list((ROOT / "scenarios").rglob("*.yaml"))) + 1
