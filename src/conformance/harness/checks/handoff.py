"""The `handoff` check: transcripts from every other provider, continued on this one.

Each decode cassette of every other provider the runtime supports is decoded; its message (tool calls, thinking,
signatures and all) becomes the assistant turn of a transcript — the scenario's user turn before
it, a result for each tool call after it, and a follow-up question — which is then prepared for
this provider (repair, schemas, budget), encoded, and checked by this provider's request
validator. A handoff fails when any such request would break the provider's documented rules.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import orjson
from pydantic import ValidationError

from conformance.capabilities import get_profile, matrix_providers
from conformance.compare import ScenarioResult
from conformance.harness.checks.common import scenario_model
from conformance.harness.context import HarnessContext, requires, result
from conformance.model import (
    AssistantMessage,
    Conversation,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)
from conformance.model.parse import parse_conversation
from conformance.replay.cassette import load_cassette
from conformance.replay.faults import fault_kinds
from conformance.runtime.protocol import decode_response, refusal_of
from conformance.scenarios import Scenario

SOURCE_ONLY_OPTIONS = frozenset({"server_tools"})
"""Options in the source provider's own wire shape, which no other provider can be asked for."""


def _continued(conv: Conversation, message: AssistantMessage) -> list[Message]:
    results: list[Message] = [
        ToolResultMessage(tool_call_id=b.id, tool_name=b.name, content=[TextBlock(text=f"result of {b.name}")])
        for b in message.content
        if isinstance(b, ToolCallBlock)
    ]
    follow_up = UserMessage(content=[TextBlock(text="Thanks. Anything else?")])
    return [*conv.messages, message, *results, follow_up]


def _decoded(ctx: HarnessContext, undecoded: list[str]) -> Iterator[tuple[str, str, Conversation, AssistantMessage]]:
    """(source provider, label, conversation, message) for every message the runtime under test
    decodes from a decode cassette (read once per run, by `_serialized`). A response the runtime
    cannot decode (it raises) hands nothing off; its label goes to `undecoded`, and the decode row
    of that scenario is where the crash is judged."""
    for scenario in ctx.scenarios():
        if scenario.check != "decode":
            continue
        for source in matrix_providers():
            if not ctx.declaration.offers_provider(source):
                continue  # a provider the runtime does not support hands it nothing to decode
            path = scenario.cassette_path(source, ctx.root)
            entry = scenario.entry(source)
            if not path.is_file() or (entry is not None and entry.unsupported):
                continue
            # the history is handed off, not the source's options: sampling options the target's
            # model rejects are left out (`drop_unsupported`) rather than refused, and the source's
            # own server tools (declared in its wire shape) are not declared to the target
            asked = scenario.conversation(source)
            options = {k: v for k, v in asked.get("options", {}).items() if k not in SOURCE_ONLY_OPTIONS}
            conv = parse_conversation({**asked, "options": {**options, "drop_unsupported": True}})
            cassette = load_cassette(path)
            endings = fault_kinds(cassette.meta, len(cassette.interactions), str(path))
            for it, ending in zip(cassette.interactions, endings, strict=True):
                if ending != "clean_end":
                    continue  # a dropped or reset answer hands nothing off
                try:
                    outcome = decode_response(
                        ctx.runtime,
                        source,
                        it.response.status,
                        it.response.flat_headers(),
                        [it.response.body],
                        it.request.stream_requested(),
                        model=scenario_model(scenario, source),
                    )
                except Exception:  # the runtime's crash: its decode row reports it
                    undecoded.append(f"{source}:{scenario.id}")
                    continue
                data: Any = outcome.get("message") if isinstance(outcome, dict) else None
                if data is None:
                    continue
                try:
                    message = AssistantMessage.model_validate(data)
                except ValidationError:
                    continue  # not a normalized message: the decode rows report that
                yield source, f"{source}:{scenario.id}", conv, message


def _serialized(ctx: HarnessContext) -> list[tuple[str, str, str]]:
    """(source, label, continued conversation as JSON text), built once per run: each target
    parses its own copy, so a runtime that changes its input cannot affect the next target."""
    cached: list[tuple[str, str, str]] | None = ctx.memo.get("handoff_json")
    if cached is None:
        cached = []
        undecoded: list[str] = ctx.memo.setdefault("handoff_undecoded", [])
        for source, label, conv, message in _decoded(ctx, undecoded):
            continued = conv.model_copy(update={"messages": _continued(conv, message), "model": None})
            # `ensure_ascii` keeps text with unpaired surrogates (which orjson refuses) as escapes
            text = json.dumps(continued.model_dump(mode="json", exclude_none=True), separators=(",", ":"))
            cached.append((source, label, text))
        ctx.memo["handoff_json"] = cached
    return cached


def _parse(text: str) -> dict[str, Any]:
    try:
        return orjson.loads(text)  # type: ignore[no-any-return]
    except orjson.JSONDecodeError:  # an escaped unpaired surrogate: the standard parser keeps it
        return json.loads(text)  # type: ignore[no-any-return]


def handoff_transcripts(ctx: HarnessContext, target: str) -> list[tuple[str, dict[str, Any]]]:
    """(label, conversation JSON) for every message decoded from another provider's cassettes, continued."""
    return [(label, _parse(text)) for source, label, text in _serialized(ctx) if source != target]


def check_handoff(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    """Messages the runtime decoded from other providers, continued and encoded by the runtime for
    this provider, must follow this provider's request rules."""
    from conformance.runtime.validate import validate

    skipped = requires(ctx, scenario, provider, "decode", "encode")
    if skipped is not None:
        return skipped
    profile = get_profile(provider)
    transcripts = handoff_transcripts(ctx, provider)
    if not transcripts:
        return result(scenario, provider, "missing", "no other provider's cassettes to hand off from")
    undecoded = [label for label in ctx.memo.get("handoff_undecoded", []) if not label.startswith(f"{provider}:")]
    left_out = (
        f"; {len(undecoded)} other responses the runtime could not decode are left out (their decode rows"
        f" judge them: {', '.join(undecoded[:3])}{', …' if len(undecoded) > 3 else ''})"
        if undecoded
        else ""
    )
    failures: list[str] = []
    for label, conv in transcripts:
        body = ctx.runtime.encode(conv, provider)
        refused = refusal_of(body)
        if refused is not None:  # a history the provider accepts, refused: a limitation, not a crash
            why = f"{label}: the runtime refuses a request {provider} accepts: {refused}"
            return result(scenario, provider, "not_offered", why)
        problems = validate(body, profile)
        if problems:
            failures.append(f"{label}: " + "; ".join(f"{v.path}: {v.message}" for v in problems[:3]))
    if failures:
        return result(
            scenario,
            provider,
            "fail",
            f"{len(failures)} of {len(transcripts)} handed-off transcripts break {provider}'s request rules: "
            + " | ".join(failures[:5])
            + left_out,
            examples=len(transcripts),
        )
    return result(
        scenario,
        provider,
        "pass",
        f"{len(transcripts)} transcripts from other providers prepared into valid {provider} requests{left_out}",
        examples=len(transcripts),
    )
