"""Every real recording of the shared corpus, decoded and compared with the official SDK of its
dialect reading the same bytes offline (`tests/evidence/corpus.py` says what is read).

A fact is one decoded generation call. `BASELINE` is the number of facts that agree today, per
dialect: fewer fails. Every other fact must be explained (a known fault of the SDK, named in the
comparator); an unexplained difference fails. Every stream also decodes the same whatever its
chunking.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import re
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from conformance.cli import main
from conformance.model import AssistantMessage, Outcome, RedactedThinkingBlock, ServerToolBlock, ThinkingBlock
from tests.evidence import corpus
from tests.evidence.corpus import Interaction
from tests.evidence.summary import Summary, ours
from tests.lazy import lazy

if TYPE_CHECKING:
    from tests.evidence import sdk_anthropic, sdk_gemini, sdk_ollama, sdk_openai_chat, sdk_openai_responses
else:  # each SDK imported when a comparison first reads it (test_expected.py and test_manifest.py import this)
    sdk_anthropic = lazy("tests.evidence.sdk_anthropic")
    sdk_gemini = lazy("tests.evidence.sdk_gemini")
    sdk_ollama = lazy("tests.evidence.sdk_ollama")
    sdk_openai_chat = lazy("tests.evidence.sdk_openai_chat")
    sdk_openai_responses = lazy("tests.evidence.sdk_openai_responses")

if not corpus.PRESENT:
    pytest.skip(corpus.ABSENT, allow_module_level=True)


# anthropic -------------------------------------------------------------------------------------


def _reasoning(message: AssistantMessage) -> list[tuple[str, str, str | None]]:
    out: list[tuple[str, str, str | None]] = []
    for block in message.content:
        if isinstance(block, ThinkingBlock):
            out.append(("thinking", block.thinking, block.signature))
        elif isinstance(block, RedactedThinkingBlock):
            out.append(("redacted_thinking", block.data, None))
    return out


_SDK_UNACCUMULATED: dict[str, str] = {"mcp_tool_use": "input", "compaction": "content"}
"""Server-side block → the field the SDK's stream accumulator (anthropic 2.12) leaves as it was at
`content_block_start`: it applies `input_json_delta` only to `tool_use` and `server_tool_use`
blocks and has no case for `compaction_delta`. In streams that field is left out on both sides."""


def _accumulated_only(summary: Summary) -> Summary:
    tools = [
        (name, id_, status, {k: v for k, v in data.items() if k != _SDK_UNACCUMULATED.get(name)})
        for name, id_, status, data in summary.server_tools
    ]
    return dataclasses.replace(summary, server_tools=tools)


def compare_anthropic(it: Interaction, outcome: Outcome) -> str | None:
    sdk = sdk_anthropic.sdk_message(it.status, it.headers, it.body, it.stream)
    if outcome.error is not None and outcome.error.kind != "stream_interrupted":
        # an HTTP error or an `event: error`: the SDK raises, we return the error as data
        return None if sdk is None else f"we report {outcome.error.kind}, the SDK a message"
    if sdk is None:
        return "the SDK raised an API error, we decoded a message"
    mine, theirs = ours(outcome), sdk_anthropic.summarize(sdk)
    assert mine is not None
    if outcome.error is not None:  # cut stream: the SDK keeps the stop reason of message_delta
        mine = dataclasses.replace(mine, stop=theirs.stop)
    if it.stream:
        mine, theirs = _accumulated_only(mine), _accumulated_only(theirs)
    if mine != theirs:
        return f"ours {mine} != SDK {theirs}"
    message = outcome.message or outcome.partial
    assert message is not None
    if _reasoning(message) != sdk_anthropic.reasoning(sdk):
        return "thinking text or signatures differ"
    usage = message.usage
    if usage is not None and (usage.cache_read_tokens, usage.cache_write_tokens) != sdk_anthropic.cache_tokens(sdk):
        return f"cache tokens differ: ours {usage}, SDK {sdk_anthropic.cache_tokens(sdk)}"
    return None


# gemini and ollama -----------------------------------------------------------------------------


def _summary_diff(mine: Summary | None, theirs: Summary | None) -> str | None:
    if mine == theirs:
        return None
    fields = ("text", "tool_calls", "input_tokens", "output_tokens", "stop")
    diffs = [
        f"{k}: ours={getattr(mine, k, None)!r:.80} sdk={getattr(theirs, k, None)!r:.80}"
        for k in fields
        if getattr(mine, k, None) != getattr(theirs, k, None)
    ]
    return "; ".join(diffs)


def _typed_error(it: Interaction, outcome: Outcome) -> str | None:
    """An HTTP error: the SDK raises; ours must be a typed error."""
    return None if outcome.error is not None else f"HTTP {it.status} not typed as an error"


def _gemini_reading(summary: Summary | None) -> Summary | None:
    """Our server-side parts as the SDK reads them: the inner object and the decoded signature."""
    if summary is None:
        return None
    tools = [
        (name, id_, status, {"inner": data[name], "signature": _b64(data.get("thoughtSignature"))})
        for name, id_, status, data in summary.server_tools
    ]
    return dataclasses.replace(summary, server_tools=tools)


def _b64(value: Any) -> bytes | None:
    return base64.b64decode(value) if isinstance(value, str) else None


def compare_gemini(it: Interaction, outcome: Outcome) -> str | None:
    if it.status >= 400:
        return _typed_error(it, outcome)
    theirs = sdk_gemini.sdk_summary(it.status, it.headers, it.body, it.stream)
    mine = _gemini_reading(ours(outcome))
    if mine is not None and theirs is not None and mine.server_tools != theirs.server_tools:
        return f"server parts: ours={mine.server_tools!r:.200} sdk={theirs.server_tools!r:.200}"
    return _summary_diff(mine, theirs)


def compare_ollama(it: Interaction, outcome: Outcome) -> str | None:
    if it.status >= 400:
        return _typed_error(it, outcome)
    theirs = sdk_ollama.sdk_summary(it.status, it.headers, it.body, it.stream)
    return _summary_diff(ours(outcome), theirs)


# openai_chat -----------------------------------------------------------------------------------

_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL)
_X_GROQ_USAGE = re.compile(rb'"x_groq":\s*\{[^{}]*"usage"')
_NULL_USAGE = re.compile(rb'"usage":\s*null')


def _doubled(name: str, theirs: str) -> bool:
    """`theirs` is `name` repeated (the SDK concatenates a name sent again on every delta)."""
    return bool(name) and len(theirs) > len(name) and theirs == name * (len(theirs) // len(name))


def _same(a: Summary, b: Summary) -> bool:
    usage = (a.input_tokens, a.output_tokens) == (b.input_tokens, b.output_tokens)
    # A finish_reason outside OpenAI's vocabulary: the SDK only says the response finished.
    stop = a.stop is not None if (b.stop or "").startswith(sdk_openai_chat.UNLISTED) else a.stop == b.stop
    return (a.text, a.tool_calls) == (b.text, b.tool_calls) and stop and usage


def _sdk_known(body: bytes, mine: Summary, theirs: Summary, added_reasoning: int = 0) -> str | None:
    """Why a difference is the SDK's, when it is: the SDK's reading with its known faults undone
    then agrees with ours. `added_reasoning`: the reasoning tokens the profile adds to
    `completion_tokens` (`output_excludes_reasoning`), which the SDK does not add."""
    if b'"content":[{' in body and mine.text.endswith(theirs.text) and mine.text != theirs.text:
        return "the SDK drops typed content parts (Mistral) once a later delta sends a string"
    reasons: list[str] = []
    fixed = theirs
    pairs = list(zip(mine.tool_calls, theirs.tool_calls, strict=False))
    if len(mine.tool_calls) == len(theirs.tool_calls) and any(_doubled(m, t) for (m, _), (t, _) in pairs):
        reasons.append("the SDK concatenates a function name repeated on every delta")
        fixed = dataclasses.replace(
            fixed, tool_calls=[(m if _doubled(m, t) else t, args) for (m, _), (t, args) in pairs]
        )
    if theirs.input_tokens is None and mine.input_tokens is not None:
        if _X_GROQ_USAGE.search(body):
            reasons.append("the SDK does not read Groq's `x_groq.usage`")
        elif _NULL_USAGE.search(body):
            reasons.append("the SDK loses the usage when a later chunk sends `usage: null`")
        fixed = dataclasses.replace(fixed, input_tokens=mine.input_tokens, output_tokens=mine.output_tokens)
    if (
        added_reasoning
        and theirs.output_tokens is not None
        and mine.output_tokens == theirs.output_tokens + added_reasoning
    ):
        reasons.append(
            "the SDK reads `completion_tokens` as the output, which leave this provider's reasoning "
            "tokens out (`total_tokens` = prompt + completion + reasoning)"
        )
        fixed = dataclasses.replace(fixed, output_tokens=mine.output_tokens)
    if theirs.stop is None and mine.stop is not None and b'"finish_reason":' not in body and b"[DONE]" in body:
        reasons.append("the provider names no finish_reason; `[DONE]` ends the answer, the SDK leaves it empty")
        fixed = dataclasses.replace(fixed, stop=mine.stop)
    return "; ".join(reasons) if reasons and _same(mine, fixed) else None


def _sdk_thinking(completion: Any) -> str | None:
    """The reasoning text the SDK keeps as an extra field of the message, when it is a plain
    string field (`reasoning_content`, or `reasoning`); None when there is none to compare."""
    choice = completion.choices[0] if completion.choices else None
    extra = (getattr(choice.message, "model_extra", None) or {}) if choice is not None else {}
    if extra.get("reasoning_details"):
        return None  # structured reasoning: compared by the OpenRouter scenarios, not here
    for name in ("reasoning_content", "reasoning"):
        if isinstance(extra.get(name), str) and extra[name]:
            return str(extra[name])
    return None


def compare_openai_chat(it: Interaction, outcome: Outcome) -> str | None:
    mine = ours(outcome)
    try:
        with warnings.catch_warnings():  # the SDK warns when typed content does not fit its string type
            warnings.simplefilter("ignore")
            completion = sdk_openai_chat.sdk_completion(it.status, it.headers, it.body, it.stream)
    except sdk_openai_chat.SDKCannotRead as exc:
        return f"explained: the SDK's stream accumulator raises on this gateway's extra fields ({exc})"
    if mine is None or completion is None:
        if (mine is None) == (completion is None) or outcome.error is not None:
            return None
        return f"ours={mine} sdk={completion}"
    theirs = sdk_openai_chat.summarize(completion)
    if it.profile.think_tags:  # the SDK leaves `<think>…</think>` in the text; the profile moves it out
        theirs = dataclasses.replace(theirs, text=_THINK.sub("", theirs.text))
    if not _same(mine, theirs):
        message = outcome.message or outcome.partial
        usage = message.usage if message is not None else None
        added = usage.reasoning_tokens if usage is not None and it.profile.output_excludes_reasoning else 0
        known = _sdk_known(it.body, mine, theirs, added)
        return f"explained: {known}" if known else f"ours={mine} sdk={theirs}"
    thinking = _sdk_thinking(completion)
    message = outcome.message or outcome.partial
    if thinking is not None and message is not None and b"<think>" not in it.body:
        got = "".join(b.thinking for b in message.content if isinstance(b, ThinkingBlock))
        if got != thinking:
            return f"thinking differs: ours {got!r:.60}, SDK {thinking!r:.60}"
    return None


def compare_openai_responses(it: Interaction, outcome: Outcome) -> str | None:
    mine = ours(outcome)
    try:
        theirs = sdk_openai_responses.sdk_summary(it.status, it.headers, it.body, it.stream)
    except sdk_openai_responses.SDKCannotRead as exc:
        return f"explained: the SDK cannot read this response ({exc})"
    if theirs is None:
        return None if outcome.error is not None else f"the SDK reports an error, ours {mine}"
    return None if mine == theirs else f"ours={mine} sdk={theirs}"


COMPARATORS: dict[str, Callable[[Interaction, Outcome], str | None]] = {
    "anthropic": compare_anthropic,
    "gemini": compare_gemini,
    "ollama": compare_ollama,
    "openai_chat": compare_openai_chat,
    "openai_responses": compare_openai_responses,
}


def sdk_status(it: Interaction, outcome: Outcome) -> str:
    """How the official SDK of the call's dialect reads its bytes against `outcome`: `agree`,
    `explained: <the SDK's known fault>`, `disagree: <difference>`, or `unread: <why>` without a
    reader (the `sdk` field of `conformance.evidence.expected`)."""
    compare = COMPARATORS.get(it.profile.dialect)
    if compare is None:
        return f"unread: no official SDK reader for the {it.profile.dialect} dialect"
    try:
        why = compare(it, outcome)
    except Exception as exc:  # an SDK that raises where it should read: the difference, unexplained
        why = f"the comparison raised {type(exc).__name__}: {str(exc)[:200]}"
    if why is None:
        return "agree"
    return why if why.startswith("explained: ") else f"disagree: {why}"


BASELINE: dict[str, int] = {
    "anthropic": 142,
    "gemini": 283,
    "ollama": 10,
    "openai_chat": 817,
    "openai_responses": 186,
}
"""Facts that agree with the SDK, per dialect, measured on the corpus (2026-11, 1,459 facts); a
drop fails."""

SERVER_TOOL_BASELINE: dict[str, int] = {"anthropic": 338, "gemini": 11, "openai_responses": 91}
"""`server_tool` blocks decoded from the corpus (the comparators hold each to the SDK's reading);
measured 2026-11, none before the block existed (the items were dropped). A drop fails."""

MINIMUM_AGREEMENT = 0.975
"""Share of facts that agree exactly; the rest are explained SDK faults (listed when run with -s).
0.98 until xAI's eight reasoning calls were read (openai_chat: 817 of 837, 97.6%): the SDK takes
xAI's `completion_tokens` for the whole output, which leave the reasoning tokens out."""

REFERENCE_GAPS: dict[str, str] = {}
"""Real calls the reference reads otherwise than the official SDK, by a gap of the reference (not of
the SDK), with what differs: each must still differ (the day it is fixed, its entry goes)."""


@pytest.mark.parametrize("dialect", sorted(COMPARATORS))
def test_corpus_agrees_with_the_official_sdk(dialect: str, record_property: Callable[[str, object], None]) -> None:
    tally = corpus.run(dialect, COMPARATORS[dialect])
    record_property("corpus", tally.line(dialect))
    print(tally.line(dialect))
    for line in tally.explained:
        print("  explained", line)
    gaps = {line.split(": ", 1)[0] for line in tally.disagree} & REFERENCE_GAPS.keys()
    unknown = [line for line in tally.disagree if line.split(": ", 1)[0] not in gaps]
    assert not unknown, "\n".join(unknown[:10])
    assert not tally.typed_errors, "\n".join(tally.typed_errors[:10])
    mine = {k for k in REFERENCE_GAPS if COMPARATORS[dialect] is _comparator_of(k)}
    assert mine <= gaps, f"no longer differs from the SDK (drop from REFERENCE_GAPS): {sorted(mine - gaps)}"
    assert tally.agree >= BASELINE[dialect], f"{tally.line(dialect)}: below the baseline {BASELINE[dialect]}"
    assert tally.agree / (tally.facts - len(gaps)) >= MINIMUM_AGREEMENT, tally.line(dialect)


@pytest.mark.parametrize("dialect", sorted(SERVER_TOOL_BASELINE))
def test_server_side_work_is_kept(dialect: str) -> None:
    kept = 0
    for it in corpus.load(dialect)[0]:
        outcome = it.decode()
        message = outcome.message or outcome.partial
        kept += sum(isinstance(b, ServerToolBlock) for b in message.content) if message is not None else 0
    print(f"corpus {dialect}: {kept} server_tool blocks")
    assert kept >= SERVER_TOOL_BASELINE[dialect]


def _comparator_of(where: str) -> Callable[[Interaction, Outcome], str | None]:
    return COMPARATORS[corpus.API_DIALECTS[where.split("/")[1]]]


def test_overall_agreement() -> None:
    tallies = [corpus.run(d, c) for d, c in COMPARATORS.items()]
    agree, facts = sum(t.agree for t in tallies), sum(t.facts for t in tallies) - len(REFERENCE_GAPS)
    print(f"corpus: {len(REFERENCE_GAPS)} facts are known gaps of the reference, not counted below")
    print(f"corpus: {agree} of {facts} facts agree ({agree / facts:.1%})")
    assert agree / facts >= MINIMUM_AGREEMENT


def test_every_skipped_call_and_api_has_a_reason() -> None:
    """Calls that are not generation calls, and APIs without a dialect, are listed with why."""
    skipped = [s for d in COMPARATORS for s in corpus.load(d)[1]] + corpus.unrecognised()
    assert skipped, "the corpus has downloads, uploads and other APIs; none was recognised"
    for item in skipped:
        assert (item.reason.strip() and "#" in item.where) or " API of " in item.reason, item


@pytest.mark.parametrize("size", [7, 113])
@pytest.mark.parametrize("dialect", sorted(COMPARATORS))
def test_corpus_streams_decode_the_same_in_any_chunking(dialect: str, size: int) -> None:
    """Every recorded stream, fed in fixed-size pieces (7 bytes splits multibyte characters and
    CRLF), decodes as it does whole."""
    count = 0
    for it in corpus.streams(dialect):
        count += 1
        whole = it.decode()
        pieces = [it.body[k : k + size] for k in range(0, len(it.body), size)]
        assert it.decode(chunks=pieces) == whole, it.where
    assert count > 0


def test_conformance_decode_exits_0_on_every_corpus_cassette(capsys: pytest.CaptureFixture[str]) -> None:
    """`conformance decode` reads every recording: generation calls of the dialect are decoded,
    every other call (and every call of an API without a dialect) is listed as skipped."""
    skipped_lines = decoded_lines = 0
    for entry in corpus.catalog():
        dialect = corpus.API_DIALECTS.get(entry["api"], "openai_chat")
        provider = corpus.profile_for(entry["provider"], dialect).name
        code = main(["decode", "--provider", provider, str(corpus.CORPUS / entry["path"])])
        out = capsys.readouterr()
        assert code == 0, f"{entry['path']} ({provider}): {out.err.strip()[-300:]}"
        lines = [json.loads(line) for line in out.out.splitlines()]
        assert len(lines) == entry["n_interactions"], entry["path"]
        if entry["api"] not in corpus.API_DIALECTS:
            assert all("skipped" in line for line in lines), entry["path"]
        skipped_lines += sum("skipped" in line for line in lines)
        decoded_lines += sum("skipped" not in line for line in lines)
    assert skipped_lines > 0 and decoded_lines > 0
