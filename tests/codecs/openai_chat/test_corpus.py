"""Every recorded Chat Completions interaction of the shared corpus (OpenAI and every
OpenAI-compatible server), decoded and compared with the official `openai` SDK reading the same
bytes offline.

The corpus is reference data outside the project (`../shared/corpus`, or `CONFORMANCE_CORPUS`);
these tests skip when it is absent. Each corpus provider is decoded with the matching profile
(the generic `openai-compatible` one for servers without their own), and only `POST
…/chat/completions` interactions are Chat Completions responses.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from conformance.capabilities import ProviderProfile, get_profile, provider_names
from conformance.codecs import decode_response
from conformance.codecs.base import is_stream
from conformance.codecs.openai_chat import CODEC
from conformance.exceptions import InputError
from tests.evidence.sdk_openai_chat import UNLISTED, SDKCannotRead, sdk_summary
from tests.evidence.summary import Summary, ours

CORPUS = Path(os.environ.get("CONFORMANCE_CORPUS", Path(__file__).resolve().parents[4] / "shared" / "corpus"))

if not (CORPUS / "catalog.json").is_file():
    pytest.skip(f"no corpus at {CORPUS}", allow_module_level=True)

CATALOG = json.loads((CORPUS / "catalog.json").read_text())
FILES = sorted((e["provider"], e["path"]) for e in CATALOG if e["api"] == "chat_completions")


def _profile_name(corpus_provider: str) -> str:
    return corpus_provider if corpus_provider in provider_names() else "openai-compatible"


_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL)


def _without_think_tags(summary: Summary) -> Summary:
    """The SDK leaves `<think>…</think>` in the text; profiles with `think_tags` move it out."""
    return dataclasses.replace(summary, text=_THINK.sub("", summary.text))


_X_GROQ_USAGE = re.compile(rb'"x_groq":\s*\{[^{}]*"usage"')
_NULL_USAGE = re.compile(rb'"usage":\s*null')


def _doubled(name: str, theirs: str) -> bool:
    """`theirs` is `name` repeated (the SDK concatenates a name sent again on every delta)."""
    return bool(name) and len(theirs) > len(name) and theirs == name * (len(theirs) // len(name))


def _sdk_known(body: bytes, mine: Summary, theirs: Summary) -> str | None:
    """Why a disagreement is the SDK's, when it is: the SDK's reading, with its known faults undone,
    then agrees with ours. The reasons are reported."""
    if b'"content":[{' in body and mine.text.endswith(theirs.text) and mine.text != theirs.text:
        return "the SDK drops typed content parts (Mistral) once a later delta sends a string"
    reasons: list[str] = []
    fixed = theirs
    if len(mine.tool_calls) == len(theirs.tool_calls) and any(
        _doubled(m, t) for (m, _), (t, _) in zip(mine.tool_calls, theirs.tool_calls, strict=True)
    ):
        reasons.append("the SDK concatenates a function name repeated on every delta")
        fixed = dataclasses.replace(
            fixed,
            tool_calls=[
                (m if _doubled(m, t) else t, args)
                for (m, _), (t, args) in zip(mine.tool_calls, theirs.tool_calls, strict=True)
            ],
        )
    if theirs.input_tokens is None and mine.input_tokens is not None:
        if _X_GROQ_USAGE.search(body):
            reasons.append("the SDK does not read Groq's `x_groq.usage`")
        elif _NULL_USAGE.search(body):
            reasons.append("the SDK loses the usage when a later chunk sends `usage: null`")
        fixed = dataclasses.replace(fixed, input_tokens=mine.input_tokens, output_tokens=mine.output_tokens)
    return "; ".join(reasons) if reasons and _same(mine, fixed) else None


def _same(a: Summary, b: Summary) -> bool:
    usage = (a.input_tokens, a.output_tokens) == (b.input_tokens, b.output_tokens)
    # A finish_reason outside OpenAI's vocabulary: the SDK only says the response finished.
    stop = a.stop is not None if (b.stop or "").startswith(UNLISTED) else a.stop == b.stop
    return (a.text, a.tool_calls) == (b.text, b.tool_calls) and stop and usage


@dataclasses.dataclass(frozen=True)
class Interaction:
    path: str
    index: int
    profile: ProviderProfile
    status: int
    headers: dict[str, str]
    body: bytes
    stream: bool


def _interactions() -> Iterator[Interaction]:
    """Every `POST …/chat/completions` interaction of the corpus files."""
    for provider, path in FILES:
        profile = get_profile(_profile_name(provider))
        doc = yaml.safe_load((CORPUS / path).read_text())
        for i, item in enumerate(doc["interactions"]):
            request, response = item["request"], item["response"]
            if request.get("method") != "POST" or not urlsplit(request["uri"]).path.endswith("/chat/completions"):
                continue
            raw = response["body"]["string"]
            try:
                req = json.loads(request.get("body") or "null")
            except ValueError:
                req = None
            yield Interaction(
                path=path,
                index=i,
                profile=profile,
                status=response["status"]["code"],
                headers={
                    k: v[-1] if isinstance(v, list) else str(v) for k, v in (response.get("headers") or {}).items()
                },
                body=raw.encode() if isinstance(raw, str) else bytes(raw or b""),
                stream=isinstance(req, dict) and req.get("stream") is True,
            )


def test_every_chat_completions_recording_decodes_and_agrees_with_the_sdk(
    record_property: Callable[[str, object], None],
) -> None:
    interactions = agree = disagree = typed = sdk_failed = sdk_known = 0
    notes: list[str] = []
    for it in _interactions():
        path, i, status, headers, body, stream = it.path, it.index, it.status, it.headers, it.body, it.stream
        profile = it.profile
        interactions += 1
        try:
            outcome = decode_response(CODEC, profile, status, headers, body, stream_hint=stream)
        except InputError as exc:
            typed += 1
            notes.append(f"typed error {path}#{i}: {exc}")
            continue
        mine = ours(outcome)
        try:
            theirs = sdk_summary(status, headers, body, stream)
        except SDKCannotRead as exc:
            sdk_failed += 1
            notes.append(f"sdk cannot read {path}#{i} ({exc}); ours: {mine}")
            continue
        if mine is None or theirs is None:
            if (mine is None) == (theirs is None) or outcome.error is not None:
                agree += 1
            else:
                disagree += 1
                notes.append(f"{path}#{i}: ours={mine} sdk={theirs}")
            continue
        if profile.think_tags:
            theirs = _without_think_tags(theirs)
        known = None if _same(mine, theirs) else _sdk_known(body, mine, theirs)
        if known is not None:
            sdk_known += 1
            notes.append(f"sdk-known-wrong {path}#{i}: {known}")
        elif _same(mine, theirs):
            agree += 1
        else:
            disagree += 1
            notes.append(f"{path}#{i}: ours={mine} sdk={theirs}")
    line = f"corpus openai_chat: {len(FILES)} files, {interactions} interactions, agree {agree}, disagree {disagree}, sdk-known-wrong {sdk_known}, sdk-failed {sdk_failed}, typed-errors {typed}"
    print(line)
    for note in notes[:10]:
        print("  " + note)
    record_property("corpus", line)
    assert interactions > 0
    assert disagree == 0, "\n".join(notes[:10])


@pytest.mark.parametrize("size", [1, 7, 113])
def test_corpus_streams_decode_the_same_in_any_chunking(size: int) -> None:
    """Every recorded stream, fed in fixed-size pieces (1 byte splits every multibyte character
    and CRLF), decodes as it does whole."""
    streams = 0
    for it in _interactions():
        if it.status >= 400 or not is_stream(CODEC, it.headers, it.stream):
            continue
        streams += 1
        whole = decode_response(CODEC, it.profile, it.status, it.headers, it.body, stream_hint=it.stream)
        pieces = [it.body[k : k + size] for k in range(0, len(it.body), size)]
        split = decode_response(CODEC, it.profile, it.status, it.headers, it.body, stream_hint=it.stream, chunks=pieces)
        assert split == whole, f"{it.path}#{it.index}"
    assert streams > 0
