"""/api/chat requests compared as Ollama reads them: each equivalence, and a real difference."""

from __future__ import annotations

from typing import Any

from tests.codecs.request_cases import assert_found, assert_same

BASE: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": False}


def test_stream_true_is_the_default() -> None:
    body = {"model": "m", "messages": BASE["messages"]}
    assert_same("ollama", body, {**body, "stream": True})


def test_empty_options_are_no_options() -> None:
    assert_same("ollama", BASE, {**BASE, "options": {}})


def test_a_real_difference_is_still_found() -> None:
    assert_found("ollama", BASE, {**BASE, "stream": True}, "stream")
    assert_found("ollama", BASE, {**BASE, "options": {"num_predict": 5}}, "options")
