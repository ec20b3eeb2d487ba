"""Perplexity's recordings in the shared corpus, read with the `perplexity` profile.

A Perplexity stream (`stream_mode: full`) repeats the whole message so far in every chunk, so the
server's own aggregation is a second reading of the same bytes: the text we build from the deltas
must equal the `message.content` of its last chunk, the `chat.completion.done` one. Its errors carry
their kind in `type` (`too_many_prompt_tokens`, `invalid_api_key`).
"""

from __future__ import annotations

import re
from typing import Any

import orjson
import pytest

from conformance.model import TextBlock
from tests.evidence import corpus

if not corpus.PRESENT:
    pytest.skip(corpus.ABSENT, allow_module_level=True)

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
KINDS = {"too_many_prompt_tokens": "context_overflow", "invalid_api_key": "auth"}


def _perplexity() -> list[corpus.Interaction]:
    return [it for it in corpus.load("openai_chat")[0] if it.profile.name == "perplexity"]


def test_the_corpus_has_perplexity_recordings() -> None:
    its = _perplexity()
    assert any(it.streams for it in its) and any(it.status >= 400 for it in its)


def _frames(it: corpus.Interaction) -> list[dict[str, Any]]:
    return [orjson.loads(line[6:]) for line in it.body.split(b"\n") if line.startswith(b"data: {")]


def test_streams_agree_with_the_servers_own_aggregation() -> None:
    """Streams whose `chat.completion.done` chunk holds the whole message (`stream_mode: full`; in
    older recordings that chunk holds an empty delta, and there is no aggregation to compare)."""
    full = [it for it in _perplexity() if it.streams and "message" in _frames(it)[-1]["choices"][0]]
    assert full
    for it in full:
        last = _frames(it)[-1]
        assert last["object"] == "chat.completion.done", it.where
        outcome = it.decode()
        assert outcome.message is not None and outcome.error is None, it.where
        text = "".join(b.text for b in outcome.message.content if isinstance(b, TextBlock))
        assert text == _THINK.sub("", last["choices"][0]["message"]["content"]), it.where
        assert outcome.message.usage is not None
        assert outcome.message.usage.output_tokens == last["usage"]["completion_tokens"], it.where


def test_errors_are_read_by_their_type() -> None:
    for it in (it for it in _perplexity() if it.status >= 400):
        kind = KINDS[orjson.loads(it.body)["error"]["type"]]
        outcome = it.decode()
        assert outcome.error is not None and outcome.error.kind == kind, it.where


def test_sources_are_the_search_results_in_order() -> None:
    """Sources are the `search_results` in order (the `citations` where a recording predates them)."""
    for it in (it for it in _perplexity() if it.status < 400):
        lines = [line[6:] for line in it.body.split(b"\n") if line.startswith(b"data: {")]
        last = orjson.loads(lines[-1] if lines else it.body)
        message = it.decode().message
        assert message is not None and message.sources is not None, it.where
        if "search_results" in last:
            assert [s.url for s in message.sources] == [r["url"] for r in last["search_results"]], it.where
        assert [s.url for s in message.sources] == last["citations"], it.where
