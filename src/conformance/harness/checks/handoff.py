"""The `handoff` check: transcripts from every other provider, continued on this one.

Each decode cassette of every other provider is decoded; its message (tool calls, thinking,
signatures and all) becomes the assistant turn of a transcript — the scenario's user turn before
it, a result for each tool call after it, and a follow-up question — which is then prepared for
this provider (repair, schemas, budget), encoded, and checked by this provider's request
validator. A handoff fails when any such request would break the provider's documented rules.
"""

from __future__ import annotations

from typing import Any

from conformance.capabilities import get_profile, matrix_providers
from conformance.compare import ScenarioResult
from conformance.harness.context import HarnessContext, result
from conformance.model import (
    AssistantMessage,
    Conversation,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)
from conformance.replay.cassette import load_cassette
from conformance.runtime.reference import ReferenceRuntime, parse_conversation
from conformance.scenarios import Scenario, load_scenarios


def _continued(conv: Conversation, message: AssistantMessage) -> list[Message]:
    results: list[Message] = [
        ToolResultMessage(tool_call_id=b.id, tool_name=b.name, content=[TextBlock(text=f"result of {b.name}")])
        for b in message.content
        if isinstance(b, ToolCallBlock)
    ]
    follow_up = UserMessage(content=[TextBlock(text="Thanks. Anything else?")])
    return [*conv.messages, message, *results, follow_up]


def handoff_transcripts(ctx: HarnessContext, target: str) -> list[tuple[str, Conversation]]:
    """(label, conversation) for every successful decode of another provider's cassettes."""
    out: list[tuple[str, Conversation]] = []
    for scenario in load_scenarios(ctx.root / "scenarios"):
        if scenario.check != "decode":
            continue
        for source in matrix_providers():
            if source == target:
                continue
            path = scenario.cassette_path(source, ctx.root)
            entry = scenario.entry(source)
            if not path.is_file() or (entry is not None and entry.unsupported):
                continue

            conv = parse_conversation(scenario.conversation(source))
            for it in load_cassette(path).interactions:
                outcome = ReferenceRuntime().decode(
                    source,
                    it.response.status,
                    it.response.flat_headers(),
                    [it.response.body],
                    it.request.stream_requested(),
                )
                data: Any = outcome.get("message")
                if data is None:
                    continue
                message = AssistantMessage.model_validate(data)
                out.append(
                    (
                        f"{source}:{scenario.id}",
                        conv.model_copy(update={"messages": _continued(conv, message), "model": None}),
                    )
                )
    return out


def check_handoff(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    from conformance.runtime.validate import validate

    profile = get_profile(provider)
    runtime = ReferenceRuntime()
    transcripts = handoff_transcripts(ctx, provider)
    if not transcripts:
        return result(scenario, provider, "missing", "no other provider's cassettes to hand off from")
    failures: list[str] = []
    for label, conv in transcripts:
        body = runtime.wire_request(conv, profile).body
        problems = validate(body, profile)
        if problems:
            failures.append(f"{label}: " + "; ".join(f"{v.path}: {v.message}" for v in problems[:3]))
    if failures:
        return result(
            scenario,
            provider,
            "fail",
            f"{len(failures)} of {len(transcripts)} handed-off transcripts break {provider}'s request rules: "
            + " | ".join(failures[:5]),
            examples=len(transcripts),
        )
    return result(
        scenario,
        provider,
        "pass",
        f"{len(transcripts)} transcripts from other providers prepared into valid {provider} requests",
        examples=len(transcripts),
    )
