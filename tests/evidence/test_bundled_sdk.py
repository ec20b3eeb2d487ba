"""Every bundled cassette read by the official SDK of its dialect, offline, against our decoding.

For each decode scenario × provider with a cassette: the same response bytes go through our
runtime and through the SDK (`openai`, `anthropic`, `google-genai`, `ollama`), and the text,
tool-call names and arguments, usage and stop reason must agree. A scenario whose `sdk` field
names the provider documents why the SDK is known to read those bytes differently: that case is a
strict xfail, so the day a fixed SDK agrees, the run says so and the note can go.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from conformance.capabilities import get_profile, matrix_providers
from conformance.model import Outcome
from conformance.replay.cassette import load_cassette
from conformance.replay.faults import fault_kinds
from conformance.runtime.dropped import DroppedChunks
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import load_scenarios
from tests.evidence.summary import Summary, ours

ROOT = Path(__file__).resolve().parents[2]
SdkSummary = Callable[[int, Mapping[str, str], bytes, bool], Summary | None]
_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL)


def _adapter(dialect: str) -> SdkSummary:
    module = importlib.import_module(f"tests.evidence.sdk_{dialect}")
    fn: SdkSummary = module.sdk_summary
    return fn


def _cases() -> list[Any]:
    cases = []
    for scenario in load_scenarios(ROOT / "scenarios"):
        if scenario.check != "decode":
            continue
        for provider in matrix_providers():
            entry = scenario.entry(provider)
            path = scenario.cassette_path(provider, ROOT)
            if path.is_file() and not (entry is not None and entry.unsupported):
                known = scenario.spec.sdk.get(provider)
                marks = [pytest.mark.xfail(strict=True, reason=f"documented SDK difference: {known}")] if known else []
                cases.append(pytest.param(scenario, provider, path, id=f"{scenario.id}[{provider}]", marks=marks))
    return cases


@pytest.mark.parametrize(("scenario", "provider", "path"), _cases())
def test_sdk_reads_the_same(scenario: Any, provider: str, path: Path) -> None:
    profile = get_profile(provider)
    sdk = _adapter(profile.dialect)
    cassette = load_cassette(path)
    endings = fault_kinds(cassette.meta, len(cassette.interactions), str(path))
    for it, ending in zip(cassette.interactions, endings, strict=True):
        headers, body, stream = it.response.flat_headers(), it.response.body, it.request.stream_requested()
        chunks = DroppedChunks([body]) if ending == "drop" else [body]  # how the answer ended on the connection
        outcome = Outcome.model_validate(
            ReferenceRuntime().decode(provider, it.response.status, headers, chunks, stream)
        )
        if ending == "drop" and outcome.error is not None and outcome.partial is None:
            continue  # a JSON body cut by a drop: the SDK's transport raises its connection error, no answer either
        mine = ours(outcome) if outcome.error is None or outcome.partial is None else None
        theirs = sdk(it.response.status, headers, body, stream)
        if theirs is not None and profile.think_tags:
            theirs = dataclasses.replace(theirs, text=_THINK.sub("", theirs.text))
        if outcome.error is not None and theirs is None:
            kept = outcome.partial is not None and (
                ours(Outcome(message=outcome.partial.model_copy(update={"error": None}))) or None
            )
            assert not (kept and (kept.text or kept.tool_calls)), "we keep a partial message; the SDK returns none"
            continue  # both report a failure, and neither keeps anything
        if outcome.error is not None and outcome.error.kind == "stream_interrupted" and theirs is not None:
            # SDKs accept a cut stream as it stands; what arrived must still agree.
            assert outcome.partial is not None
            partial = ours(Outcome(message=outcome.partial.model_copy(update={"error": None})))
            assert partial is not None
            assert (partial.text, partial.tool_calls) == (theirs.text, theirs.tool_calls)
            continue
        assert mine == theirs
