"""Scrubbing on record: an allow-list of headers, keys out of URLs, key-shaped strings and account
ids out of bodies. Everything not on the allow-lists is dropped."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from conformance.codecs.errorkit import redact

REQUEST_HEADERS = frozenset({"content-type", "anthropic-version", "anthropic-beta"})
RESPONSE_HEADERS = frozenset(
    {
        "content-type",
        "date",
        "retry-after",
        "retry-after-ms",
        "x-should-retry",
        "x-request-id",
        "request-id",
        "x-generation-id",
        "openai-processing-ms",
        "mistral-correlation-id",
    }
)
RESPONSE_HEADER_PREFIXES = ("x-ratelimit-", "anthropic-ratelimit-")
SECRET_QUERY_KEYS = frozenset({"key", "api_key", "apikey", "access_token"})
_ACCOUNT_IDS = (
    (re.compile(r"\borg-[A-Za-z0-9]{8,}"), "org-redacted"),
    (re.compile(r"\bproj_[A-Za-z0-9]{8,}"), "proj_redacted"),
    (re.compile(r"\buser_[A-Za-z0-9]{8,}"), "user_redacted"),
)


def keep_response_header(name: str) -> bool:
    lname = name.lower()
    return lname in RESPONSE_HEADERS or lname.startswith(RESPONSE_HEADER_PREFIXES)


def scrub_headers(headers: dict[str, list[str]], *, request: bool) -> dict[str, list[str]]:
    if request:
        return {k.lower(): v for k, v in headers.items() if k.lower() in REQUEST_HEADERS}
    return {k.lower(): [redact(x) for x in v] for k, v in headers.items() if keep_response_header(k)}


def scrub_url(url: str) -> str:
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k.lower() not in SECRET_QUERY_KEYS]
    return urlunsplit(parts._replace(query=urlencode(query)))


def scrub_text(text: str, secrets: tuple[str, ...] = ()) -> str:
    """Key-shaped strings, the exact keys used, and account ids replaced."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "<redacted>")
    text = redact(text)
    for pattern, replacement in _ACCOUNT_IDS:
        text = pattern.sub(replacement, text)
    return text
