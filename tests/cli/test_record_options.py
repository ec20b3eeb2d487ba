"""`conformance record` in CI: a missing key fails the job; failing cells are judged by the user's runtime."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from conformance.cli import main
from conformance.harness.record import record
from conformance.runtime.reference import ReferenceRuntime
from tests.harness.project import make_project

_BODY = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5-20250929",
    "content": [{"type": "text", "text": "Hello!"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 12, "output_tokens": 4},
}


class DropsText(ReferenceRuntime):
    """Decodes every reply without its content."""

    def decode(self, *args: object, **kwargs: object) -> dict[str, object]:
        out = super().decode(*args, **kwargs)  # type: ignore[arg-type]
        out["message"]["content"] = []  # type: ignore[index]
        return out


def test_require_keys_exits_2_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["record", "--provider", "anthropic", "--root", str(root), "--no-progress"]) == 0
    assert "skipped" in capsys.readouterr().out
    code = main(["record", "--provider", "anthropic", "--root", str(root), "--no-progress", "--require-keys"])
    err = capsys.readouterr().err
    assert code == 2
    assert "ANTHROPIC_API_KEY" in err and "Traceback" not in err


def _transport(seen: list[str]) -> httpx.MockTransport:
    def reply(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(200, json=_BODY, headers={"content-type": "application/json"})

    return httpx.MockTransport(reply)


def test_record_failing_follows_the_given_runtime(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    env = {"ANTHROPIC_API_KEY": "sk-test-not-a-key"}
    seen: list[str] = []
    kept = record(root, "anthropic", only_failing=True, env=env, transport=_transport(seen))
    assert kept.recorded == [] and seen == []  # the reference runtime passes: nothing to re-record
    report = record(
        root, "anthropic", only_failing=True, env=env, transport=_transport(seen), runtime=DropsText(), runtime_name="x"
    )
    assert report.recorded == ["text_hello"] and len(seen) == 1


def test_record_runtime_option_is_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    code = main(["record", "--provider", "anthropic", "--root", str(root), "--runtime", "no_such_module:make"])
    assert code == 2
    assert "no_such_module" in capsys.readouterr().err


def _answer(status: int) -> httpx.MockTransport:
    body = _BODY if status == 200 else {"type": "error", "error": {"type": "not_found_error", "message": "Not Found"}}
    return httpx.MockTransport(
        lambda _: httpx.Response(status, json=body, headers={"content-type": "application/json"})
    )


def test_a_404_never_replaces_a_200_cassette_unless_told(tmp_path: Path) -> None:
    """Recording against a wrong base URL: the cassettes stay, the report says why, the command exits 1."""
    assert main(["init", str(tmp_path)]) == 0
    root = tmp_path / "conformance"
    cassette = root / "cassettes" / "anthropic" / "my_greeting.yaml"
    before = cassette.read_text()
    env = {"ANTHROPIC_API_KEY": "sk-test-not-a-key"}
    args = {"mode": "all", "scenario_ids": ["my_greeting"], "env": env, "layers": (root,)}
    report = record(root, "anthropic", transport=_answer(404), **args)  # type: ignore[arg-type]
    assert report.recorded == [] and "my_greeting" in report.refused
    assert "404" in report.refused["my_greeting"] and "200" in report.refused["my_greeting"]
    assert cassette.read_text() == before
    report = record(root, "anthropic", transport=_answer(404), allow_status_change=True, **args)  # type: ignore[arg-type]
    assert report.recorded == ["my_greeting"] and "404" in cassette.read_text()


def test_own_records_only_the_projects_scenarios_not_the_bundled_ones(tmp_path: Path) -> None:
    from conformance.commands.roots import resolve_roots
    from conformance.harness.record import recordable

    assert main(["init", str(tmp_path)]) == 0
    roots = resolve_roots([str(tmp_path / "conformance")])
    everything = recordable(roots.top, "anthropic", None, roots.layers)
    own = recordable(roots.top, "anthropic", None, roots.layers, own=True)
    assert len(everything) > 10
    assert [s.id for s in own] == ["my_greeting"]
