"""`read_entry` parses a recording once per process for every reader, and again when its bytes change."""

from __future__ import annotations

import json
from pathlib import Path

from conformance.evidence.corpus import read_catalog, read_entry

ENTRY = {
    "path": "openai/chat_completions/real.yaml",
    "provider": "openai",
    "api": "chat_completions",
    "source_repo": "example/project",
    "source_path": "t.yaml",
    "commit": "0" * 40,
    "license": "MIT",
}


def _recording(corpus: Path, text: str) -> None:
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}
    path = corpus / ENTRY["path"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "interactions:\n"
        "- request:\n"
        "    method: POST\n"
        "    uri: https://api.openai.com/v1/chat/completions\n"
        '    body: \'{"model":"gpt-4o","messages":[]}\'\n'
        "  response:\n"
        "    status: {code: 200, message: OK}\n"
        "    headers: {content-type: [application/json]}\n"
        f"    body: {{string: '{json.dumps(body)}'}}\n"
        "- request:\n"
        "    method: GET\n"
        "    uri: https://api.openai.com/v1/models\n"
        "  response:\n"
        "    status: {code: 200, message: OK}\n"
        "    body: {string: '{}'}\n"
    )
    (corpus / "catalog.json").write_text(json.dumps([ENTRY]))


def test_a_recording_is_parsed_once_and_again_when_its_bytes_change(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    _recording(corpus, "Hi")
    (entry,) = read_catalog(corpus)
    first, skipped = read_entry(corpus, entry)
    again, skipped_again = read_entry(corpus, entry)
    assert [c.body for c in first] == [c.body for c in again] and b'"Hi"' in first[0].body
    assert first[0] is again[0]  # from memory
    assert skipped == skipped_again and skipped[0] is not skipped_again[0]  # each reader its own list and records
    again.clear()
    assert read_entry(corpus, entry)[0] == first
    _recording(corpus, "Bye")
    (changed,), _ = read_entry(corpus, entry)
    assert b'"Bye"' in changed.body
    # the bytes handed over are the bytes read
    (given,), _ = read_entry(corpus, entry, data=(corpus / ENTRY["path"]).read_bytes().replace(b"Bye", b"Yes"))
    assert b'"Yes"' in given.body
