"""`conformance lint`: planted secrets of each kind are caught with file and line; base64 data is not."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.harness.lint import lint
from conformance.replay.cassette import load_cassette, save_cassette
from tests.harness.project import make_project

SECRETS = {
    "sk-ant-api03-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6": "Anthropic API key",
    "sk-or-v1-" + "0123456789abcdef0123456789abcdef": "OpenRouter API key",
    "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe": "OpenAI project key",
    "sk-" + "abcdefghijklmnopqrstuvwxyz012345": "OpenAI-style API key",
    "AIza" + "SyD4x9k2L0q8W7e6R5t4Y3u2I1o0P9a8S7d": "Google API key",
    "xai-" + "AbCdEfGhIjKlMnOpQrStUvWxYz012345": "xAI API key",
    "gsk_" + "AbCdEfGhIjKlMnOpQrStUvWxYz012345": "Groq API key",
    "fw_" + "AbCdEfGhIjKlMnOpQrStUvWxYz012345": "Fireworks API key",
    "pplx-" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789aBcDeFgHiJkL": "Perplexity API key",
}


@pytest.mark.parametrize("secret", list(SECRETS))
def test_planted_secret_in_a_body_is_found_with_its_line(tmp_path: Path, secret: str) -> None:
    root = make_project(tmp_path)
    path = root / "cassettes/anthropic/text_hello.yaml"
    text = path.read_text()
    path.write_text(text.replace('"text":"Hello!"', f'"text":"{secret}"'))
    line = next(i for i, text_line in enumerate(path.read_text().splitlines(), 1) if secret in text_line)
    findings = lint([root / "cassettes"], root)
    assert [(f.rule, f.line) for f in findings] == [("secret", line)]
    assert SECRETS[secret] in findings[0].message


def test_bearer_token_and_high_entropy_header(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    path = root / "cassettes/anthropic/text_hello.yaml"
    token = base64.b64encode(os.urandom(30)).decode()
    cassette = load_cassette(path)
    cassette.interactions[0].request.headers["authorization"] = ["Bearer abc.def-ghijklmnop"]
    cassette.interactions[0].response.headers["x-session"] = [token]
    save_cassette(cassette)
    rules = sorted(f.message for f in lint([path], root))
    assert rules == ["bearer token in the cassette", "high-entropy token in a header"]


def test_base64_image_data_is_not_a_secret(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    path = root / "cassettes/anthropic/text_hello.yaml"
    image = base64.b64encode(os.urandom(3000)).decode()
    path.write_text(path.read_text().replace('"text":"Hello!"', f'"text":"{image}"'))
    assert lint([path], root) == []


def test_unreferenced_unplayed_and_malformed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(tmp_path)
    stray = root / "cassettes/anthropic/nobody.yaml"
    stray.write_text((root / "cassettes/anthropic/text_hello.yaml").read_text())
    broken = root / "cassettes/openai/broken.yaml"
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text("interactions:\n- request: {method: POST\n")
    used = root / "cassettes/anthropic/text_hello.yaml"
    text = used.read_text()
    start = text.index("- request:")
    used.write_text(text[: text.index("version:")] + text[start : text.index("version:")] + "version: 1\n")
    found = {(f.path.name, f.rule) for f in lint([root / "cassettes"], root)}
    assert found == {("nobody.yaml", "unreferenced"), ("broken.yaml", "malformed"), ("text_hello.yaml", "unplayed")}
    assert main(["lint", str(root / "cassettes"), "--root", str(root)]) == 1
    out = capsys.readouterr().out
    assert "broken.yaml:3: malformed" in out and "3 findings in 3 cassettes" in out


def test_bundled_cassettes_are_clean() -> None:
    root = Path(__file__).resolve().parents[2]
    assert [str(f) for f in lint([root / "cassettes"], root)] == []


def test_corpus_recordings_are_referenced_by_their_catalog(tmp_path: Path) -> None:
    """A recording the catalog lists is checked for secrets and form, never called unreferenced;
    one it does not list is; request and trace ids in headers are no secret."""
    root = make_project(tmp_path)
    corpus = root / "corpus"
    listed = corpus / "anthropic/messages/listed.yaml"
    listed.parent.mkdir(parents=True)
    cassette = load_cassette(root / "cassettes/anthropic/text_hello.yaml")
    cassette.interactions[0].response.headers["x-amz-cf-id"] = [
        "Yl6d906N1C5IWhzzGgnTwWKoPaBg1jINcCHIJtzh-tnICjKo0qxKTA=="
    ]
    cassette.path = listed
    save_cassette(cassette)
    (corpus / "anthropic/messages/stray.yaml").write_text(listed.read_text())
    (corpus / "catalog.json").write_text('[{"path": "anthropic/messages/listed.yaml"}]')
    found = {(f.path.name, f.rule) for f in lint([corpus], root)}
    assert found == {("stray.yaml", "unreferenced")}


def test_the_shipped_corpus_is_clean() -> None:
    root = Path(__file__).resolve().parents[2]
    assert [str(f) for f in lint([root / "corpus"], root)] == []
