"""Unpaired UTF-16 surrogates: mended before anything is encoded."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from conformance.capabilities import get_profile
from conformance.model import TextBlock, ToolCallBlock
from conformance.runtime.reference import ReferenceRuntime
from conformance.runtime.repair.surrogates import clean_text, mend_surrogate_escapes
from conformance.runtime.transcripts import load_transcript
from tests.runtime.builders import assistant, call, result, rules, run, user

HIGH, LOW = "\ud83d", "\ude48"  # the two halves of U+1F648


@pytest.mark.parametrize(
    ("text", "mended", "replaced"),
    [
        ("plain", "plain", 0),
        (f"cut {HIGH}", "cut \ufffd", 1),
        (f"{LOW} first", "\ufffd first", 1),
        (f"split {HIGH}{LOW} pair", "split \U0001f648 pair", 0),
        (f"{LOW}{HIGH}", "\ufffd\ufffd", 2),  # the wrong order is no pair
    ],
)
def test_clean_text(text: str, mended: str, replaced: int) -> None:
    assert clean_text(text) == (mended, replaced)


def test_every_string_of_a_message_is_mended_and_the_request_encodes() -> None:
    messages = [
        user(f"look {HIGH}"),
        assistant(call("call_1", q=f"x{HIGH}")),
        result("call_1", f"out {LOW}"),
        user("next"),
    ]
    res = run(messages, "anthropic")
    assert rules(res) == ["replace_lone_surrogates"] * 3
    assert res.messages[0].content == [TextBlock(text="look \ufffd")]
    first = res.messages[1].content[0]
    assert isinstance(first, ToolCallBlock) and first.arguments == {"q": "x\ufffd"}
    assert len(res.warnings) == 3  # a character was lost each time
    body = ReferenceRuntime().encode({"messages": [m.model_dump(exclude_none=True) for m in res.messages]}, "anthropic")
    orjson.dumps(body)  # raises on a lone surrogate


def test_repair_is_idempotent_on_mended_text() -> None:
    once = run([user(f"a {HIGH}")], "openai")
    again = run(once.messages, "openai")
    assert rules(again) == []
    assert again.messages == once.messages
    assert get_profile("openai").name == "openai"


def test_transcript_loader_mends_and_warns(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"role":"user","content":"ok"}\n{"role":"user","content":"cut \\ud83d"}\n')
    loaded = load_transcript(path)
    assert [m.content for m in loaded.messages] == [[TextBlock(text="ok")], [TextBlock(text="cut \ufffd")]]
    assert loaded.warnings == ["line 2: replaced 1 unpaired UTF-16 surrogate(s) with U+FFFD"]


@pytest.mark.parametrize(
    ("json_text", "mended", "replaced"),
    [
        (r'"a\ud83d b"', r'"a\ufffd b"', 1),
        (r'"x\ud83d\ude48y"', r'"x\ud83d\ude48y"', 0),  # a pair written as two escapes
        (r'"\\ud83d"', r'"\\ud83d"', 0),  # an escaped backslash, then plain text
        (r'"\\\ud83d"', r'"\\\ufffd"', 1),  # an escaped backslash, then an escape
        (r'"\ude48\ud83d"', r'"\ufffd\ufffd"', 2),
        (r'"caf\u00e9"', r'"caf\u00e9"', 0),
    ],
)
def test_json_escapes_of_lone_halves_are_mended_before_parsing(json_text: str, mended: str, replaced: int) -> None:
    assert mend_surrogate_escapes(json_text) == (mended, replaced)
