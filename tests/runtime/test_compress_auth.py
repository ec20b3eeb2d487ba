from __future__ import annotations

import json

import pytest

from conformance.capabilities import get_profile
from conformance.codecs import WireRequest
from conformance.exceptions import InputError, MissingKeyError
from conformance.model import MESSAGES_ADAPTER, TextBlock, ToolResultMessage
from conformance.runtime.auth import AuthPool, apply_auth, resolve_key
from conformance.runtime.compress import compress_text, compress_tool_results


def test_plain_text_is_cut_with_a_marker() -> None:
    text = "x" * 1000
    assert compress_text(text, 512) == "x" * 512 + "[truncated 488 chars]"
    assert compress_text("short", 512) == "short"


def test_json_keeps_its_structure() -> None:
    payload = {"status": "ok", "rows": 3, "blob": "b" * 2000, "note": "kept"}
    out = json.loads(compress_text(json.dumps(payload), 512))
    assert out == {
        "status": "ok",
        "rows": 3,
        "blob": "[omitted 2000 chars]",
        "note": "kept",
        "truncated": True,
        "originalLength": len(json.dumps(payload)),
    }


def test_only_results_over_the_threshold_are_compressed() -> None:
    messages = MESSAGES_ADAPTER.validate_python(
        [
            {"role": "user", "content": "hi"},
            {"role": "tool_result", "tool_call_id": "a", "content": "y" * 600},
            {"role": "tool_result", "tool_call_id": "b", "content": "small"},
        ]
    )
    out, count = compress_tool_results(messages, 512)
    assert count == 1
    assert isinstance(out[1], ToolResultMessage) and out[1].content == [
        TextBlock(text="y" * 512 + "[truncated 88 chars]")
    ]
    assert out[2] == messages[2] and out[0] == messages[0]


REQUEST = WireRequest("POST", "/chat/completions", {"model": "m"}, {"content-type": "application/json"})


@pytest.mark.parametrize(
    ("provider", "header", "value"),
    [
        ("openai", "authorization", "Bearer sk-canary"),
        ("anthropic", "x-api-key", "sk-canary"),
        ("gemini", "x-goog-api-key", "sk-canary"),
    ],
)
def test_each_auth_style_puts_the_key_in_one_place(provider: str, header: str, value: str) -> None:
    url, headers = apply_auth(REQUEST, get_profile(provider), "sk-canary")
    assert headers[header] == value
    assert "sk-canary" not in url
    assert sum("sk-canary" in v for v in headers.values()) == 1


def test_query_key_style() -> None:
    profile = get_profile("gemini").model_copy(update={"auth_style": "query-key"})
    url, headers = apply_auth(REQUEST, profile, "sk-canary")
    assert url.endswith("/chat/completions?key=sk-canary")
    assert all("sk-canary" not in v for v in headers.values())


def test_keys_come_from_the_environment() -> None:
    assert resolve_key(get_profile("gemini"), {"GOOGLE_API_KEY": "g-1"}) == "g-1"
    assert resolve_key(get_profile("ollama"), {}) is None
    with pytest.raises(MissingKeyError, match="set GEMINI_API_KEY or GOOGLE_API_KEY"):
        resolve_key(get_profile("gemini"), {"GEMINI_API_KEY": "  "})


def test_pool_cooldown_rotation_and_refresh() -> None:
    pool = AuthPool.of(["sk-one-secret", "sk-two-secret"])
    assert "secret" not in repr(pool)
    assert pool.pick(0.0) == 0
    pool.cool_down(0, until=20.0)
    assert pool.pick(0.0) == 1
    pool.cool_down(1, until=5.0)
    assert pool.pick(0.0) is None
    assert pool.next_ready(0.0) == 5.0
    assert pool.pick(5.0) == 1
    pool.mark_refresh(1)
    assert pool.pick(6.0) is None and pool.next_ready(6.0) == 20.0
    assert pool.pick(20.0) == 0
    with pytest.raises(InputError, match="non-empty API key"):
        AuthPool.of(["ok", ""])
