"""Gemini bodies written with numeric enums (`$alt=json;enum-encoding=int`)."""

from __future__ import annotations

import orjson
import pytest

from tests.codecs.gemini.helpers import outcome


def _body(finish: object, parts: list[dict[str, object]] | None = None) -> bytes:
    candidate: dict[str, object] = {"index": 0, "finishReason": finish}
    if parts is not None:
        candidate["content"] = {"role": "model", "parts": parts}
    return orjson.dumps(
        {"candidates": [candidate], "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 1}}
    )


@pytest.mark.parametrize(("number", "stop"), [(1, "stop"), (2, "length"), (3, "content_filter"), (4, "content_filter")])
def test_the_numbers_both_apis_share_are_read(number: int, stop: str) -> None:
    message = outcome(200, _body(number, [{"text": "x"}]), stream=False).message
    assert message is not None
    assert (message.stop_reason, message.raw_stop_reason) == (stop, str(number))


def test_stop_with_calls_is_tool_use_as_with_names() -> None:
    body = _body(1, [{"functionCall": {"name": "f", "args": {}}}])
    message = outcome(200, body, stream=False).message
    assert message is not None and message.stop_reason == "tool_use"


@pytest.mark.parametrize("number", [5, 7, 10, 99])
def test_numbers_the_apis_assign_differently_are_unknown_and_kept_raw(number: int) -> None:
    """5 is LANGUAGE on the Developer API and OTHER on Vertex: no guess."""
    message = outcome(200, _body(number, [{"text": "x"}]), stream=False).message
    assert message is not None
    assert (message.stop_reason, message.raw_stop_reason) == ("error", str(number))


def test_a_numeric_block_reason_is_a_content_filter_stop() -> None:
    body = orjson.dumps({"promptFeedback": {"blockReason": 1}, "usageMetadata": {"promptTokenCount": 9}})
    message = outcome(200, body, stream=False).message
    assert message is not None
    assert (message.stop_reason, message.raw_stop_reason, message.content) == ("content_filter", "1", [])


def test_model_armor_is_a_content_filter_stop() -> None:
    message = outcome(200, _body("MODEL_ARMOR"), stream=False).message
    assert message is not None and message.stop_reason == "content_filter"
