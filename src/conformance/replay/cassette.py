"""Cassettes: plain vcrpy YAML (version 1) that stock vcrpy loads, written to be read by people.

Request JSON bodies are pretty-printed and every multi-line body is a literal block, so a
reviewer sees SSE frames one per line. A top-level `meta` mapping carries provenance (record date,
provider, model, endpoint, harness version); vcrpy ignores keys it does not know.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson
import yaml

from conformance.exceptions import CassetteError
from conformance.fileio import atomic_write, memoized, parse_yaml, read_text

CASSETTE_VERSION = 1


@dataclass
class RecordedRequest:
    method: str
    uri: str
    body: bytes | None = None
    headers: dict[str, list[str]] = field(default_factory=dict)

    def stream_requested(self) -> bool:
        """The request asked for a stream (`"stream": true` in the body, or SSE in the query)."""
        body = self.json()
        return (isinstance(body, dict) and body.get("stream") is True) or "alt=sse" in self.uri

    def json(self) -> Any:
        """The body parsed as JSON, or None when it is empty or not JSON."""
        if not self.body:
            return None
        try:
            return orjson.loads(self.body)
        except orjson.JSONDecodeError:
            return None


@dataclass
class RecordedResponse:
    status: int
    body: bytes
    headers: dict[str, list[str]] = field(default_factory=dict)
    reason: str = ""

    def flat_headers(self) -> dict[str, str]:
        """One value per header (the last), names as recorded."""
        return {k: (v[-1] if v else "") for k, v in self.headers.items()}


@dataclass
class Interaction:
    request: RecordedRequest
    response: RecordedResponse


@dataclass
class Cassette:
    path: Path
    interactions: list[Interaction]
    meta: dict[str, Any] = field(default_factory=dict)


# loading ------------------------------------------------------------------------------------------


def _as_bytes(value: Any, where: str) -> bytes | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, dict) and "string" in value:
        return _as_bytes(value["string"], where)
    if isinstance(value, dict | list):
        try:
            return orjson.dumps(value)
        except orjson.JSONEncodeError as exc:  # a YAML value JSON has no form for (a huge int, a date key)
            raise CassetteError(f"body is not JSON ({exc})", where=where) from None
    raise CassetteError(f"body must be a string, got {type(value).__name__}", where=where)


def _headers(value: Any, where: str) -> dict[str, list[str]]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise CassetteError("headers must be a mapping", where=where)
    out: dict[str, list[str]] = {}
    for key, val in value.items():
        if isinstance(val, list):
            out[str(key)] = [str(v) for v in val]
        else:
            out[str(key)] = [str(val)]
    return out


def _require(mapping: Any, key: str, where: str) -> Any:
    if not isinstance(mapping, dict) or key not in mapping:
        raise CassetteError(f"missing field {key!r}", where=where)
    return mapping[key]


def parse_cassette(data: Any, path: Path) -> Cassette:
    """Validate the YAML structure; errors name the file and the field path."""
    where = str(path)
    if not isinstance(data, dict):
        raise CassetteError("a cassette is a mapping with 'interactions'", where=where)
    raw = _require(data, "interactions", where)
    if not isinstance(raw, list):
        raise CassetteError("'interactions' must be a list", where=f"{where}: interactions")
    interactions: list[Interaction] = []
    for i, item in enumerate(raw):
        at = f"{where}: interactions[{i}]"
        req = _require(item, "request", at)
        resp = _require(item, "response", at)
        status = _require(resp, "status", f"{at}.response")
        code = status.get("code") if isinstance(status, dict) else status
        if not isinstance(code, int):
            raise CassetteError("status code must be an integer", where=f"{at}.response.status.code")
        reason = status.get("message", "") if isinstance(status, dict) else ""
        interactions.append(
            Interaction(
                RecordedRequest(
                    method=str(_require(req, "method", f"{at}.request")).upper(),
                    uri=str(_require(req, "uri", f"{at}.request")),
                    body=_as_bytes(req.get("body"), f"{at}.request.body"),
                    headers=_headers(req.get("headers"), f"{at}.request.headers"),
                ),
                RecordedResponse(
                    status=code,
                    body=_as_bytes(resp.get("body"), f"{at}.response.body") or b"",
                    headers=_headers(resp.get("headers"), f"{at}.response.headers"),
                    reason=str(reason or ""),
                ),
            )
        )
    meta = data.get("meta") or {}
    if not isinstance(meta, dict):
        raise CassetteError("'meta' must be a mapping", where=f"{where}: meta")
    return Cassette(path=path, interactions=interactions, meta=meta)


Evidence = Literal["authored", "recorded", "emulated"]


def is_loopback(host: object) -> bool:
    """Whether a host name or address (`127.0.0.1`, `[::1]:8765`, `localhost`) is this machine."""
    if not isinstance(host, str) or not host:
        return False
    name = host.strip().lower()
    if name.startswith("["):  # [v6]:port
        name = name[1 : name.find("]")] if "]" in name else name[1:]
    elif name.count(":") == 1:  # name:port or v4:port
        name = name.partition(":")[0]
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def cassette_evidence(meta: dict[str, Any]) -> Evidence:
    """`recorded` only when the cassette says it was recorded from the live provider; `emulated`
    when it was recorded from a server on this machine (the emulator, a local echo server: `meta`
    says `source: emulated`, or names a loopback `address` or `host` contacted); anything written
    by hand or without a word about it is `authored` — a `recorded:` date alone included: a recording
    names what it contacted (`source`, `host` or `address`, as `conformance record` writes them)."""
    if not meta.get("recorded") or meta.get("authored"):
        return "authored"
    if meta.get("source") == "emulated" or is_loopback(meta.get("address")) or is_loopback(meta.get("host")):
        return "emulated"
    if meta.get("source") == "recorded" or meta.get("host") or meta.get("address"):
        return "recorded"
    return "authored"


def cassette_meta(path: Path) -> dict[str, Any]:
    """A cassette's `meta` (what the report's provenance reads), memoized on its own so that a
    process that did not load the cassette can be given it (`fileio.prime("cassette_meta", …)`)."""
    return memoized("cassette_meta", path, lambda p: load_cassette(p).meta)


def load_cassette(path: Path) -> Cassette:
    """A cassette, parsed once per file version (the result is shared: treat it as read-only)."""
    return memoized("cassette", path, _load_cassette)


def _load_cassette(path: Path) -> Cassette:
    try:
        text = read_text(path)
    except FileNotFoundError:
        raise CassetteError("no such cassette", where=str(path)) from None
    except UnicodeDecodeError as exc:
        raise CassetteError(f"not UTF-8 text ({exc.reason})", where=str(path)) from None
    try:
        data = parse_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or str(exc)
        raise CassetteError(f"malformed YAML: {problem}", where=where) from None
    return parse_cassette(data, path)


# writing ------------------------------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    """The pure-Python dumper on purpose: libyaml's emitter folds literal blocks differently, and
    cassettes are written rarely and read by people."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def _body_text(body: bytes | None, *, pretty_json: bool) -> str | None:
    if body is None:
        return None
    text = body.decode("utf-8")
    if pretty_json:
        try:
            return orjson.dumps(orjson.loads(body), option=orjson.OPT_INDENT_2).decode() + "\n"
        except orjson.JSONDecodeError:
            return text
    return text


def to_yaml_data(cassette: Cassette) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if cassette.meta:
        out["meta"] = dict(cassette.meta)
    items: list[dict[str, Any]] = []
    for it in cassette.interactions:
        items.append(
            {
                "request": {
                    "method": it.request.method,
                    "uri": it.request.uri,
                    "headers": it.request.headers,
                    "body": _body_text(it.request.body, pretty_json=True),
                },
                "response": {
                    "status": {"code": it.response.status, "message": it.response.reason},
                    "headers": it.response.headers,
                    "body": {"string": _body_text(it.response.body, pretty_json=False) or ""},
                },
            }
        )
    out["interactions"] = items
    out["version"] = CASSETTE_VERSION
    return out


def dump_cassette(cassette: Cassette) -> str:
    return yaml.dump(to_yaml_data(cassette), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100_000)


def save_cassette(cassette: Cassette, path: Path | None = None) -> Path:
    """Atomic write (a unique temp file in the same directory, then rename)."""
    return atomic_write(path or cassette.path, dump_cassette(cassette))
