"""The `repair` and `transcript` checks: a transcript made acceptable to the provider.

- `repair`: the scenario's input messages are repaired for the provider; the repaired messages and
  the actions (rule + message index) are compared with the expected form, and the repaired
  transcript, encoded for the provider, must pass that provider's request validator. A row whose
  repair loses content the user must be told about says `warned: true`: the runtime's answer must
  carry at least one warning (their wording and number are the runtime's).
- `transcript`: a JSONL transcript (inline `jsonl` text or a `file` beside the scenario) is loaded;
  the recovered messages and the line numbers that drew a warning are compared, then the transcript
  is repaired and encoded for the provider and must pass its validator.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from conformance.capabilities import get_profile
from conformance.codecs import codec_for
from conformance.compare import ScenarioResult
from conformance.exceptions import ScenarioError
from conformance.harness.context import HarnessContext, judge, requires, result
from conformance.model import MESSAGES_ADAPTER, Conversation, Message, dump
from conformance.model.parse import parse_messages
from conformance.runtime.protocol import missing_capabilities
from conformance.scenarios import Scenario

REPAIR_IGNORE = ("actions[*].detail", "warnings")
"""Action details and warnings are prose: the rule and the message index are what is checked."""

_LINE = re.compile(r"\bline (\d+)")


def _canonical_messages(data: Any, where: str) -> list[dict[str, Any]]:
    return [dump(m) for m in parse_messages(data, where=where)]


def _violations(messages: list[Message], scenario: Scenario, provider: str) -> list[str]:
    """The transcript as it stands, put on the wire by the dialect's codec (no further repair), and
    checked by the provider's request validator: does the runtime's output follow the rules? Calls
    at its end may be waiting for their tools (a transcript is not a request yet)."""
    from conformance.runtime.validate import validate

    profile = get_profile(provider)
    data = scenario.spec.input
    conv = Conversation(messages=messages, model=data.get("model"), tools=data.get("tools", []))
    body = codec_for(profile).encode(conv, profile).body
    return [f"{v.path}: {v.message} ({v.rule})" for v in validate(body, profile, awaiting_tools=True)]


def check_repair(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    skipped = requires(ctx, scenario, provider, "repair")
    if skipped is not None:
        return skipped
    expected = scenario.expected_for(provider)
    if expected is None:
        return result(scenario, provider, "missing", "no expected repair for this provider")
    data = scenario.spec.input
    entry = scenario.entry(provider)
    options = {**data.get("repair_options", {}), **(entry.options if entry else {})}
    out = ctx.runtime.repair(data.get("messages", []), provider, data.get("model"), options or None)
    actual = {**out, "messages": _canonical_messages(out.get("messages", []), "runtime output")}
    if "warned" in expected:  # content lost: reported to the user, in words of the runtime's own
        actual["warned"] = bool(out.get("warnings"))
    expected = {**expected, "messages": _canonical_messages(expected.get("messages", []), f"{scenario.path}: expected")}
    verdict = judge(scenario, provider, expected, actual, ctx=ctx, ignore=REPAIR_IGNORE)
    if verdict.verdict != "pass":
        return verdict
    problems = _violations(MESSAGES_ADAPTER.validate_python(actual["messages"]), scenario, provider)
    if problems:
        return result(
            scenario,
            provider,
            "fail",
            f"the repaired transcript breaks {provider}'s request rules: " + "; ".join(problems),
            expected=expected,
            actual=actual,
        )
    return verdict


def _transcript_path(scenario: Scenario, tmp: Path) -> Path:
    data = scenario.spec.input
    if "file" in data:
        path = scenario.path.parent / str(data["file"])
        if not path.is_file():
            raise ScenarioError(f"input.file: no such transcript {path}", where=str(scenario.path))
        return path
    if "jsonl" in data:
        path = tmp / f"{scenario.id}.jsonl"
        text = str(data["jsonl"])
        path.write_bytes(text.encode("utf-8"))
        return path
    raise ScenarioError("input needs `file` or `jsonl`", where=str(scenario.path))


def check_transcript(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    """The runtime loads the (damaged) transcript: the records it recovers and the lines it warns
    about are compared, and the file must be left as it was. When the runtime also repairs, the
    recovered transcript, repaired by it, must follow the provider's request rules."""
    skipped = requires(ctx, scenario, provider, "transcripts")
    if skipped is not None:
        return skipped
    expected = scenario.expected_for(provider)
    if expected is None:
        return result(scenario, provider, "missing", "no expected transcript for this provider")
    with tempfile.TemporaryDirectory() as tmp:
        path = _transcript_path(scenario, Path(tmp))
        before = path.read_bytes()
        loaded = ctx.runtime.load_transcript(str(path))
        touched = path.read_bytes() != before
    if touched:
        return result(scenario, provider, "fail", "loading the transcript modified the file")
    recovered = _canonical_messages(loaded.get("messages", []), "runtime output")
    warnings = [str(w) for w in loaded.get("warnings", [])]
    actual = {
        "messages": recovered,
        "warning_lines": sorted({int(m.group(1)) for w in warnings if (m := _LINE.search(w))}),
    }
    expected = {
        **expected,
        "messages": _canonical_messages(expected.get("messages", []), f"{scenario.path}: expected"),
    }
    verdict = judge(scenario, provider, expected, actual, ctx=ctx)
    if verdict.verdict != "pass" or missing_capabilities(ctx.runtime, ("repair",)):
        return verdict
    out = ctx.runtime.repair(recovered, provider, scenario.spec.input.get("model"))
    repaired = parse_messages(out.get("messages", []), where="runtime output")
    problems = _violations(repaired, scenario, provider)
    if problems:
        return result(
            scenario,
            provider,
            "fail",
            "the recovered transcript, repaired, breaks the request rules: " + "; ".join(problems),
        )
    return verdict
