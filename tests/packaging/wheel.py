"""The project's wheel, built for the tests that install it (tests/conftest.py's `wheel` fixture)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def build_wheel(where: Path) -> Path:
    """Build the wheel in `where` from a copy of the sources it is made of (pyproject.toml, README.md,
    src/ with its data links followed), so the checkout gets no build/ or egg-info and two builds
    never share a directory. Without network when the build backend is at hand locally."""
    source = where / "source"
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    out = where / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if build.returncode != 0:
        raise RuntimeError(f"building the wheel failed: {build.stderr[-2000:]}")
    (found,) = out.glob("llm_conformance-*.whl")
    return found
