"""The `context` check against the bundled context scenarios: green for the reference runtime,
red for runtimes with one deliberate context bug each, skipped for a runtime without `context`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from conformance.harness import HarnessContext, run_check
from conformance.model import Message
from conformance.runtime.context.api import handle
from conformance.runtime.context.session import recover_session
from conformance.runtime.reference import ReferenceRuntime
from conformance.runtime.transcripts import append_message, save_transcript
from conformance.scenarios import Scenario, load_scenarios

ROOT = Path(__file__).resolve().parents[2]
CONTEXT = [s for s in load_scenarios(ROOT / "scenarios") if s.check == "context"]


def _verdicts(runtime: Any, scenario_ids: Sequence[str] | None = None) -> dict[tuple[str, str], str]:
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=getattr(runtime, "name", "mutant"))
    out: dict[tuple[str, str], str] = {}
    for scenario in CONTEXT:
        if scenario_ids is not None and scenario.id not in scenario_ids:
            continue
        for provider in scenario.spec.providers:
            out[(scenario.id, provider)] = run_check(scenario, provider, ctx).verdict
    return out


def _by_id(scenario_id: str) -> Scenario:
    return next(s for s in CONTEXT if s.id == scenario_id)


def test_the_reference_runtime_passes_every_context_scenario() -> None:
    verdicts = _verdicts(ReferenceRuntime())
    assert len({sid for sid, _ in verdicts}) >= 12
    bad = {k: v for k, v in verdicts.items() if v not in ("pass", "unsupported")}
    assert not bad


class SummaryWithoutBoundary(ReferenceRuntime):
    """Appends the compaction summary to the session but never removes what it summarises."""

    name = "summary-without-boundary"

    def context(self, request: dict[str, Any], transport: Any = None) -> dict[str, Any]:
        def writer(path: Path, messages: Sequence[Message]) -> None:
            append_message(path, messages[1])  # the summary, after the old history

        return handle(request, transport=transport, writer=writer)


class CallSeparatedFromResult(ReferenceRuntime):
    """Trims by dropping the oldest messages one by one, whatever they are."""

    name = "call-separated"

    def context(self, request: dict[str, Any], transport: Any = None) -> dict[str, Any]:
        answer = handle(request, transport=transport)
        if request["op"] == "trim":
            messages = request["conversation"]["messages"]
            answer["messages"] = [messages[0], *messages[3:]]  # cuts turn 1 after its tool call
        return answer


class WriterNotAtomic(ReferenceRuntime):
    """Empties the session file before writing the compacted one, and fails half-way."""

    name = "not-atomic"

    def context(self, request: dict[str, Any], transport: Any = None) -> dict[str, Any]:
        def writer(path: Path, messages: Sequence[Message]) -> None:
            save_transcript(path, messages[:1])  # only the system prompt made it to disk

        return handle(request, transport=transport, writer=writer)


class NoBackupRestore(ReferenceRuntime):
    """Recovery that ignores the backup."""

    name = "no-restore"

    def context(self, request: dict[str, Any], transport: Any = None) -> dict[str, Any]:
        if request["op"] == "recover":
            Path(request["session"] + ".bak").unlink(missing_ok=True)
            return {"actions": recover_session(request["session"])}
        return handle(request, transport=transport)


class PrefersTheBackup(ReferenceRuntime):
    """Recovery that takes the backup for the safer copy: whenever one is left, it replaces the session file."""

    name = "prefers-backup"

    def context(self, request: dict[str, Any], transport: Any = None) -> dict[str, Any]:
        if request["op"] == "recover":
            backup = Path(request["session"] + ".bak")
            if backup.is_file():
                backup.replace(request["session"])
            return {"actions": recover_session(request["session"])}
        return handle(request, transport=transport)


class UncappedAppend(ReferenceRuntime):
    name = "uncapped"

    def context(self, request: dict[str, Any], transport: Any = None) -> dict[str, Any]:
        if request["op"] == "append":
            request = {**request, "settings": {}}
        return handle(request, transport=transport)


@pytest.mark.parametrize(
    ("runtime", "scenario_id"),
    [
        (SummaryWithoutBoundary(), "compact_session"),
        (SummaryWithoutBoundary(), "compact_input_overflow"),
        (CallSeparatedFromResult(), "trim_tool_continuation"),
        (WriterNotAtomic(), "compact_session"),
        (NoBackupRestore(), "recover_emptied_session"),
        (PrefersTheBackup(), "recover_completed_compaction"),
        (UncappedAppend(), "append_tool_result_capped"),
    ],
    ids=lambda v: v if isinstance(v, str) else type(v).__name__,
)
def test_a_mutant_turns_its_row_red(runtime: Any, scenario_id: str) -> None:
    verdicts = _verdicts(runtime, [scenario_id])
    assert verdicts
    assert {v for v in verdicts.values() if v != "unsupported"} == {"fail"}


def test_preferring_the_backup_turns_only_the_completed_compaction_red() -> None:
    """Where the backup is the same history (an interrupted compaction) or the only one (an emptied
    session), preferring it changes nothing: only a session newer than its backup tells the copies apart."""
    recover_rows = [s.id for s in CONTEXT if s.spec.input.get("op") == "recover"]
    verdicts = _verdicts(PrefersTheBackup(), recover_rows)
    red = {sid for (sid, _), v in verdicts.items() if v == "fail"}
    assert red == {"recover_completed_compaction"}


def test_the_atomic_writer_mutant_is_caught_by_the_restore() -> None:
    """A writer that loses the history is undone: the reference restores the backup and says so."""
    res = run_check(
        _by_id("compact_session"),
        "openai",
        HarnessContext(root=ROOT, runtime=WriterNotAtomic(), runtime_name="not-atomic"),
    )
    assert res.verdict == "fail"
    assert res.actual is not None
    assert res.actual["error"] == {"kind": "empty_after_compaction"}
    original = _by_id("compact_session").spec.input["session"]
    assert len(res.actual["session"]) == len(original) == 8  # the original session, restored
    assert "session.jsonl.bak" not in res.actual["files"]


def test_a_runtime_without_context_is_skipped() -> None:
    class EncodeOnly:
        name = "encode-only"

        def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
            return {}

    ctx = HarnessContext(root=ROOT, runtime=EncodeOnly(), runtime_name="encode-only")  # type: ignore[arg-type]
    res = run_check(_by_id("compact_session"), "openai", ctx)
    assert res.verdict == "skipped"
    assert res.reason == "runtime encode-only does not implement `context`"
