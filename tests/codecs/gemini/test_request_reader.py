"""generateContent requests compared as Gemini reads them: each equivalence, and a real difference."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.codecs.gemini.request_reader import TABLE
from tests.codecs.request_cases import assert_found, assert_same

BASE: dict[str, Any] = {
    "systemInstruction": {"parts": [{"text": "s"}]},
    "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
    "tools": [{"functionDeclarations": [{"name": "f"}]}],
}

SAME = {
    "mode AUTO": {"toolConfig": {"functionCallingConfig": {"mode": "AUTO"}}},
    "candidateCount 1": {"generationConfig": {"candidateCount": 1}},
    "empty generationConfig": {"generationConfig": {}},
    "text-only responseModalities": {"generationConfig": {"responseModalities": ["TEXT"]}},
    "role left out": {"contents": [{"parts": [{"text": "hi"}]}]},
    "system instruction's role": {"systemInstruction": {"role": "user", "parts": [{"text": "s"}]}},
}


@pytest.mark.parametrize("change", SAME.values(), ids=list(SAME))
def test_an_equivalent_spelling_matches(change: dict[str, Any]) -> None:
    assert_same("gemini", BASE, {**BASE, **change})


def test_v1_is_served_as_v1beta() -> None:
    path = "/v1/models/gemini-2.5-flash:generateContent"
    assert TABLE.canonical_path(path) == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert TABLE.canonical_path("/v1beta/models/x:generateContent") == "/v1beta/models/x:generateContent"


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"toolConfig": {"functionCallingConfig": {"mode": "ANY"}}}, "toolConfig"),
        ({"contents": [{"role": "model", "parts": [{"text": "hi"}]}]}, "contents[0].role"),
        ({"generationConfig": {"maxOutputTokens": 5}}, "generationConfig"),
    ],
)
def test_a_real_difference_is_still_found(change: dict[str, Any], path: str) -> None:
    assert_found("gemini", BASE, {**BASE, **change}, path)
