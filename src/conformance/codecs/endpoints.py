"""Which recorded HTTP calls are generation calls of a dialect.

A recording of a real program holds more than the model's answers: the document it downloaded
before asking, a file it uploaded, an OAuth token exchange, a telemetry post. Decoding those with
a dialect's codec is meaningless, so `skip_reason` says why a call is not decoded (or None when it
is a generation call of the dialect). Matching is on the method and the URL path only, so any host
(a proxy, a regional endpoint, a gateway) is recognised.

A dialect is one entry of `GENERATION`; a new dialect adds its pattern there.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

GENERATION: dict[str, re.Pattern[str]] = {
    "openai_chat": re.compile(r"/chat/completions/?$"),
    "openai_responses": re.compile(r"/responses/?$"),
    "anthropic": re.compile(r"/v1/messages/?$"),
    "gemini": re.compile(r":(?:stream)?[gG]enerate[cC]ontent$"),
    "ollama": re.compile(r"/api/chat/?$"),
}
"""Dialect → pattern of the URL path of its generation call (always a POST)."""

OTHER_APIS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"/responses/[^/]+(?:/[^/]+)?/?$"), "an OpenAI Responses API retrieval or cancellation"),
    (re.compile(r"/v1/messages/count_tokens$"), "an Anthropic token count"),
    (re.compile(r":countTokens$"), "a Gemini token count"),
    (re.compile(r"/embeddings$|:(?:batchE|e)mbedContents?$|/api/embed(?:dings)?$"), "an embeddings call"),
    (re.compile(r"/api/generate$"), "an Ollama /api/generate call (no dialect)"),
    (re.compile(r"/model/[^/]+/invoke(?:-with-response-stream)?$"), "an Amazon Bedrock InvokeModel call (no dialect)"),
    (re.compile(r"/v\d/chat$"), "a Cohere chat call (no dialect)"),
    (re.compile(r"/files\b|/upload/|:upload|fileSearchStores"), "a file upload or file store call"),
    (re.compile(r"/token$|/oauth2?/"), "an OAuth token exchange"),
)
"""Known non-generation calls (or generation calls of APIs without a dialect) → what they are."""


def skip_reason(dialect: str, method: str, uri: str) -> str | None:
    """None when `method uri` is a generation call of `dialect`, else why it is not decoded.

    An interaction without a URI (a hand-written cassette may omit it) is decoded."""
    if not uri:
        return None
    path = unquote(urlsplit(uri).path)
    pattern = GENERATION.get(dialect)
    if pattern is None or (method.upper() == "POST" and pattern.search(path)):
        return None
    other = next((d for d, rule in GENERATION.items() if d != dialect and rule.search(path)), None)
    what = f"a generation call of the {other} dialect" if other else None
    what = what or next((name for rule, name in OTHER_APIS if rule.search(path)), None)
    if what is None:
        what = (
            "not a generation call"
            if method.upper() in {"GET", "HEAD", "OPTIONS"}
            else f"not a generation call of the {dialect} dialect"
        )
    return f"{what}: {method.upper()} {_short(uri)}"


def _short(uri: str) -> str:
    """The URI without its query (which may carry a key) and without a long tail."""
    parts = urlsplit(uri)
    text = f"{parts.scheme}://{parts.netloc}{parts.path}" if parts.netloc else parts.path
    return text if len(text) <= 120 else text[:117] + "…"
