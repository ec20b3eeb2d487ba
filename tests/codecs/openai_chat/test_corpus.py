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
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from conformance.capabilities import get_profile, provider_names
from conformance.codecs import decode_response
from conformance.codecs.openai_chat import CODEC
from conformance.exceptions import InputError
from tests.evidence.sdk_openai_chat import SDKCannotRead, sdk_summary
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


def _sdk_known(body: bytes, mine: Summary, theirs: Summary) -> str | None:
    """Why a disagreement is the SDK's, when it is (the reason is reported)."""
    if b'"content":[{' in body and mine.text.endswith(theirs.text) and mine.text != theirs.text:
        return "the SDK drops typed content parts (Mistral) once a later delta sends a string"
    return None


def _same(a: Summary, b: Summary) -> bool:
    # Usage only where both report it (the SDK drops usage when a later chunk nulls it).
    usage = (
        a.input_tokens is None
        or b.input_tokens is None
        or (a.input_tokens, a.output_tokens) == (b.input_tokens, b.output_tokens)
    )
    return (a.text, a.tool_calls, a.stop) == (b.text, b.tool_calls, b.stop) and usage


def test_every_chat_completions_recording_decodes_and_agrees_with_the_sdk(
    record_property: pytest.RecordProperty,
) -> None:
    interactions = agree = disagree = typed = sdk_failed = sdk_known = 0
    notes: list[str] = []
    for provider, path in FILES:
        profile = get_profile(_profile_name(provider))
        doc = yaml.safe_load((CORPUS / path).read_text())
        for i, item in enumerate(doc["interactions"]):
            request, response = item["request"], item["response"]
            if request.get("method") != "POST" or not urlsplit(request["uri"]).path.endswith("/chat/completions"):
                continue
            interactions += 1
            raw = response["body"]["string"]
            body = raw.encode() if isinstance(raw, str) else bytes(raw or b"")
            headers = {k: v[-1] if isinstance(v, list) else str(v) for k, v in (response.get("headers") or {}).items()}
            status = response["status"]["code"]
            try:
                req = json.loads(request.get("body") or "null")
            except ValueError:
                req = None
            stream = isinstance(req, dict) and req.get("stream") is True
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
            known = _sdk_known(body, mine, theirs)
            if known is not None:
                sdk_known += 1
                notes.append(f"sdk-known {path}#{i}: {known}")
            elif _same(mine, theirs):
                agree += 1
            else:
                disagree += 1
                notes.append(f"{path}#{i}: ours={mine} sdk={theirs}")
    line = f"corpus openai_chat: {len(FILES)} files, {interactions} interactions, agree {agree}, disagree {disagree}, sdk-known {sdk_known}, sdk-failed {sdk_failed}, typed-errors {typed}"
    print(line)
    for note in notes[:10]:
        print("  " + note)
    record_property("corpus", line)
    assert interactions > 0
    assert disagree == 0, "\n".join(notes[:10])
