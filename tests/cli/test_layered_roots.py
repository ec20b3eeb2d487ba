"""A user's root layered over the bundled data: new scenarios and features join, same ids override."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.data import bundled_root
from tests.harness.project import OVERRIDE_TITLE, USER_FEATURE, make_user_root

PROVIDERS = ["--provider", "anthropic", "--provider", "openai"]


def _results(matrix: dict[str, object]) -> list[dict[str, object]]:
    return [r for cell in matrix["cells"] for r in cell["results"]]  # type: ignore[attr-defined]


def test_a_user_root_runs_beside_the_bundled_matrix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_user_root(tmp_path / "mine", bundled_root() / "scenarios")
    out = tmp_path / "out"
    code = main(["run", "--root", str(root), *PROVIDERS, "--no-progress", "--no-html", "--out", str(out)])
    printed = capsys.readouterr().out
    matrix = json.loads((out / "matrix.json").read_text())
    results = _results(matrix)
    by_key = {(r["scenario"], r["provider"]): r for r in results}
    # the project's own scenario, under its own feature, only where it applies
    assert by_key[("text_hello", "anthropic")]["verdict"] == "pass"
    assert by_key[("text_hello", "anthropic")]["feature"] == USER_FEATURE
    assert ("text_hello", "openai") not in by_key
    assert USER_FEATURE in [f["id"] for f in matrix["features"]]
    assert "Greets in the model" in printed or USER_FEATURE in printed
    # the override replaced the bundled scenario of the same id
    assert by_key[("text_basic", "openai")]["title"] == OVERRIDE_TITLE
    assert by_key[("text_basic", "openai")]["verdict"] == "pass"
    # and the bundled matrix runs beside them
    bundled = sum(1 for _ in (bundled_root() / "scenarios").rglob("*.yaml"))
    assert len({r["scenario"] for r in results}) == bundled + 1
    assert code in (0, 1)


def test_roots_layer_in_the_order_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lower = make_user_root(tmp_path / "lower", bundled_root() / "scenarios")
    upper = tmp_path / "upper"
    (upper / "scenarios" / "responses").mkdir(parents=True)
    text = (lower / "scenarios" / "responses" / "text_basic.yaml").read_text()
    (upper / "scenarios" / "responses" / "text_basic.yaml").write_text(text.replace(OVERRIDE_TITLE, "Upper's own"))
    out = tmp_path / "out"
    args = ["run", "--root", str(lower), "--root", str(upper), "--provider", "openai", "--scenario", "text_basic"]
    main([*args, "--no-progress", "--no-html", "--out", str(out)])
    capsys.readouterr()
    (result,) = _results(json.loads((out / "matrix.json").read_text()))
    assert result["title"] == "Upper's own"


def test_an_undeclared_feature_names_the_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_user_root(tmp_path / "mine", bundled_root() / "scenarios")
    text = (root / "scenarios" / "responses" / "text_hello.yaml").read_text()
    (root / "scenarios" / "responses" / "text_hello.yaml").write_text(text.replace(USER_FEATURE, "nobody_declared"))
    assert main(["run", "--root", str(root), "--provider", "anthropic", "--no-progress", "--no-html"]) == 2
    err = capsys.readouterr().err
    assert "unknown feature 'nobody_declared'" in err and "conformance.yaml" in err
    assert "Traceback" not in err


def test_a_bad_manifest_is_one_line_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_user_root(tmp_path / "mine", bundled_root() / "scenarios")
    (root / "conformance.yaml").write_text("bundled: true\nfeatures: [{id: Bad-Id, title: x}]\n")
    assert main(["run", "--root", str(root), "--provider", "anthropic", "--no-progress", "--no-html"]) == 2
    err = capsys.readouterr().err
    assert "conformance.yaml" in err and "features.0.id" in err
