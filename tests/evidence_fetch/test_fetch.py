"""`conformance evidence fetch` and `derive` on an authored recording served locally (no network):
hashes are checked, the cache reads as a corpus, and the facts come out again."""

from __future__ import annotations

import hashlib
import http.server
import threading
import urllib.error
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.evidence import fetch as fetch_module
from conformance.evidence.derive import derive, differences
from conformance.evidence.fetch import address, fetch
from conformance.evidence.manifest import Facts, Manifest, Recording

BODY = (
    '{"id":"c1","object":"chat.completion","model":"gpt-4o-mini","choices":[{"index":0,'
    '"message":{"role":"assistant","content":"Hello"},"finish_reason":"stop"}],'
    '"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}'
)
RECORDING = f"""interactions:
- request:
    body: '{{"model":"gpt-4o-mini","messages":[{{"role":"user","content":"Hi"}}]}}'
    headers: {{}}
    method: POST
    uri: https://api.openai.com/v1/chat/completions
  response:
    body:
      string: '{BODY}'
    headers:
      content-type:
      - application/json
    status:
      code: 200
      message: OK
version: 1
"""
PATH = "openai/chat_completions/example--test_hello.yaml"


def _manifest(data: bytes) -> Manifest:
    return Manifest(
        recordings=[
            Recording(
                path=PATH,
                source_repo="example/project",
                source_path="tests/cassettes/test_hello.yaml",
                commit="0" * 40,
                license="MIT",
                sha256=hashlib.sha256(data).hexdigest(),
                corpus_provider="openai",
                api="chat_completions",
                provider="openai",
                features=["stop_reasons", "text", "usage"],
                facts=Facts(interactions=1, calls=1, sdk_agree=1),
            )
        ]
    )


@pytest.fixture
def mirror(tmp_path: Path) -> Path:
    root = tmp_path / "mirror"
    (root / PATH).parent.mkdir(parents=True)
    (root / PATH).write_text(RECORDING)
    return root


@pytest.fixture
def served(mirror: Path) -> Iterator[str]:
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(mirror))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.RequestHandlerClass.log_message = lambda *a: None  # type: ignore[method-assign]
    thread = threading.Thread(target=server.serve_forever)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        thread.join()
        server.server_close()


def test_fetch_over_http_checks_the_hash_and_derive_reproduces_the_facts(served: str, tmp_path: Path) -> None:
    manifest = _manifest(RECORDING.encode())
    cache = tmp_path / "cache"
    assert [r.state for r in fetch(manifest, cache, served)] == ["fetched"]
    assert (cache / PATH).read_text() == RECORDING
    assert [r.state for r in fetch(manifest, cache, served)] == ["cached"]
    assert differences(manifest, derive(cache, manifest)) == []


def test_a_recording_whose_hash_differs_is_not_kept(served: str, tmp_path: Path) -> None:
    manifest = _manifest(b"other bytes")
    results = fetch(manifest, tmp_path / "cache", served)
    assert results[0].state == "failed" and "sha256" in results[0].why
    assert not (tmp_path / "cache" / PATH).exists()


def test_a_folder_copy_is_read_by_file_address(mirror: Path, tmp_path: Path) -> None:
    manifest = _manifest(RECORDING.encode())
    assert address(manifest.recordings[0], str(mirror)).startswith("file://")
    assert [r.state for r in fetch(manifest, tmp_path / "cache", str(mirror))] == ["fetched"]


def test_the_default_source_is_the_raw_file_at_the_pinned_commit() -> None:
    rec = _manifest(b"").recordings[0]
    assert address(rec, None) == f"https://raw.githubusercontent.com/example/project/{'0' * 40}/{rec.source_path}"


def test_the_commands_fetch_and_derive(
    mirror: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = _manifest(RECORDING.encode())
    monkeypatch.setattr("conformance.evidence.manifest.bundled_manifest", lambda: manifest)
    monkeypatch.setenv("CONFORMANCE_CACHE", str(tmp_path / "cache"))
    assert fetch_module.cache_dir() == tmp_path / "cache"
    assert main(["evidence", "fetch", "--from", str(mirror)]) == 0
    assert "1 fetched" in capsys.readouterr().out
    assert main(["evidence", "derive"]) == 0
    assert "0 differences" in capsys.readouterr().out
    (tmp_path / "cache" / PATH).write_text(RECORDING.replace("Hello", "Bye there"))
    assert main(["evidence", "fetch", "--from", str(tmp_path / "nowhere")]) == 1
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "no recording could be fetched" in out and "--from FOLDER" in out


SOURCE = RECORDING.replace(
    "    headers:\n      content-type:", "    headers:\n      Content-Length:\n      - '230'\n      Content-Type:"
)
"""The recording as its project holds it: header names in capitals, a content-length header and a
status message, which the corpus form writes in lower case, leaves out and leaves empty."""
CORPUS_FORM = f"""version: 1
interactions:
- request:
    method: POST
    uri: https://api.openai.com/v1/chat/completions
    body: '{{"model":"gpt-4o-mini","messages":[{{"role":"user","content":"Hi"}}]}}'
    headers: {{}}
  response:
    status:
      code: 200
      message: ''
    headers:
      content-type:
      - application/json
    body:
      string: '{BODY}'
"""


def _converted_manifest(source: bytes) -> Manifest:
    manifest = _manifest(CORPUS_FORM.encode())
    rec = manifest.recordings[0].model_copy(update={"source_sha256": hashlib.sha256(source).hexdigest()})
    return manifest.model_copy(update={"recordings": [rec]})


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A host laid out as raw.githubusercontent.com is, holding the recording as its project does."""
    rec = _manifest(b"").recordings[0]
    target = tmp_path / "raw" / rec.source_repo / rec.commit / rec.source_path
    target.parent.mkdir(parents=True)
    target.write_text(SOURCE)
    return tmp_path / "raw"


def test_a_file_of_its_repository_is_converted_and_checked_against_both_hashes(
    repository: Path, tmp_path: Path
) -> None:
    manifest = _converted_manifest(SOURCE.encode())
    assert manifest.recordings[0].converted
    cache = tmp_path / "cache"
    results = fetch(manifest, cache, raw=repository.as_uri())
    assert [(r.state, r.converted) for r in results] == [("fetched", True)]
    assert (cache / PATH).read_text() == CORPUS_FORM
    assert differences(manifest, derive(cache, manifest)) == []
    assert [r.state for r in fetch(manifest, cache, raw=repository.as_uri())] == ["cached"]


def test_a_source_file_whose_hash_differs_is_not_converted(repository: Path, tmp_path: Path) -> None:
    results = fetch(_converted_manifest(b"another version"), tmp_path / "cache", raw=repository.as_uri())
    assert results[0].state == "failed" and "source sha256" in results[0].why
    assert not (tmp_path / "cache" / PATH).exists()


def test_a_conversion_that_differs_from_the_corpus_form_is_not_kept(repository: Path, tmp_path: Path) -> None:
    manifest = _converted_manifest(SOURCE.encode())
    rec = manifest.recordings[0].model_copy(update={"sha256": hashlib.sha256(b"other").hexdigest()})
    results = fetch(manifest.model_copy(update={"recordings": [rec]}), tmp_path / "cache", raw=repository.as_uri())
    assert results[0].state == "failed" and "converted sha256" in results[0].why


def test_without_a_network_fetch_gives_up_soon_and_says_how_to_get_the_recordings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    one = _manifest(RECORDING.encode()).recordings[0]
    many = Manifest(
        recordings=[one.model_copy(update={"path": f"openai/chat_completions/x{i}.yaml"}) for i in range(9)]
    )
    tried: list[str] = []

    def unreachable(url: str) -> bytes:
        tried.append(url)
        raise urllib.error.URLError("Name or service not known")

    monkeypatch.setattr(fetch_module, "_get", unreachable)
    monkeypatch.setattr("conformance.evidence.manifest.bundled_manifest", lambda: many)
    assert main(["evidence", "fetch", "--cache", str(tmp_path / "cache")]) == 1
    out = capsys.readouterr().out
    assert len(tried) == fetch_module.GIVE_UP_AFTER
    assert out.count("\n") == 1 and "Name or service not known" in out and "--from FOLDER" in out


def test_derive_without_a_corpus_says_how_to_get_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evidence", "derive", "--corpus", str(tmp_path)]) == 2
    assert "conformance evidence fetch" in capsys.readouterr().err


def test_list_prints_cells_per_provider(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evidence", "list"]) == 0
    out = capsys.readouterr().out
    assert "anthropic:" in out and "cells from" in out
