"""Draw the facts of the manifest from a corpus: which cells each recording backs.

A recording backs a provider × feature cell when one of its generation calls, decoded by the
provider's profile, shows the feature: text, usage and a stop reason in a message; a stream read
whole; tool calls (two or more: parallel); signed thinking, redacted thinking, reasoning read
from a chat-completions field; server-side tool work; and each kind of error the matrix has a row
for. The SDK comparison lives with the tests (the SDKs are test dependencies): derive keeps the
`sdk_*` facts of the manifest it is given and recomputes the rest.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from conformance.evidence.corpus import (
    API_DIALECTS,
    MAX_RECORDING_BYTES,
    Interaction,
    read_catalog,
    read_entry,
    read_recording,
)
from conformance.evidence.manifest import Facts, Manifest, Recording
from conformance.fileio import read_regular
from conformance.model import (
    Outcome,
    RedactedThinkingBlock,
    ServerToolBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)

ERROR_FEATURES: dict[str, str] = {
    "invalid_request": "error_invalid_request",
    "rate_limited": "error_rate_limit",
    "auth": "error_auth",
    "permission": "error_auth",
    "not_found": "error_not_found",
    "overloaded": "error_overloaded",
    "context_overflow": "context_overflow",
}
"""Error kind → the matrix feature whose cell a recorded error of that kind backs."""


def _error_features(it: Interaction, outcome: Outcome) -> set[str]:
    if outcome.error is None:
        return set()
    if outcome.error.kind in ERROR_FEATURES:
        return {ERROR_FEATURES[outcome.error.kind]}
    return {"stream_truncated"} if outcome.error.kind == "stream_interrupted" and it.streams else set()


def features_of(it: Interaction, outcome: Outcome) -> set[str]:
    """The matrix features one decoded call exercises."""
    found = _error_features(it, outcome)
    message = outcome.message
    if message is None:
        return found
    blocks = message.content
    calls = sum(isinstance(b, ToolCallBlock) for b in blocks)
    thinking = [b for b in blocks if isinstance(b, ThinkingBlock)]
    shown = {
        "text": any(isinstance(b, TextBlock) and b.text for b in blocks),
        "usage": message.usage is not None,
        "stop_reasons": message.stop_reason is not None,
        "refusal": message.stop_reason == "refusal",
        "stream_text": it.streams,
        "tool_call": calls > 0,
        "parallel_tool_calls": calls > 1,
        "thinking_signature": any(b.signature for b in thinking),
        "reasoning_field": bool(thinking) and it.profile.dialect == "openai_chat",
        "redacted_thinking": any(isinstance(b, RedactedThinkingBlock) for b in blocks),
        "server_tools": any(isinstance(b, ServerToolBlock) for b in blocks),
    }
    return found | {feature for feature, seen in shown.items() if seen}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def derive_recording(corpus: Path, entry: dict[str, Any], previous: Recording | None = None) -> Recording | None:
    """The manifest entry of one catalog entry (None when no dialect here reads its API);
    the SDK facts and the source file's hash are carried over from `previous`."""
    if entry["api"] not in API_DIALECTS:
        return None
    data = read_recording(corpus, entry)
    calls, others = read_entry(corpus, entry, data=data)
    features: set[str] = set()
    for it in calls:
        features |= features_of(it, it.decode())
    profile = calls[0].profile.name if calls else ""
    old = previous.facts if previous is not None else Facts()
    return Recording(
        path=entry["path"],
        source_repo=entry["source_repo"],
        source_path=entry["source_path"],
        commit=entry["commit"],
        license=entry["license"],
        sha256=sha256(data),
        original_format=entry.get("original_format") or (previous.original_format if previous else "vcrpy"),
        test_request=entry.get("test_request") or (previous.test_request if previous else None),
        source_sha256=previous.source_sha256 if previous is not None else "",
        corpus_provider=entry["provider"],
        api=entry["api"],
        provider=profile,
        features=sorted(features),
        facts=old.model_copy(update={"interactions": len(calls) + len(others), "calls": len(calls)}),
    )


def derive(corpus: Path, previous: Manifest | None = None) -> Manifest:
    """The manifest drawn from the corpus at `corpus` (its catalog and files)."""
    old = {r.path: r for r in previous.recordings} if previous is not None else {}
    recordings = []
    for entry in sorted(read_catalog(corpus), key=lambda e: e["path"]):
        rec = derive_recording(corpus, entry, old.get(entry["path"]))
        if rec is not None and rec.provider:
            recordings.append(rec)
    readme = corpus / "README.md"
    text = read_regular(readme, limit=MAX_RECORDING_BYTES).decode("utf-8", "replace") if readme.is_file() else ""
    title = text.splitlines()[0].lstrip("# ").strip() if text.strip() else ""
    corpus_title = title or (previous.corpus if previous is not None else "")
    return Manifest(corpus=corpus_title, recordings=recordings)


def differences(committed: Manifest, derived: Manifest) -> list[str]:
    """What `derived` says otherwise than `committed`, one line per recording (empty: the same)."""
    mine = {r.path: r for r in committed.recordings}
    theirs = {r.path: r for r in derived.recordings}
    out = [f"{path}: in the manifest, not derived" for path in sorted(mine.keys() - theirs.keys())]
    out += [f"{path}: derived, not in the manifest" for path in sorted(theirs.keys() - mine.keys())]
    for path in sorted(mine.keys() & theirs.keys()):
        a, b = mine[path].model_dump(), theirs[path].model_dump()
        changed = [k for k in a if a[k] != b[k]]
        if changed:
            out.append(f"{path}: {', '.join(f'{k} {a[k]!r:.60} -> {b[k]!r:.60}' for k in changed)}")
    return out
