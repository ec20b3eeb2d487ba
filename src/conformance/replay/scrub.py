"""Scrubbing on record: an allow-list of headers, keys out of URLs, the exact key used and
key-shaped strings out of headers and bodies, account ids out of bodies. Everything not on the
allow-lists is dropped. The lists and the matching live in `conformance.secrets`."""

from __future__ import annotations

import re

from conformance.secrets import (
    QUERY_KEYS,
    REQUEST_HEADERS,
    RESPONSE_HEADER_PREFIXES,
    RESPONSE_HEADERS,
    keep_response_header,
    redact,
    scrub_exact,
    scrub_headers,
    scrub_url,
)

__all__ = [
    "QUERY_KEYS",
    "REQUEST_HEADERS",
    "RESPONSE_HEADERS",
    "RESPONSE_HEADER_PREFIXES",
    "keep_response_header",
    "scrub_headers",
    "scrub_text",
    "scrub_url",
]
_ACCOUNT_IDS = (
    (re.compile(r"\borg-[A-Za-z0-9]{8,}"), "org-redacted"),
    (re.compile(r"\bproj_[A-Za-z0-9]{8,}"), "proj_redacted"),
    (re.compile(r"\buser_[A-Za-z0-9]{8,}"), "user_redacted"),
)


def scrub_text(text: str, secrets: tuple[str, ...] = ()) -> str:
    """The exact keys used (and their long substrings), key-shaped strings and account ids replaced."""
    text = redact(scrub_exact(text, secrets))
    for pattern, replacement in _ACCOUNT_IDS:
        text = pattern.sub(replacement, text)
    return text
