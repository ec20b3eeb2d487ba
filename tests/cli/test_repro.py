"""`conformance repro`: a row written as a standalone script; bad input is one line, exit 2.

The toy runtime here reads an OpenAI chat answer with the standard library and always says `stop`:
its script (which copies `_read` from this module, and the kit's `failed`) fails with the row's
difference when run with nothing of the project importable. docs/repro's scripts of the real
libraries are run by tests/examples/test_repro.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request  # noqa: F401  (what the toy's snippet calls: copied into its script)
from pathlib import Path
from typing import Any

import pytest

from conformance.adapters import Reproduction, failed
from conformance.capabilities import get_profile
from conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _read(body: bytes, provider: str) -> dict[str, Any]:
    """An OpenAI chat answer, read the toy's way: every answer a plain stop."""
    try:
        data = json.loads(body)
    except ValueError:
        return failed({"kind": "server", "message": "not JSON"}, None)
    text = data["choices"][0]["message"].get("content") or ""
    message = {"role": "assistant", "content": [{"type": "text", "text": text}], "stop_reason": "stop"}
    return {"message": {**message, "provider": provider, "model": get_profile(provider).default_model}}


class Toy:
    """A decode runtime offering a reproduction (its `library` is urllib)."""

    reproduction = Reproduction(
        module=__name__,
        decode="""
def library_result(url: str) -> dict[str, Any]:
    request = urllib.request.Request(url + PATH + "/chat/completions", data=b"{}", method="POST")
    with urllib.request.urlopen(request) as answer:
        return _read(answer.read(), PROVIDER)
""",
    )

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        return _read(b"".join(chunks), provider)


class Plain:
    """A decode runtime offering no reproduction."""

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        return _read(b"".join(chunks), provider)


ALONE = (
    "import runpy, sys\n"
    "sys.modules['conformance'] = sys.modules['examples'] = sys.modules['tests'] = None\n"
    "sys.argv = sys.argv[1:]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)


def _alone(script: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CI")}
    return subprocess.run(
        [sys.executable, "-I", "-c", ALONE, str(script), *args], cwd=cwd, env=env, capture_output=True, text=True
    )


def test_a_row_becomes_a_script_that_fails_with_its_difference_and_passes_on_the_library_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "repro"
    argv = ["repro", "stop_length", "--provider", "openai", "--runtime", "tests.cli.test_repro:Toy"]
    assert main([*argv, "--out", str(out), "--root", str(ROOT)]) == 0
    assert "the row: fail" in capsys.readouterr().out
    [script] = out.glob("*.py")
    source = script.read_text(encoding="utf-8")
    assert "def _read(" in source and "def failed(" in source and "def get_profile(" in source
    assert '~ message.stop_reason: expected "length", got "stop"' in source  # the row, quoted
    fails = _alone(script, tmp_path)
    assert fails.returncode == 1, fails.stderr
    assert '~ message.stop_reason: expected "length", got "stop"' in fails.stdout.splitlines()
    got = _alone(script, tmp_path, "--got")
    start, end = source.index("EXPECTED = json.loads(r'''\n"), source.index("\n''')  # EXPECTED end")
    head = len("EXPECTED = json.loads(r'''\n")
    passing = tmp_path / "passing.py"
    passing.write_text(source[: start + head] + got.stdout.strip() + source[end:], encoding="utf-8")
    agrees = _alone(passing, tmp_path)
    assert agrees.returncode == 0, agrees.stdout + agrees.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["nosuch", "--provider", "openai", "--runtime", "tests.cli.test_repro:Toy"], "no scenario named nosuch"),
        (["stop_length", "--provider", "nosuch", "--runtime", "tests.cli.test_repro:Toy"], "unknown provider"),
        (["stop_length", "--provider", "openai", "--runtime", "tests.cli.nosuch:make"], "cannot import"),
        (
            ["stop_length", "--provider", "openai", "--runtime", "tests.cli.test_repro:Plain"],
            "offers no standalone reproduction",
        ),
        (
            ["repair_orphan_tool_result", "--provider", "anthropic", "--runtime", "tests.cli.test_repro:Toy"],
            "offers no standalone reproduction of repair rows",
        ),
    ],
    ids=["scenario", "provider", "runtime", "no-reproduction", "repair-row"],
)
def test_bad_input_is_one_line_exit_2(
    args: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["repro", *args, "--out", str(tmp_path), "--root", str(ROOT)]) == 2
    err = capsys.readouterr().err.strip()
    assert said in err and len(err.splitlines()) == 1, err
    assert not list(tmp_path.glob("*.py"))
