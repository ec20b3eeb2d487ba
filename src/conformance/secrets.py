"""Everything about secrets, in one place: what a key looks like, which headers and query parameters
may carry one, which headers a cassette may keep, fingerprints, and redaction.

Key shapes come from the provider registry (`ProviderProfile.key_shapes`), so a new provider
declares its keys there and touches nothing here. Three strengths of matching:

- `redact` (error messages, log lines, bodies on record): a known prefix and 8 or more key
  characters, because providers echo partial keys in 401 messages;
- `find_key` (cassette lint): a full key of a declared shape, named by its label;
- `scrub_exact` (recording): the key actually used, and every substring of it of at least
  `MIN_SUBSTRING` characters, in any letter case, wherever it appears — headers included — whatever
  its shape; `unescape_ascii` first decodes `\\uXXXX` escapes, so an escaped echo is found too.

A key read from the environment is a `Secret`: its `repr` and `str` are a fingerprint, so a
traceback, a log record or an f-string never shows it; `reveal()` is called where it is sent.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from functools import cache
from urllib.parse import parse_qsl, unquote_plus, urlencode, urlsplit, urlunsplit

from conformance.capabilities import KeyShape, ProviderProfile, registered_profiles

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


class Secret:
    """A key that cannot print: `repr`, `str` and formatting show `Secret(fp:…)`; it cannot be
    pickled (so it never reaches a worker or a file by accident). `reveal()` is the one way to
    the value, at the point where it is sent."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The key itself (to be sent, never shown)."""
        return self._value

    @property
    def fingerprint(self) -> str:
        """`key_fingerprint` of the key."""
        return key_fingerprint(self._value)

    def __repr__(self) -> str:
        return f"Secret({self.fingerprint})"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return format(repr(self), spec)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(("Secret", self._value))

    def __reduce__(self) -> str | tuple[object, ...]:
        raise TypeError("a Secret is not pickled")


def reveal(key: str | Secret | None) -> str | None:
    """The value of a key given either way (plain strings stay accepted where keys are passed in)."""
    return key.reveal() if isinstance(key, Secret) else key


_Compiled = tuple[re.Pattern[str], tuple[tuple[str, re.Pattern[str], str], ...], tuple[str, ...]]
"""The redactor; each full key shape's label, pattern and the text every match of it starts with
(its prefix, `Bearer`; empty: none); and what a match of the redactor starts with, one of these: the
prefixes and `Bearer`, less those that hold another (`sk-ant-` holds `sk-`)."""
_SHAPES: tuple[tuple[ProviderProfile, ...], tuple[KeyShape, ...], _Compiled] | None = None
"""The registered profiles (held, so compared by identity), their key shapes and compiled patterns: drawn
again whenever a profile is registered, replaced or removed (every scan of a value reads them)."""


def _shapes() -> tuple[tuple[KeyShape, ...], _Compiled]:
    global _SHAPES
    profiles = registered_profiles()
    known = _SHAPES
    if known is not None and known[0] == profiles:  # the same objects: an identity test per item
        return known[1], known[2]
    seen: dict[tuple[str, str], KeyShape] = {}
    for profile in profiles:
        for shape in profile.key_shapes:
            seen.setdefault((shape.prefix, shape.alphabet), shape)
    shapes = tuple(sorted(seen.values(), key=lambda s: -len(s.prefix)))
    _SHAPES = (profiles, shapes, _patterns(shapes))
    return shapes, _SHAPES[2]


def key_shapes() -> tuple[KeyShape, ...]:
    """Every declared key shape, longest prefix first (so `sk-ant-` is named before `sk-`)."""
    return _shapes()[0]


_EDGE = r"A-Za-z0-9_\-+/=."
"""Characters that continue a key, an id or base64 data: an exact key shape has none on either side."""


def _full(shape: KeyShape) -> re.Pattern[str]:
    if shape.exact:
        mixed = "".join(f"(?=[{shape.alphabet}]*[{c}])" for c in ("A-Z", "a-z", "0-9"))
        body = f"{re.escape(shape.prefix)}[{shape.alphabet}]{{{shape.length}}}"
        return re.compile(f"(?<![{_EDGE}]){mixed}{body}(?![{_EDGE}])")
    return re.compile(r"(?<![A-Za-z0-9])" + re.escape(shape.prefix) + f"[{shape.alphabet}]{{{shape.length},}}")


@cache
def _patterns(shapes: tuple[KeyShape, ...]) -> _Compiled:
    start = r"(?<![A-Za-z0-9])"
    prefixed = [s for s in shapes if s.prefix]  # a part of a key is told by its prefix alone
    partial = "|".join(start + re.escape(s.prefix) + r"[A-Za-z0-9_\-]{8,}" for s in prefixed)
    redactor = re.compile(f"(?:{partial})|{_BEARER.pattern}" if partial else _BEARER.pattern)
    full = (*((s.label, _full(s), s.prefix) for s in shapes), ("bearer token", _BEARER, "Bearer"))
    literals = {begin for _, _, begin in full if begin}
    starts = tuple(sorted(x for x in literals if not any(y != x and y in x for y in literals)))
    return redactor, full, starts


def redact(text: str) -> str:
    """Anything shaped like an API key (or a part of one) replaced by `<redacted>`."""
    redactor, _, starts = _shapes()[1]
    if not any(start in text for start in starts):  # nothing to redact: no scan of a long text
        return text
    return redactor.sub(REDACTED, text)


def redact_line(text: str) -> str:
    """`redact`, plus the values of key-carrying query parameters (a logged request URL)."""
    return _QUERY_KEY.sub(r"\1" + REDACTED, redact(text))


def find_key(text: str) -> str | None:
    """The label of the first full key shape found in `text`, or None."""
    for label, pattern, start in _shapes()[1][1]:
        if start in text and pattern.search(text):  # a shape whose start the text lacks is not searched
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


CREDENTIAL_HEADER = re.compile(
    r"^(?:proxy-)?authorization$|(?:^|-)(?:api-?key|apikey|auth-token|access-token|secret|password"
    r"|subscription-key|credentials?)$",
    re.IGNORECASE,
)
"""Header names whose value is a credential (`authorization`, `api-key`, `x-api-key`, `x-auth-token`,
`ocp-apim-subscription-key`, …), unlike names that only mention one (`x-ratelimit-remaining-tokens`)."""
ID_HEADER = re.compile(r"(?:^|-)(?:id|ids|id-\d+|served-by|ray|etag)$|trace", re.IGNORECASE)
"""Header names whose value is an identifier, however random it looks (`x-amz-cf-id`, `x-amz-id-2`,
`anthropic-workspace-id`, `x-served-by`, `x-cloud-trace-context`, `traceparent`): never taken for a
credential by its entropy alone."""
_SCHEME = re.compile(r"^(Token|Basic|Key|Bot|ApiKey|Api-Key|OAuth|Digest|Bearer)\s+(\S.*)$", re.IGNORECASE)
_HEX32 = re.compile(r"^[0-9A-Fa-f]{32}$")
_PLACEHOLDER = re.compile(r"redacted|<[^>]*>|^fp:[0-9a-f]{12}$|^(.)\1*$|x{4,}|\*{3,}", re.IGNORECASE)
"""A value that stands in for a credential: `<redacted>`, a fingerprint, `XXXX`, `****`."""


def _token_like(value: str) -> bool:
    """A credential's shape, without asking for high entropy: 8+ characters of one token, letters and
    digits both (or 32 hex digits), not a placeholder."""
    value = value.strip().strip("\"'")
    if len(value) < 8 or _PLACEHOLDER.search(value) or not _TOKEN.match(value):
        return False
    if _HEX32.match(value):
        return True
    if _PLAIN_VALUE.match(value):  # a number, a date, a dashed lowercase name (a model id)
        return False
    return bool(re.search("[0-9]", value) and re.search("[A-Za-z]", value))


def header_credential(name: str, value: str) -> str | None:
    """Why a cassette header (`name: value`) holds a credential, or None: a key used as the name; a
    value in a header that carries credentials (`api-key`, `authorization`, …) that is not a
    placeholder; an authorization scheme other than `Bearer` (`Token …`, `Basic …`; a bearer token
    is found by `find_key`) with a credential after it; a `name=value` pair (`k=…;`) holding one;
    32 hex digits (an Azure key's shape) outside a header that names an id; one high-entropy token
    outside a header that names an id."""
    if find_key(name) or is_secret_header_value(name) or _HEX32.match(name.strip()):
        return "a credential used as a header name"
    text = value.strip()
    carries = CREDENTIAL_HEADER.search(name) and not text.lower().startswith("bearer ")
    if carries and (_token_like(_SCHEME.sub(r"\2", text)) or any(_token_like(v) for _, v in _pairs(text))):
        return f"a credential in the {name.lower()} header"
    scheme = _SCHEME.match(text)
    if scheme and scheme.group(1).lower() != "bearer" and _token_like(scheme.group(2)):
        return f"a credential after `{scheme.group(1)}` in a header"
    for key, pair in _pairs(text):
        if is_secret_header_value(pair) or (SECRET_NAME.search(key) and _token_like(pair)) or find_key(pair):
            return f"a credential in a `{key}=…` pair in a header"
    if ID_HEADER.search(name):
        return None
    if _HEX32.match(text):
        return "32 hex digits in a header (an Azure key's shape)"
    if is_secret_header_value(text):
        return "high-entropy token in a header"
    return None


def _pairs(value: str) -> list[tuple[str, str]]:
    """The `name=value` pairs of a header value (`k=v; k2=v2`, `a=b, c=d`)."""
    out = []
    for piece in re.split(r"[;,\s]+", value):
        key, eq, rest = piece.partition("=")
        if eq and key and rest:
            out.append((key, rest.strip("\"'")))
    return out


@cache
def _windows(secret: str) -> re.Pattern[str] | None:
    if len(secret) < MIN_SUBSTRING:
        return None
    pieces = sorted({secret[i : i + MIN_SUBSTRING].lower() for i in range(len(secret) - MIN_SUBSTRING + 1)})
    return re.compile("(?=(" + "|".join(re.escape(p) for p in pieces) + "))", re.IGNORECASE)


_ASCII_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\u00([2-7][0-9a-fA-F])")
"""A `\\u00XX` escape of a printable ASCII character (after an even run of backslashes)."""


def unescape_ascii(text: str) -> str:
    """`text` with `\\uXXXX` escapes of printable ASCII letters, digits and `-_.+/=` decoded: a
    JSON string means the same either way, and a key escaped character by character is found."""
    if "\\u00" not in text:
        return text

    def one(match: re.Match[str]) -> str:
        char = chr(int(match.group(2), 16))
        return match.group(1) + char if char.isalnum() or char in "-_.+/=" else match.group(0)

    return _ASCII_ESCAPE.sub(one, text)


def contains_secret(text: str, secrets: tuple[str, ...]) -> bool:
    """Whether `text` (or its `unescape_ascii` form) holds a secret or a `MIN_SUBSTRING`-long piece
    of one, in any letter case: the check of bytes about to be written."""
    decoded = unescape_ascii(text)
    for secret in secrets:
        if not secret:
            continue
        for form in {text, decoded}:
            lowered = form.lower()
            if secret.lower() in lowered:
                return True
            windows = _windows(secret)
            if windows is not None and windows.search(form):
                return True
    return False


def scrub_exact(text: str, secrets: tuple[str, ...]) -> str:
    """`text` with each secret, and each substring of one of at least `MIN_SUBSTRING` characters,
    in any letter case, replaced by `<redacted>` (linear in `text`: every such substring contains a
    window of exactly `MIN_SUBSTRING` characters, so covering every window occurrence covers the
    substrings). Where a secret shows only once `\\uXXXX` escapes are decoded, the decoded text is
    scrubbed instead."""
    if secrets and "\\u00" in text:
        decoded = unescape_ascii(text)
        if decoded != text and contains_secret(decoded, secrets):
            text = decoded
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
    """Only allow-listed headers, with keys (shaped or exact) replaced in every value kept; a header
    whose *name* holds a key (an allow-listed prefix followed by an echoed key) is dropped."""
    keep = (lambda k: k.lower() in REQUEST_HEADERS) if request else keep_response_header
    return {
        k.lower(): [redact(scrub_exact(x, secrets)) for x in v]
        for k, v in headers.items()
        if keep(k) and redact(scrub_exact(k, secrets)) == k
    }


def scrub_url(url: str) -> str:
    """`url` without key-carrying query parameters."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k.lower() not in QUERY_KEYS]
    return urlunsplit(parts._replace(query=urlencode(query)))


SECRET_NAME = re.compile(r"key|token|secret|passw|auth|cookie|session|credential|signature|sig$", re.IGNORECASE)
"""Header and query parameter names whose value is taken for a credential wherever it is logged
(`cookie`, `x-custom-key`, `ocp-apim-subscription-key`, `token`, `x-amz-security-token`, …)."""


def _fingerprint_in(value: str, keys: tuple[str, ...]) -> str:
    """`value` with each given key (any letter case) and each key-shaped string replaced by its
    fingerprint; a value that is one high-entropy token becomes its fingerprint whole."""
    for key in keys:
        if key and key.lower() in value.lower():
            value = re.sub(re.escape(key), key_fingerprint(key), value, flags=re.IGNORECASE)
    value = _shapes()[1][0].sub(lambda m: key_fingerprint(m.group(0)), value)
    return key_fingerprint(value) if is_secret_header_value(value) else value


def fingerprint_headers(headers: dict[str, str], keys: tuple[str, ...] = ()) -> dict[str, str]:
    """Header names lowercased; the value of a key-carrying header (by name: `authorization`,
    `cookie`, `x-custom-key`, …) becomes its fingerprint (a bearer key: the key's), and in every
    other value a given key, a key of a declared shape or a lone high-entropy token does."""
    out: dict[str, str] = {}
    for name, value in headers.items():
        lname = name.lower()
        if lname in KEY_HEADERS:
            scheme, _, rest = value.partition(" ")
            key = rest.strip() if rest and scheme.lower() == "bearer" else value
            out[lname] = key_fingerprint(key)
        elif SECRET_NAME.search(lname):
            out[lname] = key_fingerprint(value)
        else:
            out[lname] = _fingerprint_in(value, keys)
    return out


def fingerprint_query(query: str, keys: tuple[str, ...] = ()) -> str:
    """A query string with the values of key-carrying parameters (`key`, `token`, `api_key`, …)
    replaced by their fingerprint, and given or key-shaped keys in any other value too."""
    out = []
    for pair in query.split("&"):
        name, eq, value = pair.partition("=")
        plain = unquote_plus(value)
        lname = unquote_plus(name).lower()
        if eq and (lname in QUERY_KEYS or SECRET_NAME.search(lname)):
            out.append(f"{name}={key_fingerprint(plain)}")
        elif eq and _fingerprint_in(plain, keys) != plain:
            out.append(f"{name}={_fingerprint_in(plain, keys)}")
        else:
            out.append(pair)
    return "&".join(out)


__all__ = [
    "CREDENTIAL_HEADER",
    "ID_HEADER",
    "KEY_HEADERS",
    "MIN_SUBSTRING",
    "QUERY_KEYS",
    "REDACTED",
    "REQUEST_HEADERS",
    "RESPONSE_HEADERS",
    "RESPONSE_HEADER_PREFIXES",
    "SAFE_HEADER_VALUE",
    "Secret",
    "contains_secret",
    "entropy",
    "find_key",
    "fingerprint_headers",
    "fingerprint_query",
    "header_credential",
    "is_secret_header_value",
    "keep_response_header",
    "key_fingerprint",
    "key_shapes",
    "redact",
    "redact_line",
    "reveal",
    "scrub_exact",
    "scrub_headers",
    "scrub_url",
    "unescape_ascii",
]
