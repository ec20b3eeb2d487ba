"""pydantic-ai's model classes as a runtime under test."""

from __future__ import annotations

import pytest

pytest.importorskip("pydantic_ai")
pytest.importorskip("httpx2")

from conformance.runtime.protocol import capabilities_of
from examples import pydantic_ai_runtime
from tests.examples.rows import rows

# the anthropic SDK warns on every request to a model on its deprecation list (the cassettes' model is one)
pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")


def test_capabilities() -> None:
    assert capabilities_of(pydantic_ai_runtime.make()) == {"encode", "decode", "turn"}
    assert capabilities_of(pydantic_ai_runtime.make_decoder()) == {"decode"}


def test_its_reading_of_responses() -> None:
    got = rows(
        pydantic_ai_runtime.make_decoder(),
        {"text_basic", "tool_call_stream", "error_rate_limit", "refusal_stream"},
        ["openai", "anthropic"],
    )
    for key in [
        ("text_basic", "openai"),
        ("error_rate_limit", "openai"),
        ("tool_call_stream", "anthropic"),
        ("error_rate_limit", "anthropic"),
    ]:
        assert got[key].verdict == "pass", got[key].reason
    # its finish reasons have no `refusal`: Anthropic's `refusal` becomes `content_filter`
    refusal = got[("refusal_stream", "anthropic")]
    assert refusal.verdict == "fail"
    assert refusal.actual["message"]["stop_reason"] == "content_filter"


def test_its_own_requests_are_matched_against_the_cassette() -> None:
    """With its own request building, every request carries an explicit `"stream": false`, which the
    recorded requests leave out: the turn never reaches its retry loop."""
    got = rows(pydantic_ai_runtime.make(), {"retry_429_retry_after"}, ["openai"])
    row = got[("retry_429_retry_after", "openai")]
    assert row.verdict == "fail"
    assert "request not in cassette" in row.reason
    assert "stream: false" in row.reason
