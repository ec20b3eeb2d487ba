"""Helpers shared by the checks: chunking a body, and the expected and actual outcomes in contract form."""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import ValidationError

from conformance.capabilities import get_profile
from conformance.exceptions import ScenarioError
from conformance.model import Outcome
from conformance.scenarios import Scenario


def split(body: bytes, size: int | None) -> list[bytes]:
    """`body` in chunks of `size` bytes (whole when `size` is None)."""
    if not size or not body:
        return [body]
    return [body[i : i + size] for i in range(0, len(body), size)]


def scenario_model(scenario: Scenario, provider: str) -> str:
    """The model id a scenario's request names for `provider`: its own, else the provider's usual one
    (the model its cassettes were recorded with)."""
    return str(scenario.conversation(provider).get("model") or get_profile(provider).default_model)


def canonical_outcome(data: Any) -> dict[str, Any]:
    """The contract JSON of an outcome with defaults filled, so omitted defaults compare equal."""
    return Outcome.model_validate(data).to_json()


def expected_outcome(scenario: Scenario, provider: str) -> dict[str, Any]:
    """The scenario's expected outcome for `provider`; a malformed one is a `ScenarioError` naming the field."""
    data = scenario.expected_for(provider)
    try:
        return canonical_outcome(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "expected"
        raise ScenarioError(f"expected.{where}: {first['msg']}", where=str(scenario.path)) from None


_IDENTIFIER_KEYS = ("code", "type", "status", "reason")


def error_identifiers(body: bytes) -> frozenset[str]:
    """The identifiers an error body gives its error (`code`, `type`, `status`; Gemini's
    `details[].reason`), as strings. The normalized form's `provider_code` is "the provider's own
    code": where a body carries several (Mistral's `type` and numeric `code`, OpenRouter's numeric
    `code` and `metadata`), a runtime reporting any of them reports the provider's own code."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        return frozenset()
    if isinstance(data, list) and data:  # Gemini's streamed error: one object in an array
        data = data[0]
    if not isinstance(data, dict):
        return frozenset()
    error = data.get("error")
    objects = [error if isinstance(error, dict) else data]
    details = objects[0].get("details")
    if isinstance(details, list):
        objects += [d for d in details if isinstance(d, dict)]
    return frozenset(
        str(obj[key]) for obj in objects for key in _IDENTIFIER_KEYS if isinstance(obj.get(key), str | int)
    )


def _messages(expected: Any, actual: Any) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(key, expected, actual) for `message` and `partial` where both sides hold that message."""
    if not isinstance(expected, dict) or not isinstance(actual, dict):
        return []
    pairs = [(key, expected.get(key), actual.get(key)) for key in ("message", "partial")]
    return [(key, want, got) for key, want, got in pairs if isinstance(want, dict) and isinstance(got, dict)]


def _contents(want: dict[str, Any], got: dict[str, Any]) -> tuple[list[Any], list[Any]] | None:
    """Both messages' content lists, or None when either is not a list."""
    blocks_w, blocks_g = want.get("content"), got.get("content")
    if not isinstance(blocks_w, list) or not isinstance(blocks_g, list):
        return None
    return blocks_w, blocks_g


def invented_ids_aligned(expected: Any, actual: Any, body: bytes) -> tuple[Any, list[str]]:
    """`actual` with the tool-call ids the wire does not carry set to the expected ones, and a note each.

    Where a provider sends no id (Gemini's `functionCall`, provider-wire-formats.md §4: "synthesize
    ids"), an id is the runtime's own invention: its value says nothing about the provider, only that
    it is there and unique. So a tool call whose expected id is not in the response body, answered by
    a non-empty id that is not in the body either and unique in its message, counts as that id."""
    notes: list[str] = []
    out = dict(actual) if isinstance(actual, dict) else actual
    for key, want, got in _messages(expected, actual):
        contents = _contents(want, got)
        if contents is None:
            continue
        blocks_w, blocks_g = contents
        ids = [b.get("id") for b in blocks_g if isinstance(b, dict) and b.get("type") == "tool_call"]
        aligned = list(blocks_g)
        for i, (w, g) in enumerate(zip(blocks_w, blocks_g, strict=False)):
            if not (isinstance(w, dict) and isinstance(g, dict) and w.get("type") == g.get("type") == "tool_call"):
                continue
            mine, theirs = w.get("id"), g.get("id")
            if not isinstance(mine, str) or not isinstance(theirs, str) or not theirs or mine == theirs:
                continue
            if mine.encode() in body or theirs.encode() in body or ids.count(theirs) != 1:
                continue
            aligned[i] = {**g, "id": mine}
            notes.append(f"{key}.content[{i}].id: {theirs!r} is the runtime's own (the wire carries no id)")
        if notes:
            out[key] = {**got, "content": aligned}
    return out, notes


def own_codes_aligned(expected: Any, actual: Any, body: bytes) -> tuple[Any, list[str]]:
    """`actual` with each `provider_code` that is another identifier of the error body itself
    (`error_identifiers`) set to the expected one, and a note each: either is the provider's own code."""
    if not isinstance(expected, dict) or not isinstance(actual, dict):
        return actual, []
    own: frozenset[str] | None = None
    notes: list[str] = []
    out = dict(actual)
    for path in (("error",), ("partial", "error")):
        want, got = _at(expected, path), _at(out, path)
        if want is None or got is None or "provider_code" not in got:
            continue
        mine, theirs = want.get("provider_code"), got["provider_code"]
        if mine is None or mine == theirs:
            continue
        own = error_identifiers(body) if own is None else own
        if str(theirs) not in own:
            continue
        out = _with(out, path, {**got, "provider_code": mine})
        notes.append(f"{'.'.join(path)}.provider_code: {theirs!r} is also the body's own code (expected {mine!r})")
    return out, notes


_THINKING = ("thinking", "redacted_thinking")


def thinking_order_aligned(expected: Any, actual: Any) -> tuple[Any, list[str]]:
    """`actual` with thinking blocks that follow other blocks read as placed first, and a note each.

    Anthropic streams interleaved thinking as blocks in index order, and a block of thinking may
    come after a text block (docs.anthropic.com extended-thinking#interleaved-thinking); the API takes
    the blocks back in the order they came. Keeping that wire order or putting thinking first (the
    normalized form's order) loses nothing, so either reads alike; the blocks themselves (text,
    signature) are still judged whole."""
    notes: list[str] = []
    out = dict(actual) if isinstance(actual, dict) else actual
    for key, want, got in _messages(expected, actual):
        contents = _contents(want, got)
        if contents is None:
            continue
        blocks_w, blocks_g = contents
        thinking = [b for b in blocks_g if _is_thinking(b)]
        others = [b for b in blocks_g if not _is_thinking(b)]
        if not thinking or not others or blocks_g[: len(thinking)] == thinking:
            continue
        if not all(_is_thinking(b) for b in blocks_w[: len(thinking)]):
            continue  # the expected form keeps an order of its own: judged as it is
        out[key] = {**got, "content": thinking + others}
        notes.append(f"{key}.content: thinking kept in the order it came (after other blocks), read as placed first")
    return out, notes


def _is_thinking(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") in _THINKING


def calls_stop_aligned(expected: Any, actual: Any, plain: frozenset[str]) -> tuple[Any, list[str]]:
    """`actual` with a `stop` that ends a message of tool calls read as `tool_use`, where the wire's
    own reason is one the provider ends every message with (`plain`: Gemini's `STOP`, Ollama's
    `stop`), and a note each. Those providers have no tool-call reason: a runtime reporting `stop`
    there reports what the provider said; the calls themselves are judged as they are."""
    if not plain:
        return actual, []
    notes: list[str] = []
    out = dict(actual) if isinstance(actual, dict) else actual
    for key, want, got in _messages(expected, actual):
        raw = want.get("raw_stop_reason")
        if want.get("stop_reason") != "tool_use" or got.get("stop_reason") != "stop" or raw not in plain:
            continue
        content = got.get("content")
        if not isinstance(content, list) or not any(
            isinstance(b, dict) and b.get("type") == "tool_call" for b in content
        ):
            continue
        out[key] = {**got, "stop_reason": "tool_use"}
        notes.append(f"{key}.stop_reason: 'stop' is the provider's own {raw!r} on a message of calls")
    return out, notes


def _at(data: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any] | None:
    for key in path:
        value = data.get(key)
        if not isinstance(value, dict):
            return None
        data = value
    return data


def _with(data: dict[str, Any], path: tuple[str, ...], value: dict[str, Any]) -> dict[str, Any]:
    head, *rest = path
    return {**data, head: _with(data[head], tuple(rest), value) if rest else value}
