"""Every recorded Anthropic Messages interaction of the shared corpus, decoded and compared with
the official SDK reading the same bytes offline.

The corpus is reference data outside the project (`../shared/corpus`, or `CONFORMANCE_CORPUS`);
these tests skip when it is absent. Interactions whose request is not `POST …/v1/messages` (file
uploads, image fetches, other providers in the same cassette) are not Messages responses and are
left out.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from conformance.codecs.anthropic import CODEC
from conformance.codecs.base import decode_response
from conformance.exceptions import InputError
from conformance.model import AssistantMessage, Outcome, RedactedThinkingBlock, ThinkingBlock
from tests.codecs.anthropic.helpers import PROFILE
from tests.evidence.sdk_anthropic import cache_tokens, reasoning, sdk_message, summarize
from tests.evidence.summary import Summary, ours

CORPUS = Path(os.environ.get("CONFORMANCE_CORPUS", Path(__file__).resolve().parents[4] / "shared" / "corpus"))

if not (CORPUS / "catalog.json").is_file():
    pytest.skip(f"no corpus at {CORPUS}", allow_module_level=True)


def _files() -> list[str]:
    catalog = json.loads((CORPUS / "catalog.json").read_text())
    return sorted(e["path"] for e in catalog if e["provider"] == "anthropic" and e["api"] == "messages")


@dataclass(frozen=True)
class Interaction:
    file: str
    index: int
    status: int
    headers: dict[str, str]
    body: bytes
    stream: bool | None


def _interactions(path: str) -> list[Interaction]:
    doc = yaml.safe_load((CORPUS / path).read_text())
    out = []
    for i, item in enumerate(doc["interactions"]):
        request, response = item["request"], item["response"]
        if request.get("method") != "POST" or not urlsplit(request["uri"]).path.endswith("/v1/messages"):
            continue
        body = response["body"]["string"]
        out.append(
            Interaction(
                file=path,
                index=i,
                status=int(response["status"]["code"]),
                headers={k: v[0] for k, v in (response.get("headers") or {}).items() if v},
                body=body.encode() if isinstance(body, str) else body,
                stream=_stream_requested(request.get("body")),
            )
        )
    return out


def _stream_requested(body: Any) -> bool | None:
    if isinstance(body, dict):
        body = body.get("string")
    try:
        data = json.loads(body or "")
    except ValueError:
        return None
    return bool(data.get("stream")) if isinstance(data, dict) else None


def _decode(item: Interaction) -> Outcome:
    return decode_response(CODEC, PROFILE, item.status, item.headers, item.body, stream_hint=item.stream)


@dataclass
class Tally:
    files: int = 0
    interactions: int = 0
    agree: int = 0
    typed_errors: list[str] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)


def _reasoning(message: AssistantMessage) -> list[tuple[str, str, str | None]]:
    out: list[tuple[str, str, str | None]] = []
    for block in message.content:
        if isinstance(block, ThinkingBlock):
            out.append(("thinking", block.thinking, block.signature))
        elif isinstance(block, RedactedThinkingBlock):
            out.append(("redacted_thinking", block.data, None))
    return out


def _compare(item: Interaction, outcome: Outcome) -> str | None:
    """None when we and the SDK agree, else why not."""
    sdk = sdk_message(item.status, item.headers, item.body, bool(item.stream))
    if outcome.error is not None and outcome.error.kind != "stream_interrupted":
        # an HTTP error or an `event: error`: the SDK raises, we return the error as data
        return None if sdk is None else f"we report {outcome.error.kind}, the SDK a message"
    if sdk is None:
        return "the SDK raised an API error, we decoded a message"
    mine, theirs = ours(outcome), summarize(sdk)
    assert mine is not None
    if outcome.error is not None:  # cut stream: the SDK keeps the stop reason of message_delta
        mine = Summary(**{**vars(mine), "stop": theirs.stop})
    if mine != theirs:
        return f"ours {mine} != SDK {theirs}"
    message = outcome.message or outcome.partial
    assert message is not None
    if _reasoning(message) != reasoning(sdk):
        return "thinking text or signatures differ"
    usage = message.usage
    if usage is not None and (usage.cache_read_tokens, usage.cache_write_tokens) != cache_tokens(sdk):
        return f"cache tokens differ: ours {usage}, SDK {cache_tokens(sdk)}"
    return None


@functools.cache
def tally() -> Tally:
    result = Tally()
    for path in _files():
        result.files += 1
        for item in _interactions(path):
            result.interactions += 1
            where = f"{path}#{item.index}"
            try:
                outcome = _decode(item)
            except InputError as exc:
                result.typed_errors.append(f"{where}: {exc}")
                continue
            why = _compare(item, outcome)
            if why is None:
                result.agree += 1
            else:
                result.disagreements.append(f"{where}: {why}")
    return result


@pytest.mark.parametrize("path", _files())
def test_decodes_without_unexpected_exceptions(path: str) -> None:
    for item in _interactions(path):
        try:
            _decode(item)
        except InputError:
            continue  # counted and reported by the summary test


@pytest.mark.parametrize("path", _files())
def test_stream_outcome_is_independent_of_chunking(path: str) -> None:
    for item in _interactions(path):
        if item.status >= 400 or not item.stream:
            continue
        small = [item.body[i : i + 7] for i in range(0, len(item.body), 7)]
        whole = _decode(item)
        chunked = decode_response(CODEC, PROFILE, item.status, item.headers, item.body, stream_hint=True, chunks=small)
        assert chunked == whole


def test_agreement_with_the_official_sdk(capsys: pytest.CaptureFixture[str]) -> None:
    t = tally()
    with capsys.disabled():
        print(
            f"\ncorpus anthropic: {t.files} files, {t.interactions} interactions, agree {t.agree}, "
            f"disagree {len(t.disagreements)}, typed-errors {len(t.typed_errors)}"
        )
        for line in (t.typed_errors + t.disagreements)[:5]:
            print("  " + line)
    assert t.files > 0
    assert not t.disagreements
