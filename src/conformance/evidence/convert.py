"""Convert a recording as its source repository holds it into the corpus form the manifest hashes.

The corpus keeps every recording as plain vcrpy YAML (version 1), whatever format its project
recorded it in: bodies as text (gzip undone, `!binary` and base64 bodies decoded, bodies a project
stored pre-parsed — pydantic-ai's `parsed_body` — written back as JSON), header names in lower
case and sorted, `content-encoding` / `content-length` / `transfer-encoding` and the headers that
carry cookies or account and request ids dropped, credentials replaced by `<redacted>`, the status
message left empty. Each interaction is written as `request` (method, uri, body, headers) and
`response` (status, headers, body), long lines unbroken, text of several lines as a literal block.

Recordings are read in these source formats (the manifest's `original_format`): `vcrpy` (Python's
vcrpy and the projects that extend it), `vcr_r_ruby` (the YAML of Ruby's VCR and R's vcr:
`http_interactions`, a status as a number or a code and message, headers as single values), and
two formats of recorded response bodies kept without their request, as the AI SDK's provider
packages keep them under `__fixtures__`: `ai_sdk_json` (one JSON body) and `ai_sdk_chunks` (one
stream event per line, which the package's tests serve as `data: <line>` events, then
`data: [DONE]`). A response recorded alone is stored with the request its source's test sends and
the status it serves the body with (the manifest's `test_request`), never with an invented one;
its events are framed as the test frames them, or, where the provider names each event (Anthropic
Messages, OpenAI Responses), with the `event: <type>` line the provider sends before each `data:`
line and without the `[DONE]` line it does not send. The conversion is deterministic: converting
the pinned source file gives the corpus file byte for byte, which is what `conformance evidence
fetch` checks against the manifest's `sha256`.
"""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any

import yaml

from conformance.exceptions import InputError, one_line

FORMATS = ("vcrpy", "vcr_r_ruby", "ai_sdk_json", "ai_sdk_chunks")
"""The source formats a recording can be converted from."""

BODY_ONLY = frozenset({"ai_sdk_json", "ai_sdk_chunks"})
"""Formats holding a recorded response body alone: converting one needs the request its test sends."""

DROPPED_HEADERS = frozenset(
    {
        "anthropic-organization-id",
        "cf-ray",
        "content-encoding",
        "content-length",
        "cookie",
        "openai-organization",
        "openai-project",
        "request-id",
        "set-cookie",
        "transfer-encoding",
        "x-amz-cf-id",
        "x-amzn-trace-id",
        "x-goog-user-project",
        "x-inference-id",
        "x-proxied-path",
        "x-request-id",
    }
)
"""Headers the corpus form leaves out: transport framing undone by the conversion, cookies,
account, project, request and trace ids, and a proxy's internal route."""

SECRET_HEADERS: dict[str, str] = {
    "authorization": "Bearer <redacted>",
    "x-api-key": "<redacted>",
    "api-key": "<redacted>",
    "x-goog-api-key": "<redacted>",
}
"""Credential headers and the value each is replaced by."""

WIDTH = 100_000
"""Line width of the written YAML: wide enough that a body is never folded in practice."""


class _Loader(yaml.SafeLoader):
    """The safe loader, reading Ruby's `!binary` (base64) as the standard `!!binary` is read."""


def _ruby_binary(loader: yaml.SafeLoader, node: yaml.Node) -> bytes:
    return base64.b64decode(str(loader.construct_scalar(node)))  # type: ignore[arg-type]


_Loader.add_constructor("!binary", _ruby_binary)


class _Dumper(yaml.SafeDumper):
    """The safe dumper, writing text of several lines as a literal block."""


OTHER_BREAKS = ("\r", "\x85", "\u2028", "\u2029")
"""Characters YAML reads as line breaks in a block or a single-quoted scalar: text holding one is
written double-quoted, where they are escapes, so that it reads back as it was."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    if any(c in value for c in OTHER_BREAKS):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_Dumper.add_representer(str, _str)


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bytes):
        raw = gzip.decompress(value) if value[:2] == b"\x1f\x8b" else value
        return raw.decode("utf-8", errors="replace")
    return str(value)


def _body(side: dict[str, Any]) -> str | None:
    if "parsed_body" in side:
        return json.dumps(side["parsed_body"])
    body = side.get("body")
    if isinstance(body, dict):
        if "string" in body:
            return _text(body["string"])
        if "base64_string" in body:
            return _text(base64.b64decode(body["base64_string"]))
        if body.get("type") == "json" and set(body) == {"type", "content"}:
            return json.dumps(body["content"])
        return json.dumps(body)
    return _text(body)


def _headers(raw: Any) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, value in (raw or {}).items():
        key = str(name).lower()
        if key in DROPPED_HEADERS:
            continue
        values = [str(v) for v in (value if isinstance(value, list) else [value])]
        out[key] = [SECRET_HEADERS[key]] * len(values) if key in SECRET_HEADERS else values
    return dict(sorted(out.items()))


def _status(raw: Any) -> dict[str, Any]:
    code = raw["code"] if isinstance(raw, dict) else raw
    return {"code": int(code), "message": ""}


def _interaction(item: dict[str, Any]) -> dict[str, Any]:
    request, response = item["request"], item["response"]
    return {
        "request": {
            "method": str(request["method"]).upper(),
            "uri": request["uri"],
            "body": _body(request) or None,
            "headers": _headers(request.get("headers")),
        },
        "response": {
            "status": _status(response["status"]),
            "headers": _headers(response.get("headers")),
            "body": {"string": _body(response)},
        },
    }


def _served(data: bytes, original_format: str, test: dict[str, Any]) -> dict[str, Any]:
    """The one interaction of a body recorded alone, as its test serves it for `test`'s request."""
    text = data.decode("utf-8")
    if original_format == "ai_sdk_json":
        body = json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False)
        content_type = "application/json"
    else:
        lines = [line for line in text.split("\n") if line.strip()]
        named = test.get("event_names", False)  # `event: <type>` lines, as the provider frames them
        events = [(f"event: {json.loads(line)['type']}\n" if named else "") + f"data: {line}\n\n" for line in lines]
        body = "".join(events) + ("data: [DONE]\n\n" if test.get("done", True) else "")
        content_type = "text/event-stream"
    request = {"method": test.get("method", "POST"), "uri": test["uri"], "body": test.get("body")}
    response = {"status": test.get("status", 200), "headers": {"content-type": content_type}, "body": body}
    return _interaction({"request": request, "response": response})


def to_corpus_form(data: bytes, original_format: str, test_request: dict[str, Any] | None = None) -> bytes:
    """The corpus form of a recording held as `data` in `original_format`; `InputError` when
    the format is unknown or the data is not a recording of it. A format of `BODY_ONLY` needs
    `test_request`: the request its source's test sends (`uri`, `method`, `body`), the `status` it
    serves the body with, and for chunks whether a `data: [DONE]` event ends them (`done`) and
    whether each event is named by its JSON's `type` (`event_names`)."""
    if original_format not in FORMATS:
        raise InputError(f"unknown recording format {original_format!r} (known: {', '.join(FORMATS)})")
    if original_format in BODY_ONLY and not (isinstance(test_request, dict) and test_request.get("uri")):
        raise InputError(f"a {original_format} recording needs the request its test sends (a uri)")
    key = "interactions" if original_format == "vcrpy" else "http_interactions"
    try:
        if original_format in BODY_ONLY:
            interactions = [_served(data, original_format, test_request or {})]
        else:
            doc = yaml.load(data, Loader=_Loader)  # a safe loader with one more tag
            interactions = [_interaction(item) for item in doc[key]]
    except (yaml.YAMLError, KeyError, TypeError, ValueError, OSError, EOFError) as exc:
        raise InputError(f"not a {original_format} recording: {one_line(exc)}") from None
    dumped = yaml.dump(
        {"version": 1, "interactions": interactions},
        Dumper=_Dumper,
        sort_keys=False,
        width=WIDTH,
        allow_unicode=True,
        default_flow_style=False,
    )
    return dumped.encode()
