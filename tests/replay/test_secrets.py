"""Secrets: a key without any recognisable prefix, echoed by a loopback server in every allow-listed
response header and in the body, never reaches the cassette; lint flags a header holding a bare
high-entropy token; the key shapes come from the provider profiles."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import capabilities, secrets
from conformance.capabilities import KeyShape, get_profile
from conformance.harness.lint import lint
from conformance.harness.record import record
from conformance.replay.cassette import load_cassette, save_cassette
from conformance.secrets import (
    MIN_SUBSTRING,
    RESPONSE_HEADERS,
    find_key,
    fingerprint_headers,
    fingerprint_query,
    key_fingerprint,
    redact,
    scrub_exact,
)
from tests.harness.project import make_project

ROOT = Path(__file__).resolve().parents[2]
KEY = "Zq8vT3mK9pL2xR7wN4bH6cJ1yF5dG0sA"  # no provider prefix: only exact matching can catch it
ECHOED = {
    **{name: KEY for name in RESPONSE_HEADERS if name not in ("content-type", "date")},
    "x-ratelimit-limit-requests": KEY[:20],  # a substring
    "x-ratelimit-remaining-tokens": "k=" + KEY[5:25] + ";",
    "anthropic-ratelimit-requests-reset": KEY,
}


def _answer() -> bytes:
    return json.dumps(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-4.1-mini",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": f"your key is {KEY} (or {KEY[2:16]})"},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    ).encode()


class _Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        assert self.headers["authorization"] == f"Bearer {KEY}"
        body = _answer()
        self.send_response(200, f"OK {KEY}")
        self.send_header("content-type", "application/json")
        for name, value in ECHOED.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def echo_server() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_an_echoed_key_is_replaced_in_every_header_and_the_body(echo_server: str, tmp_path: Path) -> None:
    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    report = record(
        tmp_path, "openai", mode="all", scenario_ids=["text_basic"], base_url=echo_server, env={"OPENAI_API_KEY": KEY}
    )
    assert report.recorded == ["text_basic"]
    path = tmp_path / "cassettes/openai/text_basic.yaml"
    raw = path.read_text()
    for start in range(len(KEY) - MIN_SUBSTRING + 1):
        assert KEY[start : start + MIN_SUBSTRING] not in raw
    headers = load_cassette(path).interactions[0].response.headers
    assert set(ECHOED) <= set(headers)  # the allow-listed headers are kept, their values scrubbed
    assert headers["x-request-id"] == ["<redacted>"]
    assert headers["x-ratelimit-remaining-tokens"] == ["k=<redacted>;"]
    assert lint([path], None) == []


def test_exact_scrubbing_covers_substrings_of_twelve_or_more() -> None:
    assert scrub_exact(f"a{KEY}b", (KEY,)) == "a<redacted>b"
    assert scrub_exact(f"[{KEY[3:15]}]", (KEY,)) == "[<redacted>]"
    assert scrub_exact(f"[{KEY[3:14]}]", (KEY,)) == f"[{KEY[3:14]}]"  # 11 characters: kept
    assert scrub_exact(f"{KEY[:13]}..{KEY[-13:]}", (KEY,)) == "<redacted>..<redacted>"


def test_lint_flags_a_bare_twenty_character_token_in_a_header(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    path = root / "cassettes/anthropic/text_hello.yaml"
    cassette = load_cassette(path)
    cassette.interactions[0].response.headers["x-custom"] = ["Zq8vT3mK9pL2xR7wN4bH"]
    save_cassette(cassette)
    assert [f.message for f in lint([path], root)] == ["high-entropy token in a header"]
    # a header that names an id holds an id, however random (`x-amz-cf-id`, `x-request-id` in real traffic)
    cassette.interactions[0].response.headers = {"x-request-id": ["Zq8vT3mK9pL2xR7wN4bH"]}
    save_cassette(cassette)
    assert lint([path], root) == []


@pytest.mark.parametrize(
    "value",
    [
        "req_011CUn7tj3eYsmKSFY2Hz2rJ",
        "3f2a9c1b-7d4e-4a5b-9c8d-1e2f3a4b5c6d",
        "0a1b2c3d4e5f60718293a4b5c6d7e8f9",
        "2026-11-22T10:00:00Z",
        "6m0s",
        "gpt-4-1-mini-2025-04-14",
        "application/json",
    ],
)
def test_ordinary_header_values_are_not_secrets(tmp_path: Path, value: str) -> None:
    root = make_project(tmp_path)
    path = root / "cassettes/anthropic/text_hello.yaml"
    cassette = load_cassette(path)
    cassette.interactions[0].response.headers["x-request-id"] = [value]
    save_cassette(cassette)
    assert lint([path], root) == []


def test_a_profile_declares_its_key_shape_and_nothing_else_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    key = "zk_live_" + "Q1w2E3r4T5y6U7i8O9p0A1s2"
    assert find_key(key) is None and redact(f"bad key {key}") == f"bad key {key}"
    profile = get_profile("mistral").model_copy(update={"key_shapes": (KeyShape(label="Zed key", prefix="zk_live_"),)})
    monkeypatch.setitem(capabilities._PROFILES, "mistral", profile)
    assert find_key(key) == "Zed key"
    assert redact(f"bad key {key}") == "bad key <redacted>"


def test_fingerprints_name_a_key_without_revealing_it() -> None:
    fp = key_fingerprint(KEY)
    assert fp.startswith("fp:") and len(fp) == 15 and KEY not in fp
    assert fingerprint_headers({"Authorization": f"Bearer {KEY}", "X-Api-Key": KEY}) == {
        "authorization": fp,
        "x-api-key": fp,
    }
    assert fingerprint_query(f"alt=sse&key={KEY}") == f"alt=sse&key={fp}"


@pytest.mark.parametrize(
    ("where", "value", "message"),
    [
        ("body", "sk-svcacct-" + "Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ", "OpenAI service account key in the cassette"),
        ("body", "sk-admin-" + "Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ", "OpenAI admin key in the cassette"),
        (
            "body",
            "".join(f"\\u{ord(c):04x}" for c in "sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7"),
            "OpenAI project key in the cassette",
        ),
        ("set-cookie", "session=abc; Path=/", "a set-cookie header (a session)"),
        ("cookie", "theme=dark", "a cookie header (a session)"),
    ],
)
def test_lint_finds_service_account_and_admin_keys_escaped_keys_and_cookies(
    tmp_path: Path, where: str, value: str, message: str
) -> None:
    root = make_project(tmp_path)
    path = root / "cassettes/anthropic/text_hello.yaml"
    cassette = load_cassette(path)
    response = cassette.interactions[0].response
    if where == "body":
        response.body = json.dumps({"note": "@"}).replace("@", value).encode()
    else:
        response.headers[where] = [value]
    save_cassette(cassette)
    assert [f.message for f in lint([path], root) if f.rule == "secret"] == [message]


_PIECES = st.sampled_from(["sk-", "sk-ant-", "Bearer", "Bearer ", "AIza", "gsk_", "fw_", "xai-", "pplx-", "bearer "])
_FILL = st.sampled_from(["abcdEFGH1234", "x", "-", "_", " ", "é", "<redacted>", "\n", "Sk-", "1"])


@given(st.lists(_PIECES | _FILL, max_size=12))
def test_redact_passes_over_a_text_without_a_key_start_as_the_scan_would(parts: list[str]) -> None:
    """A text holding no prefix of a key shape (nor `Bearer`) is returned unscanned: the same text
    the redactor's scan gives."""
    text = "".join(parts)
    redactor = secrets._shapes()[1][0]
    assert redact(text) == redactor.sub(secrets.REDACTED, text)


_KEYISH = st.sampled_from(["sk-proj-", "sk-ant-api03-", "AIza", "gsk_", "Bearer ", "Ab3" * 8, "aB9xY2" * 8, "Zq" * 20])


@given(st.lists(_PIECES | _FILL | _KEYISH, max_size=12))
def test_find_key_names_the_first_shape_that_matches_as_a_search_of_each_would(parts: list[str]) -> None:
    """A key shape whose start the text does not hold is not searched: the label found is the one
    searching every shape in turn finds."""
    text = "".join(parts)
    first = next((label for label, pattern, _ in secrets._shapes()[1][1] if pattern.search(text)), None)
    assert find_key(text) == first
