"""JSONL transcripts: recovery on load, atomic and concurrent writes, capping tool results."""

from __future__ import annotations

import hashlib
import io
import multiprocessing
from pathlib import Path

import pytest

from conformance.exceptions import TranscriptError
from conformance.model import ImageBlock, Message, TextBlock, ToolResultMessage, UserMessage
from conformance.runtime.transcripts import (
    _lines,
    append_message,
    cap_tool_results,
    iter_transcript,
    load_transcript,
    save_transcript,
)
from conformance.strategies import jsonl_line
from tests.runtime.builders import assistant, call, dumped, result, user
from tests.runtime.workers import append_many

MESSAGES: list[Message] = [
    user("hi"),
    assistant("hello", call("c1", city="Paris")),
    result("c1", "18C"),
    user("thanks ✓"),
]
LINES = [jsonl_line(m) for m in MESSAGES]


def _write(tmp_path: Path, data: bytes) -> tuple[Path, str]:
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    return path, hashlib.sha256(data).hexdigest()


def _unchanged(path: Path, digest: str) -> bool:
    return hashlib.sha256(path.read_bytes()).hexdigest() == digest


def test_clean_file_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    save_transcript(path, MESSAGES)
    loaded = load_transcript(path)
    assert dumped(loaded.messages) == dumped(MESSAGES)
    assert loaded.warnings == []


def test_truncated_last_line_is_skipped_with_its_line_number(tmp_path: Path) -> None:
    path, digest = _write(tmp_path, b"\n".join(LINES[:3]) + b"\n" + LINES[3][:20])
    loaded = load_transcript(path)
    assert dumped(loaded.messages) == dumped(MESSAGES[:3])
    assert len(loaded.warnings) == 1
    assert loaded.warnings[0].startswith("line 4:")
    assert _unchanged(path, digest)


def test_glued_crash_fragment_is_split_and_the_record_recovered(tmp_path: Path) -> None:
    data = LINES[0] + b"\n" + b'{"role":"user","con' + LINES[1] + b"\n" + LINES[2] + b"\n"
    path, digest = _write(tmp_path, data)
    loaded = load_transcript(path)
    assert dumped(loaded.messages) == dumped(MESSAGES[:3])
    assert len(loaded.warnings) == 1
    assert "line 2" in loaded.warnings[0]
    assert _unchanged(path, digest)


def test_two_complete_records_on_one_line(tmp_path: Path) -> None:
    path, _ = _write(tmp_path, LINES[0] + LINES[1] + b"\n")
    loaded = load_transcript(path)
    assert dumped(loaded.messages) == dumped(MESSAGES[:2])
    assert loaded.warnings == []


def test_nul_padding_is_removed_with_a_warning(tmp_path: Path) -> None:
    data = LINES[0] + b"\n" + b"\x00" * 4096 + LINES[1] + b"\n" + b"\x00" * 100
    path, digest = _write(tmp_path, data)
    loaded = load_transcript(path)
    assert dumped(loaded.messages) == dumped(MESSAGES[:2])
    assert [w.split(":")[0] for w in loaded.warnings] == ["line 2", "line 3"]
    assert _unchanged(path, digest)


def test_missing_final_newline(tmp_path: Path) -> None:
    path, _ = _write(tmp_path, b"\n".join(LINES))
    loaded = load_transcript(path)
    assert dumped(loaded.messages) == dumped(MESSAGES)
    assert loaded.warnings == []


def test_malformed_and_invalid_lines_are_skipped(tmp_path: Path) -> None:
    data = b"\n".join([LINES[0], b"not json", b'{"role":"robot","content":"x"}', b"", LINES[1]])
    loaded = load_transcript(_write(tmp_path, data)[0])
    assert dumped(loaded.messages) == dumped(MESSAGES[:2])
    assert [w.split(":")[0] for w in loaded.warnings] == ["line 2", "line 3"]


def test_invalid_utf8_is_reported(tmp_path: Path) -> None:
    data = LINES[0] + b"\n" + LINES[3][:-5] + b"\xff" + b"\n" + LINES[1]
    loaded = load_transcript(_write(tmp_path, data)[0])
    assert dumped(loaded.messages) == dumped([MESSAGES[0], MESSAGES[1]])
    assert any("UTF-8" in w for w in loaded.warnings)


def test_unreadable_file_is_a_transcript_error(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError) as info:
        load_transcript(tmp_path / "missing.jsonl")
    assert info.value.where == str(tmp_path / "missing.jsonl")
    with pytest.raises(TranscriptError):
        load_transcript(tmp_path)


def test_loading_is_streaming(tmp_path: Path) -> None:
    path, _ = _write(tmp_path, b"\n".join(LINES) + b"\n")
    records = iter_transcript(path)
    first = next(records)
    assert first.line == 1
    assert first.message is not None
    records.close()  # type: ignore[attr-defined]


def test_append_after_a_crash_does_not_glue(tmp_path: Path) -> None:
    path, _ = _write(tmp_path, LINES[0] + b"\n" + LINES[1][:30])
    append_message(path, MESSAGES[2])
    loaded = load_transcript(path)
    assert dumped(loaded.messages) == dumped([MESSAGES[0], MESSAGES[2]])
    assert len(loaded.warnings) == 1


def test_save_replaces_atomically(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    save_transcript(path, MESSAGES)
    save_transcript(path, MESSAGES[:1])
    assert dumped(load_transcript(path).messages) == dumped(MESSAGES[:1])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.jsonl", "t.jsonl.lock"]


def test_two_processes_append_concurrently(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.jsonl")
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=append_many, args=(path, w, 25)) for w in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert [w.exitcode for w in workers] == [0, 0]
    loaded = load_transcript(path)
    assert loaded.warnings == []
    texts = [m.content[0].text for m in loaded.messages if isinstance(m.content[0], TextBlock)]
    assert len(texts) == 50
    for w in range(2):
        mine = [t for t in texts if t.startswith(f"writer {w} ")]
        assert [int(t.split()[3]) for t in mine] == list(range(25))


def _big(n: int) -> ToolResultMessage:
    return ToolResultMessage(tool_call_id="c1", content=[TextBlock(text="a" * n), TextBlock(text="b" * n)])


def test_cap_tool_results_keeps_the_cap_visible() -> None:
    messages: list[Message] = [user("q"), _big(600)]
    capped = cap_tool_results(messages, 1000)
    content = capped[1].content
    assert [len(b.text) for b in content if isinstance(b, TextBlock)] == [600, 400, len("[truncated 200 chars]")]
    assert content[-1] == TextBlock(text="[truncated 200 chars]")
    assert messages[1].content[1].text == "b" * 600  # type: ignore[union-attr]
    assert dumped(cap_tool_results(capped, 1000)) == dumped(capped)
    again = cap_tool_results(capped, 100)
    assert again[1].content[-1] == TextBlock(text="[truncated 1100 chars]")


def test_cap_leaves_small_results_images_and_other_messages() -> None:
    image = ImageBlock(media_type="image/png", data="x" * 5000)
    small = ToolResultMessage(tool_call_id="c1", content=[TextBlock(text="ok"), image])
    messages: list[Message] = [UserMessage(content=[TextBlock(text="q" * 5000)]), small]
    assert dumped(cap_tool_results(messages, 10)) == dumped(messages)
    with pytest.raises(ValueError, match="max_chars"):
        cap_tool_results(messages, -1)


def test_line_reader_handles_any_block_boundary() -> None:
    data = b"ab\x00c\n\x00\x00\n\ndef" + b"\x00" * 10
    expected = [(b"abc", 1), (b"", 2), (b"", 0), (b"def", 10)]
    for size in (1, 2, 3, 5, 64):
        assert list(_lines(io.BytesIO(data), size)) == expected


def test_long_nul_run_without_newline(tmp_path: Path) -> None:
    path, _ = _write(tmp_path, LINES[0] + b"\n" + b"\x00" * (1 << 20))
    loaded = load_transcript(path)
    assert dumped(loaded.messages) == dumped(MESSAGES[:1])
    assert loaded.warnings == [f"line 2: removed {1 << 20} NUL byte(s)"]
