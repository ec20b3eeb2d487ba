"""Everything about secrets, in one place: what a key looks like, which headers and query parameters
may carry one, which headers a cassette may keep, fingerprints, and redaction.

Key shapes come from the provider registry (`ProviderProfile.key_shapes`), so a new provider
declares its keys there and touches nothing here. Three strengths of matching:

- `redact` (error messages, log lines, bodies on record): a known prefix and 8 or more key
  characters, because providers echo partial keys in 401 messages;
- `find_key` (cassette lint): a full key of a declared shape, named by its label;
- `scrub_exact` (recording): the key actually used, and every substring of it of at least
  `MIN_SUBSTRING` characters, wherever it appears — headers included — whatever its shape.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from functools import cache
from urllib.parse import parse_qsl, unquote_plus, urlencode, urlsplit, urlunsplit

from conformance.capabilities import KeyShape, get_profile, provider_names

REDACTED = "<redacted>"
MIN_SUBSTRING = 12
"""Substrings of the key this long or longer are replaced too (a server may echo part of it)."""

KEY_HEADERS = frozenset({"authorization", "proxy-authorization", "x-api-key", "x-goog-api-key", "api-key"})
"""Request headers whose value is a key (fingerprinted in the request log, never recorded)."""
QUERY_KEYS = frozenset({"key", "api_key", "apikey", "access_token"})
"""Query parameters whose value is a key."""

REQUEST_HEADERS = frozenset({"content-type", "anthropic-version", "anthropic-beta"})
"""Request headers a cassette keeps; every other one is dropped on record."""
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
"""Response headers a cassette keeps (names, and name prefixes)."""

SAFE_HEADER_VALUE = re.compile(r"^(req|msg|chatcmpl|gen|call|toolu|org|resp)[-_]")
"""Identifier-shaped header values (request ids, ids) are not secrets however random they look."""
_PLAIN_VALUE = re.compile(
    r"^(?:[0-9a-f\-]+|[0-9A-F\-]+|[0-9.:\-TZ+ ]+|[0-9.]+(?:ms|s|m|h)?|[a-z0-9]{1,12}(?:[-_][a-z0-9]{1,12})+)$"
)
"""What allow-listed headers normally hold: UUIDs, hex and trace ids, dashed lowercase names (model
ids), numbers, dates and durations."""
_TOKEN = re.compile(r"^[A-Za-z0-9_+/=\-]+$")
_BEARER = re.compile(r"Bearer\s+(?!<redacted>)[A-Za-z0-9._\-]{8,}")
_QUERY_KEY = re.compile(r"([?&](?:" + "|".join(sorted(QUERY_KEYS)) + r")=)[^&\s\"']+", re.IGNORECASE)


def key_fingerprint(key: str) -> str:
    """`fp:` + the first 12 hex characters of sha256(key): names a key without revealing it."""
    return "fp:" + hashlib.sha256(key.encode()).hexdigest()[:12]


def key_shapes() -> tuple[KeyShape, ...]:
    """Every declared key shape, longest prefix first (so `sk-ant-` is named before `sk-`)."""
    seen: dict[tuple[str, str], KeyShape] = {}
    for name in provider_names():
        for shape in get_profile(name).key_shapes:
            seen.setdefault((shape.prefix, shape.alphabet), shape)
    return tuple(sorted(seen.values(), key=lambda s: -len(s.prefix)))


@cache
def _patterns(shapes: tuple[KeyShape, ...]) -> tuple[re.Pattern[str], tuple[tuple[str, re.Pattern[str]], ...]]:
    start = r"(?<![A-Za-z0-9])"
    partial = "|".join(start + re.escape(s.prefix) + r"[A-Za-z0-9_\-]{8,}" for s in shapes)
    redactor = re.compile(f"(?:{partial})|{_BEARER.pattern}" if partial else _BEARER.pattern)
    full = tuple((s.label, re.compile(start + re.escape(s.prefix) + f"[{s.alphabet}]{{{s.length},}}")) for s in shapes)
    return redactor, (*full, ("bearer token", _BEARER))


def redact(text: str) -> str:
    """Anything shaped like an API key (or a part of one) replaced by `<redacted>`."""
    return _patterns(key_shapes())[0].sub(REDACTED, text)


def redact_line(text: str) -> str:
    """`redact`, plus the values of key-carrying query parameters (a logged request URL)."""
    return _QUERY_KEY.sub(r"\1" + REDACTED, redact(text))


def find_key(text: str) -> str | None:
    """The label of the first full key shape found in `text`, or None."""
    for label, pattern in _patterns(key_shapes())[1]:
        if pattern.search(text):
            return label
    return None


def entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def is_secret_header_value(value: str) -> bool:
    """A header value that is one high-entropy token (16+ characters, letters and digits,
    not an identifier, UUID, hex id, number, date or duration)."""
    token = value.strip()
    if len(token) < 16 or not _TOKEN.match(token) or SAFE_HEADER_VALUE.match(token) or _PLAIN_VALUE.match(token):
        return False
    if not (re.search("[0-9]", token) and re.search("[A-Za-z]", token)):
        return False
    return entropy(token) >= min(3.5, math.log2(len(token)) - 0.5)


def _windows(secret: str) -> re.Pattern[str] | None:
    if len(secret) < MIN_SUBSTRING:
        return None
    pieces = sorted({secret[i : i + MIN_SUBSTRING] for i in range(len(secret) - MIN_SUBSTRING + 1)})
    return re.compile("(?=(" + "|".join(re.escape(p) for p in pieces) + "))")


def scrub_exact(text: str, secrets: tuple[str, ...]) -> str:
    """`text` with each secret, and each substring of one of at least `MIN_SUBSTRING` characters,
    replaced by `<redacted>` (linear in `text`: every such substring contains a window of exactly
    `MIN_SUBSTRING` characters, so covering every window occurrence covers the substrings)."""
    for secret in secrets:
        if not secret:
            continue
        text = text.replace(secret, REDACTED)
        windows = _windows(secret)
        if windows is None:
            continue
        covered = bytearray(len(text))
        found = False
        for match in windows.finditer(text):
            covered[match.start() : match.start() + MIN_SUBSTRING] = b"\x01" * MIN_SUBSTRING
            found = True
        if found:
            text = re.sub("\x01+", REDACTED, "".join("\x01" if c else ch for ch, c in zip(text, covered, strict=True)))
    return text


def keep_response_header(name: str) -> bool:
    """Whether a response header may be kept in a cassette (the allow-list; case-insensitive)."""
    lname = name.lower()
    return lname in RESPONSE_HEADERS or lname.startswith(RESPONSE_HEADER_PREFIXES)


def scrub_headers(
    headers: dict[str, list[str]], *, request: bool, secrets: tuple[str, ...] = ()
) -> dict[str, list[str]]:
    """Only allow-listed headers, with keys (shaped or exact) replaced in every value kept."""
    keep = (lambda k: k.lower() in REQUEST_HEADERS) if request else keep_response_header
    return {k.lower(): [redact(scrub_exact(x, secrets)) for x in v] for k, v in headers.items() if keep(k)}


def scrub_url(url: str) -> str:
    """`url` without key-carrying query parameters."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k.lower() not in QUERY_KEYS]
    return urlunsplit(parts._replace(query=urlencode(query)))


def fingerprint_headers(headers: dict[str, str]) -> dict[str, str]:
    """Header names lowercased; a key-carrying value becomes its fingerprint (a bearer key too)."""
    out: dict[str, str] = {}
    for name, value in headers.items():
        lname = name.lower()
        if lname in KEY_HEADERS:
            scheme, _, rest = value.partition(" ")
            key = rest.strip() if rest and scheme.lower() == "bearer" else value
            out[lname] = key_fingerprint(key)
        else:
            out[lname] = redact(value)
    return out


def fingerprint_query(query: str) -> str:
    """A query string with key-carrying values replaced by their fingerprint."""
    out = []
    for pair in query.split("&"):
        name, eq, value = pair.partition("=")
        secret = eq and unquote_plus(name).lower() in QUERY_KEYS
        out.append(f"{name}={key_fingerprint(unquote_plus(value))}" if secret else pair)
    return "&".join(out)


__all__ = [
    "KEY_HEADERS",
    "MIN_SUBSTRING",
    "QUERY_KEYS",
    "REDACTED",
    "REQUEST_HEADERS",
    "RESPONSE_HEADERS",
    "RESPONSE_HEADER_PREFIXES",
    "SAFE_HEADER_VALUE",
    "entropy",
    "find_key",
    "fingerprint_headers",
    "fingerprint_query",
    "is_secret_header_value",
    "keep_response_header",
    "key_fingerprint",
    "key_shapes",
    "redact",
    "redact_line",
    "scrub_exact",
    "scrub_headers",
    "scrub_url",
]
