"""Hypothesis strategies for canonical transcripts, their pathologies, and corrupted bytes.

Public and documented, for this project's property tests and for anyone testing their own runtime:

- `transcripts` — valid canonical transcripts: user turns, assistant turns with thinking (signed,
  tied to a provider and model), server-tool blocks (a web search in the origin's dialect), text
  and tool calls, each call answered right after its turn;
- `pathological` — a transcript with one to three mutations from `KINDS` applied (orphaned and
  missing results, thinking out of order, empty arguments, a failed turn with its results,
  duplicate results, reused ids, foreign thinking, empty blocks, proxy id suffixes, a leading
  assistant turn, same-role neighbours);
- `jsonl_corruptions` — the JSONL bytes of a transcript, truncated, glued, NUL-padded and so on,
  with the indices of the records that are still complete;
- `rechunkings` — every way of splitting a body into chunks.

Bounds are keyword-only and checked when the strategy is built (`InvalidArgument`), as in
hypothesis' own strategies. `as_scenario_yaml` prints a failing case as a scenario file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import yaml
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from conformance.capabilities import get_profile, provider_names
from conformance.model import (
    AssistantMessage,
    Message,
    ProviderError,
    RedactedThinkingBlock,
    ServerToolBlock,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
    dump,
)

KINDS: tuple[str, ...] = (
    "orphan_result",
    "missing_result",
    "thinking_out_of_order",
    "empty_arguments",
    "failed_turn",
    "duplicate_result",
    "reused_id",
    "foreign_thinking",
    "empty_blocks",
    "thought_suffix",
    "leading_assistant",
    "same_role",
)
"""Mutation kinds of `pathological`, in shrinking order (earlier kinds are simpler)."""

_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789éü日本.,!?-", min_size=1, max_size=12)
_TEXT = st.lists(_WORD, min_size=1, max_size=6).map(" ".join)
_B64 = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", min_size=8, max_size=24)
_TOOLS = ("get_weather", "search", "add", "lookup")
_ARG_VALUES = st.one_of(st.integers(-5, 100), _WORD, st.booleans())
_ARGS = st.dictionaries(st.sampled_from(("city", "n", "unit", "query", "flag")), _ARG_VALUES, max_size=3)
_ID_STYLES = ("call_{n}", "toolu_0{n}", "call.{n}", "fc-{n}", "c{n}")


@dataclass(frozen=True)
class Pathological:
    """A mutated transcript and the mutation kinds that were applied (in order)."""

    messages: list[Message]
    kinds: tuple[str, ...]
    original: list[Message]


def _check_int(name: str, value: object, low: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise InvalidArgument(f"{name}={value!r} must be an integer >= {low}")
    return value


def _check_providers(providers: Sequence[str] | None) -> tuple[str, ...]:
    names = tuple(provider_names() if providers is None else providers)
    if not names:
        raise InvalidArgument("providers must not be empty")
    unknown = [n for n in names if n not in provider_names()]
    if unknown:
        raise InvalidArgument(f"unknown providers {unknown}; known: {provider_names()}")
    return names


_BOOL = st.booleans()
_SIGNATURE = st.one_of(st.none(), _B64)
_ONE_IN_TEN = st.integers(0, 9)
_ONE_IN_SIX = st.integers(0, 5)
_ONE_IN_EIGHT = st.integers(0, 7)
_ID_STYLE = st.sampled_from(_ID_STYLES)
_TOOL = st.sampled_from(_TOOLS)
"""Strategies built once: building one per draw costs more than the draw."""


def _responses_search(n: int, query: str) -> list[ServerToolBlock]:
    action = {"type": "search", "query": query}
    item: dict[str, Any] = {"id": f"ws_{n}", "type": "web_search_call", "status": "completed", "action": action}
    return [
        ServerToolBlock(dialect="openai_responses", name="web_search_call", id=f"ws_{n}", status="completed", data=item)
    ]


def _anthropic_search(n: int, query: str) -> list[ServerToolBlock]:
    use = {"type": "server_tool_use", "id": f"srvtoolu_{n}", "name": "web_search", "input": {"query": query}}
    result = {"type": "web_search_tool_result", "tool_use_id": f"srvtoolu_{n}", "content": []}
    return [ServerToolBlock(dialect="anthropic", name=b["type"], id=f"srvtoolu_{n}", data=b) for b in (use, result)]


_SERVER_SEARCHES: dict[str, Callable[[int, str], list[ServerToolBlock]]] = {
    "openai_responses": _responses_search,
    "anthropic": _anthropic_search,
}
"""Dialect → a web search in its own wire shape, as `server_tool` blocks (dialects without server
tools make none)."""


def _assistant(
    draw: st.DrawFn, origin: tuple[str, str], ids: list[int], calls: bool, max_tool_calls: int
) -> tuple[AssistantMessage, list[ToolResultMessage]]:
    """Drawn inside the caller's composite (a plain function, not a strategy of its own)."""
    provider, model = origin
    content: list[Any] = []
    if draw(_BOOL):
        signature = draw(_SIGNATURE)
        content.append(ThinkingBlock(thinking=draw(_TEXT), signature=signature))
    if draw(_ONE_IN_TEN) == 0:
        content.append(RedactedThinkingBlock(data=draw(_B64)))
    if draw(_ONE_IN_EIGHT) == 0:
        ids.append(len(ids))
        search = _SERVER_SEARCHES.get(get_profile(provider).dialect)
        content += search(len(ids), draw(_TEXT)) if search is not None else []
    if not calls or draw(_BOOL):
        content.append(TextBlock(text=draw(_TEXT)))
    results: list[ToolResultMessage] = []
    for _ in range(draw(st.integers(1, max_tool_calls)) if calls else 0):
        ids.append(len(ids))
        call_id = draw(_ID_STYLE).format(n=len(ids))
        name = draw(_TOOL)
        content.append(ToolCallBlock(id=call_id, name=name, arguments=draw(_ARGS)))
        results.append(
            ToolResultMessage(
                tool_call_id=call_id,
                tool_name=name,
                content=[TextBlock(text=draw(_TEXT))],
                is_error=draw(_ONE_IN_SIX) == 0,
            )
        )
    stop = "tool_use" if results else "stop"
    message = AssistantMessage(content=content, stop_reason=stop, provider=provider, model=model)
    return message, draw(st.permutations(results)) if len(results) > 1 else results


def transcripts(
    *,
    min_turns: int = 1,
    max_turns: int = 6,
    providers: Sequence[str] | None = None,
    max_tool_calls: int = 3,
) -> st.SearchStrategy[list[Message]]:
    """Valid canonical transcripts of `min_turns`..`max_turns` user turns.

    A turn is a user message, zero to two tool rounds (an assistant message with 1..`max_tool_calls`
    calls, then one result per call), and a final assistant message with text. Assistant messages
    come from one of `providers` (default: every registered provider) with that provider's default
    model; thinking is signed or not; call ids are unique and use several id styles. An optional
    system message comes first.

    Shrinks towards fewer turns and rounds, no thinking, one tool call, short text.
    """
    low = _check_int("min_turns", min_turns, 1)
    high = _check_int("max_turns", max_turns, low)
    calls = _check_int("max_tool_calls", max_tool_calls, 1)
    origins = [(name, get_profile(name).default_model) for name in _check_providers(providers)]

    @st.composite
    def build(draw: st.DrawFn) -> list[Message]:
        messages: list[Message] = []
        if draw(st.booleans()):
            messages.append(SystemMessage(content=[TextBlock(text=draw(_TEXT))]))
        ids: list[int] = []
        for _ in range(draw(st.integers(low, high))):
            messages.append(UserMessage(content=[TextBlock(text=draw(_TEXT))]))
            origin = draw(st.sampled_from(origins))
            for _round in range(draw(st.integers(0, 2))):
                assistant, results = _assistant(draw, origin, ids, True, calls)
                messages += [assistant, *results]
            final, _ = _assistant(draw, origin, ids, False, calls)
            messages.append(final)
        return messages

    return build()


# mutations -------------------------------------------------------------------------------------

Mutation = Callable[[st.DrawFn, list[Message]], list[Message] | None]


def _indices(messages: list[Message], kind: type) -> list[int]:
    return [i for i, m in enumerate(messages) if isinstance(m, kind)]


def _calls(messages: list[Message]) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i, m in enumerate(messages)
        if isinstance(m, AssistantMessage)
        for j, b in enumerate(m.content)
        if isinstance(b, ToolCallBlock)
    ]


def _with_block(message: Message, j: int, block: Any) -> Message:
    content = list(message.content)
    content[j] = block
    return message.model_copy(update={"content": content})


def _orphan_result(draw: st.DrawFn, ms: list[Message]) -> list[Message] | None:
    at = draw(st.integers(0, len(ms)))
    orphan = ToolResultMessage(tool_call_id=f"orphan_{at}", tool_name="search", content=[TextBlock(text="stale")])
    return [*ms[:at], orphan, *ms[at:]]


def _missing_result(draw: st.DrawFn, ms: list[Message]) -> list[Message] | None:
    results = _indices(ms, ToolResultMessage)
    if not results:
        return None
    drop = draw(st.sampled_from(results))
    return [m for i, m in enumerate(ms) if i != drop]


def _thinking_out_of_order(draw: st.DrawFn, ms: list[Message]) -> list[Message] | None:
    candidates = [i for i in _indices(ms, AssistantMessage) if ms[i].content]
    if not candidates:
        return None
    i = draw(st.sampled_from(candidates))
    message = ms[i]
    assert isinstance(message, AssistantMessage)
    thinking = ThinkingBlock(thinking=draw(_TEXT), signature=draw(_B64))
    content = [b for b in message.content if not isinstance(b, ThinkingBlock)] + [thinking]
    return [*ms[:i], message.model_copy(update={"content": content}), *ms[i + 1 :]]


def _empty_arguments(draw: st.DrawFn, ms: list[Message]) -> list[Message] | None:
    calls = _calls(ms)
    if not calls:
        return None
    i, j = draw(st.sampled_from(calls))
    block = ms[i].content[j]
    raw = draw(st.sampled_from((None, "", "{}")))
    new = block.model_copy(update={"arguments": {}, "raw_arguments": raw if raw == "" else None})
    return [*ms[:i], _with_block(ms[i], j, new), *ms[i + 1 :]]


def _failed_turn(draw: st.DrawFn, ms: list[Message]) -> list[Message] | None:
    at = draw(st.sampled_from([*_indices(ms, UserMessage)[1:], len(ms)]))
    call_id = f"failed_{at}"
    calls = draw(st.booleans())
    content: list[Any] = [TextBlock(text="partial")]
    if calls:
        content.append(ToolCallBlock(id=call_id, name="search", arguments={}))
    stop = draw(st.sampled_from(("error", "aborted")))
    error = ProviderError(kind="stream_interrupted") if stop == "error" else None
    failed: list[Message] = [AssistantMessage(content=content, stop_reason=stop, error=error, provider="openai")]
    if calls:
        failed.append(ToolResultMessage(tool_call_id=call_id, tool_name="search", content=[TextBlock(text="x")]))
    return [*ms[:at], *failed, *ms[at:]]


def _duplicate_result(draw: st.DrawFn, ms: list[Message]) -> list[Message] | None:
    results = _indices(ms, ToolResultMessage)
    if not results:
        return None
    i = draw(st.sampled_from(results))
    twin = ms[i].model_copy(update={"is_error": draw(st.booleans())})
    return [*ms[: i + 1], twin, *ms[i + 1 :]]


def _reused_id(draw: st.DrawFn, ms: list[Message]) -> list[Message] | None:
    calls = _calls(ms)
    if len(calls) < 2:
        return None
    (i, j), (k, m) = sorted(draw(st.lists(st.sampled_from(calls), min_size=2, max_size=2, unique=True)))
    source = ms[i].content[j]
    target = ms[k].content[m]
    assert isinstance(source, ToolCallBlock)
    assert isinstance(target, ToolCallBlock)
    out = list(ms)
    out[k] = _with_block(ms[k], m, target.model_copy(update={"id": source.id}))
    for n in range(k + 1, len(out)):
        result = out[n]
        if isinstance(result, ToolResultMessage) and result.tool_call_id == target.id:
            out[n] = result.model_copy(update={"tool_call_id": source.id})
    return out


def _foreign_thinking(draw: st.DrawFn, ms: list[Message]) -> list[Message] | None:
    assistants = _indices(ms, AssistantMessage)
    if not assistants:
        return None
    i = draw(st.sampled_from(assistants))
    message = ms[i]
    assert isinstance(message, AssistantMessage)
    provider = draw(st.sampled_from([n for n in provider_names() if n != message.provider]))
    thinking = ThinkingBlock(thinking=draw(_TEXT), signature=draw(_B64))
    update = {"provider": provider, "model": get_profile(provider).default_model}
    return [
        *ms[:i],
        message.model_copy(update={**update, "content": [thinking, *message.content]}),
        *ms[i + 1 :],
    ]


def _empty_blocks(draw: st.DrawFn, ms: list[Message]) -> list[Message] | None:
    if draw(st.booleans()) or not ms:
        at = draw(st.integers(0, len(ms)))
        return [
            *ms[:at],
            AssistantMessage(content=[TextBlock(text=draw(st.sampled_from(("", " "))))]),
            *ms[at:],
        ]
    i = draw(st.integers(0, len(ms) - 1))
    content = [*ms[i].content, TextBlock(text="")]
    return [*ms[:i], ms[i].model_copy(update={"content": content}), *ms[i + 1 :]]


def _thought_suffix(draw: st.DrawFn, ms: list[Message]) -> list[Message] | None:
    calls = _calls(ms)
    if not calls:
        return None
    i, j = draw(st.sampled_from(calls))
    block = ms[i].content[j]
    assert isinstance(block, ToolCallBlock)
    new_id = f"{block.id}__thought__{draw(_B64)}"
    out = [*ms[:i], _with_block(ms[i], j, block.model_copy(update={"id": new_id})), *ms[i + 1 :]]
    return [
        m.model_copy(update={"tool_call_id": new_id})
        if isinstance(m, ToolResultMessage) and m.tool_call_id == block.id and n > i
        else m
        for n, m in enumerate(out)
    ]


def _leading_assistant(draw: st.DrawFn, ms: list[Message]) -> list[Message] | None:
    at = 1 if ms and isinstance(ms[0], SystemMessage) else 0
    return [*ms[:at], AssistantMessage(content=[TextBlock(text=draw(_TEXT))]), *ms[at:]]


def _same_role(draw: st.DrawFn, ms: list[Message]) -> list[Message] | None:
    candidates = _indices(ms, UserMessage) + _indices(ms, AssistantMessage)
    if not candidates:
        return None
    i = draw(st.sampled_from(sorted(candidates)))
    return [*ms[: i + 1], ms[i].model_copy(deep=True), *ms[i + 1 :]]


MUTATIONS: dict[str, Mutation] = {
    "orphan_result": _orphan_result,
    "missing_result": _missing_result,
    "thinking_out_of_order": _thinking_out_of_order,
    "empty_arguments": _empty_arguments,
    "failed_turn": _failed_turn,
    "duplicate_result": _duplicate_result,
    "reused_id": _reused_id,
    "foreign_thinking": _foreign_thinking,
    "empty_blocks": _empty_blocks,
    "thought_suffix": _thought_suffix,
    "leading_assistant": _leading_assistant,
    "same_role": _same_role,
}


def pathological(
    base: st.SearchStrategy[list[Message]] | None = None,
    *,
    kinds: Sequence[str] = KINDS,
    max_mutations: int = 3,
) -> st.SearchStrategy[Pathological]:
    """Transcripts from `base` (default `transcripts()`) with 1..`max_mutations` of `kinds` applied.

    A kind that does not apply or changes nothing (e.g. ``missing_result`` on a transcript without
    tool calls) is skipped and not reported in ``Pathological.kinds``. Shrinks towards the simplest base
    transcript, fewer mutations, and kinds earlier in `KINDS`.
    """
    unknown = [k for k in kinds if k not in MUTATIONS]
    if unknown or not kinds:
        raise InvalidArgument(f"kinds must be a non-empty subset of {KINDS}; unknown: {unknown}")
    count = _check_int("max_mutations", max_mutations, 1)
    source = transcripts() if base is None else base
    ordered = [k for k in KINDS if k in kinds]

    @st.composite
    def build(draw: st.DrawFn) -> Pathological:
        original = draw(source)
        messages = [m.model_copy(deep=True) for m in original]
        applied: list[str] = []
        for kind in draw(st.lists(st.sampled_from(ordered), min_size=1, max_size=count)):
            mutated = MUTATIONS[kind](draw, messages)
            if mutated is not None and mutated != messages:
                messages = mutated
                applied.append(kind)
        return Pathological(messages=messages, kinds=tuple(applied), original=original)

    return build()


# bytes -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CorruptedJsonl:
    """Damaged transcript bytes, and which records survived whole (see `jsonl_corruptions`)."""

    data: bytes
    complete: list[int]
    """Indices (into the messages) of the records that are still whole in `data`."""


def jsonl_line(message: Message) -> bytes:
    """One transcript record as written by `runtime.transcripts` (compact JSON, no newline)."""
    return json.dumps(dump(message), ensure_ascii=False, separators=(",", ":")).encode()


def jsonl_corruptions(messages: Sequence[Message]) -> st.SearchStrategy[CorruptedJsonl]:
    """The JSONL bytes of `messages` with corruptions: a record cut short (the last one, or one
    glued to the next record because its newline was lost), NUL runs between or inside records,
    blank lines, a missing final newline.

    Shrinks towards no corruption (every record complete).
    """
    lines = [jsonl_line(m) for m in messages]

    @st.composite
    def build(draw: st.DrawFn) -> CorruptedJsonl:
        out = bytearray()
        complete: list[int] = []
        for n, line in enumerate(lines):
            damage = draw(st.sampled_from(("none", "none", "cut", "nul_inside", "nul_after", "blank")))
            last = n == len(lines) - 1
            if damage == "cut":
                out += line[: draw(st.integers(1, len(line) - 1))]
                if not last and draw(st.booleans()):
                    continue  # glued: the next record starts on this line
            elif damage == "nul_inside":
                at = draw(st.integers(0, len(line)))
                out += line[:at] + b"\x00" * draw(st.integers(1, 8)) + line[at:]
                complete.append(n)
            else:
                out += line
                complete.append(n)
            if last and draw(st.booleans()):
                break  # no final newline
            out += b"\n"
            if damage == "nul_after":
                out += b"\x00" * draw(st.integers(1, 64))
            elif damage == "blank":
                out += b"\n"
        return CorruptedJsonl(bytes(out), complete)

    return build()


def rechunkings(body: bytes, *, max_chunks: int | None = None) -> st.SearchStrategy[list[bytes]]:
    """Splits of `body` into non-empty chunks whose concatenation is `body` (any boundary, so
    multibyte characters and frame delimiters get split). Shrinks towards one chunk."""
    limit = len(body) if max_chunks is None else _check_int("max_chunks", max_chunks, 1)
    if len(body) <= 1:
        return st.just([body] if body else [])
    cuts = st.lists(st.integers(1, len(body) - 1), unique=True, max_size=max(limit - 1, 0)).map(sorted)
    return cuts.map(lambda points: [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)])


def as_scenario_yaml(messages: Sequence[Message], provider: str, feature: str, *, check: str = "repair") -> str:
    """A scenario file (YAML) for a failing generated case, ready to save under ``scenarios/``.

    ``expected`` is left empty: fill it in from the provider's documented rules.
    """
    scenario: dict[str, Any] = {
        "title": f"Generated {feature} case ({provider})",
        "feature": feature,
        "check": check,
        "description": "Found by a property test; fill in `expected` from the documented provider rules.",
        "input": {"messages": [dump(m) for m in messages]},
        "providers": {provider: {}},
        "expected": None,
    }
    return yaml.safe_dump(scenario, sort_keys=False, allow_unicode=True)


__all__ = [
    "KINDS",
    "MUTATIONS",
    "CorruptedJsonl",
    "Pathological",
    "as_scenario_yaml",
    "jsonl_corruptions",
    "jsonl_line",
    "pathological",
    "rechunkings",
    "transcripts",
]
