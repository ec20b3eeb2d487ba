"""`conformance lint` catches credentials in every shape a header or a body may carry one — planted
here one by one — and flags nothing in the bundled cassettes and the real recorded corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.harness.lint import lint
from conformance.replay.cassette import load_cassette, save_cassette
from tests.harness.project import make_project

ROOT = Path(__file__).resolve().parents[2]
HEX32 = "9f86d081884c7d659a2feaa0c55ad015"
MISTRAL = "Qx7Lm2Vb9Tz4Kp8Wn3Rd6Hs1Fg5Jc0Ya"[:32]

HEADERS: list[tuple[str, str, str]] = [
    # (header, value, words of the finding); the first four were the ones missed
    ("api-key", HEX32, "credential"),  # an Azure OpenAI key: 32 hex digits
    ("x-custom-auth", f"k={MISTRAL};", "credential"),  # a key in a `name=value;` list
    ("authorization", "Token 3f0c9a1b7e2d4c6a8b0e1f2a3b4c5d6e", "credential"),  # another scheme than Bearer
    (MISTRAL, "1", "credential"),  # a key used as the header's name
    ("authorization", "Bearer abc.def-ghijklmnop", "bearer token"),
    ("x-api-key", "sk-ant-api03-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6", "Anthropic API key"),
    ("x-session", "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg", "high-entropy token"),
    ("cookie", "session=abc", "cookie"),
]


def _plant(tmp_path: Path, side: str, name: str, value: str) -> tuple[Path, Path]:
    root = make_project(tmp_path)
    path = root / "cassettes/anthropic/text_hello.yaml"
    cassette = load_cassette(path)
    getattr(cassette.interactions[0], side).headers[name] = [value]
    save_cassette(cassette)
    return root, path


@pytest.mark.parametrize("side", ["request", "response"])
@pytest.mark.parametrize(("name", "value", "words"), HEADERS)
def test_a_credential_planted_in_a_header_is_found(
    side: str, name: str, value: str, words: str, tmp_path: Path
) -> None:
    root, path = _plant(tmp_path, side, name, value)
    findings = [f for f in lint([path], root) if f.rule == "secret"]
    assert findings, (name, value)
    assert any(words in f.message for f in findings), [f.message for f in findings]
    line = path.read_text().splitlines()[findings[0].line - 1]
    assert name.lower() in line.lower() or value[:12] in line


@pytest.mark.parametrize(
    "body",
    [
        f'"api_key":"{MISTRAL}"',
        f'"text":"my key is {MISTRAL} ok"',
        f'"text":"{MISTRAL}"',
    ],
)
def test_a_bare_mistral_key_in_a_body_is_found(body: str, tmp_path: Path) -> None:
    root = make_project(tmp_path)
    path = root / "cassettes/anthropic/text_hello.yaml"
    path.write_text(path.read_text().replace('"text":"Hello!"', body))
    findings = lint([path], root)
    assert [f.message for f in findings] == ["Mistral API key in the cassette"]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("x-request-id", HEX32),  # a request id: 32 hex digits, in a header that names an id
        ("traceparent", f"00-{HEX32}-b7ad6b7169203331-01"),
        ("x-ratelimit-remaining-tokens", "3999871"),
        ("content-type", "text/event-stream; charset=utf-8"),
        ("strict-transport-security", "max-age=31536000; includeSubDomains; preload"),
        ("authorization", "Bearer <redacted>"),
        ("x-goog-api-key", "<redacted>"),
        ("alt-svc", 'h3=":443"; ma=86400'),
    ],
)
def test_ordinary_headers_are_not_credentials(name: str, value: str, tmp_path: Path) -> None:
    root, path = _plant(tmp_path, "response", name, value)
    assert [f for f in lint([path], root) if f.rule == "secret"] == []


@pytest.mark.parametrize("folder", ["cassettes", "corpus"])
def test_the_bundled_cassettes_and_the_corpus_hold_no_credential(folder: str) -> None:
    findings = [f for f in lint([ROOT / folder], None) if f.rule == "secret"]
    assert findings == [], [str(f) for f in findings[:10]]
