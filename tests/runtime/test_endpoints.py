"""Request URLs and credentials by profile flags: Azure deployment paths, `api-version`, the
`api-key` header; Vertex AI's project path with a bearer token."""

from __future__ import annotations

from conformance.capabilities import get_profile
from conformance.runtime.auth import apply_auth
from conformance.runtime.reference import ReferenceRuntime, parse_conversation

CONV = {"messages": [{"role": "user", "content": "Hi"}], "options": {"max_tokens": 32}}


def _url_and_headers(provider: str, conv: dict[str, object] = CONV) -> tuple[str, dict[str, str]]:
    profile = get_profile(provider)
    wire = ReferenceRuntime().wire_request(parse_conversation(conv), profile)
    return apply_auth(wire, profile, "secret-key")


def test_azure_chat_names_the_deployment_and_the_api_version_with_an_api_key_header() -> None:
    url, headers = _url_and_headers("azure")
    assert url == (
        "https://my-resource.openai.azure.com/openai/deployments/gpt-4.1-mini/chat/completions?api-version=2024-10-21"
    )
    assert headers["api-key"] == "secret-key" and "authorization" not in headers


def test_azure_responses_uses_the_v1_path_with_the_model_in_the_body() -> None:
    url, headers = _url_and_headers("azure_responses")
    assert url == "https://my-resource.openai.azure.com/openai/v1/responses"
    assert headers["api-key"] == "secret-key"


def test_a_base_url_override_keeps_deployment_and_version() -> None:
    profile = get_profile("azure").with_base_url("https://contoso.openai.azure.com/openai/")
    wire = ReferenceRuntime().wire_request(parse_conversation({**CONV, "model": "prod-4o"}), profile)
    assert wire.url(profile) == (
        "https://contoso.openai.azure.com/openai/deployments/prod-4o/chat/completions?api-version=2024-10-21"
    )


def test_vertex_is_the_gemini_dialect_on_its_project_path_with_a_bearer_token() -> None:
    url, headers = _url_and_headers("vertex", {**CONV, "options": {"stream": True}})
    assert url == (
        "https://aiplatform.googleapis.com/v1/projects/my-project/locations/global/publishers/google"
        "/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    )
    assert headers["authorization"] == "Bearer secret-key" and "x-goog-api-key" not in headers
