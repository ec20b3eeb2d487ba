"""Ollama errors (§5.4): `{"error": "<string>"}` by message pattern, then HTTP status."""

from __future__ import annotations

import orjson
import pytest

from conformance.codecs.ollama import classify
from tests.codecs.ollama.helpers import PROFILE


def test_missing_model_tells_the_user_to_pull_it() -> None:
    error = classify(404, {}, b'{"error":"model \'llama9:latest\' not found"}', PROFILE)
    assert error.kind == "not_found"
    assert error.status == 404
    assert error.message == "model 'llama9:latest' not found — run `ollama pull llama9:latest`"


def test_scheduler_wording_of_a_missing_model() -> None:
    error = classify(404, {}, b'{"error":"model \\"qwen9\\" not found, try pulling it first"}', PROFILE)
    assert error.kind == "not_found"
    assert error.message.endswith("— run `ollama pull qwen9`")


@pytest.mark.parametrize(
    "message",
    ['"llama2" does not support tools', "registry.ollama.ai/library/gemma3 does not support thinking"],
)
def test_unsupported_features_are_invalid_requests(message: str) -> None:
    body = orjson.dumps({"error": message})
    assert classify(400, {}, body, PROFILE).kind == "invalid_request"


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, "invalid_request"),
        (401, "auth"),
        (403, "permission"),
        (429, "rate_limited"),
        (500, "server"),
        (502, "server"),
        (503, "overloaded"),
    ],
)
def test_status_decides_otherwise(status: int, kind: str) -> None:
    assert classify(status, {}, b'{"error":"something"}', PROFILE).kind == kind


def test_cloud_unauthorized() -> None:
    body = b'{"error":"unauthorized","signin_url":"https://ollama.com/connect?name=x"}'
    assert classify(401, {}, body, PROFILE).kind == "auth"


def test_non_json_body() -> None:
    error = classify(500, {}, b"Internal Server Error", PROFILE)
    assert (error.kind, error.message) == ("server", "Internal Server Error")
