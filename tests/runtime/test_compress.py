"""Tool-result compression: JSON keeps its structure, plain text is cut with a marker."""

from __future__ import annotations

import json

from conformance.model import MESSAGES_ADAPTER, TextBlock, ToolResultMessage
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


def test_several_bulky_fields_go_longest_first_until_it_fits() -> None:
    payload = {"a": "a" * 900, "nested": {"b": "b" * 700, "keep": "small"}, "list": ["c" * 300, 7]}
    out = json.loads(compress_text(json.dumps(payload), 512))
    assert out["a"] == "[omitted 900 chars]" and out["nested"]["b"] == "[omitted 700 chars]"
    assert out["nested"]["keep"] == "small" and out["list"] == ["c" * 300, 7]
    assert out["truncated"] is True and out["originalLength"] == len(json.dumps(payload))


def test_a_json_array_is_wrapped_to_carry_the_markers() -> None:
    text = json.dumps([{"id": 1, "body": "z" * 800}])
    out = json.loads(compress_text(text, 512))
    assert out == {
        "items": [{"id": 1, "body": "[omitted 800 chars]"}],
        "truncated": True,
        "originalLength": len(text),
    }


def test_compression_is_deterministic_and_leaves_the_input_alone() -> None:
    messages = MESSAGES_ADAPTER.validate_python(
        [{"role": "tool_result", "tool_call_id": "a", "content": json.dumps({"log": "q" * 5000})}]
    )
    before = [m.model_dump() for m in messages]
    first, second = compress_tool_results(messages, 100), compress_tool_results(messages, 100)
    assert first == second and first[1] == 1
    assert [m.model_dump() for m in messages] == before


def test_text_at_the_threshold_is_kept() -> None:
    assert compress_text("t" * 512, 512) == "t" * 512
    assert compress_text("t" * 513, 512) == "t" * 512 + "[truncated 1 chars]"
