"""A corpus folder cannot hang `evidence fetch --from` or `evidence derive`, exhaust their memory or make
them read outside it: only regular files inside the folder are read, in chunks, up to a size limit; a
catalog entry that is not a cassette, or names a path outside the corpus, is one line naming it."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.evidence import fetch as fetch_module
from conformance.evidence.derive import derive
from conformance.evidence.fetch import fetch
from conformance.exceptions import InputError
from tests.evidence_fetch.test_fetch import PATH, RECORDING, _manifest


def _fetch_within(seconds: float, *args: object) -> list[fetch_module.Fetched]:
    box: dict[str, object] = {}
    thread = threading.Thread(target=lambda: box.setdefault("r", fetch(*args)), daemon=True)  # type: ignore[arg-type]
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "fetch hung"
    return box["r"]  # type: ignore[return-value]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "copy"
    (root / PATH).parent.mkdir(parents=True)
    return root


def test_a_fifo_in_the_folder_is_refused_without_waiting(folder: Path, tmp_path: Path) -> None:
    os.mkfifo(folder / PATH)
    (result,) = _fetch_within(10, _manifest(RECORDING.encode()), tmp_path / "cache", str(folder))
    assert result.state == "failed" and "not a regular file" in result.why and PATH in result.why
    assert "\n" not in result.why


def test_a_symlink_out_of_the_folder_is_refused(folder: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.yaml"
    outside.write_text(RECORDING)
    (folder / PATH).symlink_to(outside)
    (result,) = fetch(_manifest(RECORDING.encode()), tmp_path / "cache", str(folder))
    assert result.state == "failed" and "outside" in result.why and PATH in result.why


def test_a_symlink_inside_the_folder_is_followed(folder: Path, tmp_path: Path) -> None:
    (folder / "real.yaml").write_text(RECORDING)
    (folder / PATH).symlink_to(folder / "real.yaml")
    (result,) = fetch(_manifest(RECORDING.encode()), tmp_path / "cache", str(folder))
    assert result.state == "fetched"


def test_a_file_over_the_size_limit_is_refused_without_reading_it_whole(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fetch_module, "MAX_RECORDING_BYTES", 1024)
    with (folder / PATH).open("wb") as handle:
        handle.truncate(3 << 30)  # 3 GiB, sparse: nothing is written to disk
    (result,) = fetch(_manifest(RECORDING.encode()), tmp_path / "cache", str(folder))
    assert result.state == "failed" and "over the limit of 1 KiB" in result.why and PATH in result.why


def test_a_cached_file_is_hashed_in_chunks(folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (folder / PATH).write_text(RECORDING)
    manifest = _manifest(RECORDING.encode())
    cache = tmp_path / "cache"
    assert [r.state for r in fetch(manifest, cache, str(folder))] == ["fetched"]
    monkeypatch.setattr(fetch_module, "read_regular", None)  # a cached file is never read whole
    assert [r.state for r in fetch(manifest, cache, str(folder))] == ["cached"]


def _corpus(tmp_path: Path, entries: list[dict[str, object]]) -> Path:
    corpus = tmp_path / "corpus"
    (corpus / PATH).parent.mkdir(parents=True, exist_ok=True)
    (corpus / PATH).write_text(RECORDING)
    (corpus / "catalog.json").write_text(json.dumps(entries))
    return corpus


def _entry(path: str, **extra: object) -> dict[str, object]:
    base = {
        "path": path,
        "source_repo": "example/project",
        "source_path": "t.yaml",
        "commit": "0" * 40,
        "license": "MIT",
        "provider": "openai",
        "api": "chat_completions",
    }
    return {**base, **extra}


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("- just\n- a list\n", "not a cassette"),
        ("interactions: 5\n", "not a cassette"),
        ("interactions:\n- 5\n", "not a cassette"),
        ("interactions:\n- request: {}\n  response: {status: {code: abc}}\n", "not a cassette"),
        ("plain text, not YAML: [\n", "not a cassette"),
        ("\xff\xfe", "not a cassette"),
    ],
)
def test_a_catalog_entry_that_is_not_a_cassette_is_one_line_naming_it(
    content: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus(tmp_path, [_entry("openai/chat_completions/bad.yaml")])
    (corpus / "openai/chat_completions/bad.yaml").write_bytes(content.encode("latin-1"))
    assert main(["evidence", "derive", "--corpus", str(corpus)]) == 2
    err = capsys.readouterr().err
    assert words in err and "openai/chat_completions/bad.yaml" in err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("path", ["../outside.yaml", "/etc/passwd", "openai/../../outside.yaml", "", 5, None])
def test_a_catalog_path_outside_the_corpus_is_refused(path: object, tmp_path: Path) -> None:
    (tmp_path / "outside.yaml").write_text(RECORDING)
    corpus = _corpus(tmp_path, [_entry(path)])  # type: ignore[arg-type]
    with pytest.raises(InputError) as info:
        derive(corpus)
    assert "catalog.json" in str(info.value) and "\n" not in str(info.value)


def test_a_catalog_entry_without_its_fields_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = _corpus(tmp_path, [{"path": PATH, "api": ["chat_completions"]}])
    assert main(["evidence", "derive", "--corpus", str(corpus)]) == 2
    err = capsys.readouterr().err
    assert "catalog.json" in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_fifo_in_the_corpus_is_refused_by_derive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = _corpus(tmp_path, [_entry("openai/chat_completions/pipe.yaml")])
    os.mkfifo(corpus / "openai/chat_completions/pipe.yaml")
    assert main(["evidence", "derive", "--corpus", str(corpus)]) == 2
    err = capsys.readouterr().err
    assert "not a regular file" in err and "pipe.yaml" in err and err.count("\n") == 1
