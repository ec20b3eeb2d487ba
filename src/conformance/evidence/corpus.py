"""Reading a corpus of real recordings (vcrpy YAML, version 1) laid out as its `catalog.json` says.

Each catalog entry names a provider and an API. An API with a dialect here is decoded with the
matching profile (a provider without its own profile of that dialect gets the generic one);
inside a cassette only the generation calls of the dialect are read
(`conformance.codecs.endpoints`).
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import yaml

from conformance.capabilities import ProviderProfile, get_profile, provider_names
from conformance.codecs import codec_for, decode_response
from conformance.codecs.base import is_stream
from conformance.codecs.endpoints import skip_reason
from conformance.exceptions import InputError
from conformance.fileio import SafeLoader, inside, read_regular
from conformance.jsonvalue import printable
from conformance.model import Outcome

API_DIALECTS: dict[str, str] = {
    "chat_completions": "openai_chat",
    "messages": "anthropic",
    "generate_content": "gemini",
    "ollama_chat": "ollama",
    "responses": "openai_responses",
}
"""Corpus API → the dialect that decodes it."""

GENERIC_PROFILE: dict[str, str] = {
    "openai_chat": "openai-compatible",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "ollama": "ollama",
    "openai_responses": "openai_responses",
}
"""The profile used for a corpus provider without its own profile of that dialect."""

DIALECT_PROFILES: dict[tuple[str, str], str] = {
    ("openai", "openai_responses"): "openai_responses",
    ("azure_openai", "openai_responses"): "azure_responses",
    ("xai", "openai_responses"): "xai_responses",
    ("openrouter", "openai_responses"): "openrouter_responses",
    ("google_vertex", "gemini"): "vertex",
    ("azure_openai", "openai_chat"): "azure",
}
"""Corpus providers whose profile of a dialect has another name than theirs."""


@dataclasses.dataclass(frozen=True)
class Interaction:
    """One generation call of a recording, with the profile that reads it."""

    path: str
    index: int
    profile: ProviderProfile
    status: int
    headers: dict[str, str]
    body: bytes
    stream: bool
    model: str = ""
    """The model the recorded request names (its body's `model`, else its address's `models/…`)."""

    @property
    def where(self) -> str:
        return f"{self.path}#{self.index}"

    def decode(self, chunks: list[bytes] | None = None) -> Outcome:
        codec = codec_for(self.profile)
        return decode_response(
            codec, self.profile, self.status, self.headers, self.body, stream_hint=self.stream, chunks=chunks
        )

    @property
    def streams(self) -> bool:
        return self.status < 400 and is_stream(codec_for(self.profile), self.headers, self.stream)


@dataclasses.dataclass
class Skipped:
    """A call (or a file) that is not read, with why."""

    where: str
    reason: str


MAX_RECORDING_BYTES = 64 << 20
"""Largest recording read: thirty times the largest real one (2.1 MB)."""

CATALOG_FIELDS = ("path", "provider", "api", "source_repo", "source_path", "commit", "license")
"""What every catalog entry names, each a non-empty string."""


def read_catalog(corpus: Path) -> list[dict[str, Any]]:
    """The entries of `corpus/catalog.json`; `InputError` naming the file (and the entry) when it is
    not a list of entries, an entry lacks a field, or its path leaves the corpus folder."""
    where = str(corpus / "catalog.json")
    try:
        data = json.loads(read_regular(corpus / "catalog.json", limit=MAX_RECORDING_BYTES))
    except (ValueError, RecursionError) as exc:
        raise InputError(f"not JSON: {str(exc)[:120]}", where=where) from None
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise InputError("not a corpus catalog (a list of entries with a path)", where=where)
    for i, entry in enumerate(data):
        name = f"entry {i}" + (f" ({printable(entry['path'][:120])})" if isinstance(entry.get("path"), str) else "")
        bad = [f for f in CATALOG_FIELDS if not isinstance(entry.get(f), str) or not entry[f]]
        if bad:
            raise InputError(f"{name} has no {', '.join(bad)} (each a string)", where=where)
        if not inside_corpus(corpus, entry["path"]):
            raise InputError(f"{name}: a path outside the corpus folder", where=where)
    return data


def inside_corpus(corpus: Path, path: str) -> bool:
    """Whether a catalog path names a file inside `corpus`: relative, without `..`, and inside once
    its symlinks are resolved."""
    rel = Path(path)
    if rel.is_absolute() or ".." in rel.parts or "\x00" in path:
        return False
    return inside(corpus / rel, corpus)


def read_recording(corpus: Path, entry: dict[str, Any]) -> bytes:
    """The bytes of an entry's file: a regular file of at most `MAX_RECORDING_BYTES` (`InputError` naming it)."""
    return read_regular(corpus / entry["path"], limit=MAX_RECORDING_BYTES)


def profile_for(provider: str, dialect: str) -> ProviderProfile:
    """The profile that reads `provider`'s recordings of `dialect`."""
    if (provider, dialect) in DIALECT_PROFILES:
        return get_profile(DIALECT_PROFILES[(provider, dialect)])
    if provider in provider_names() and get_profile(provider).dialect == dialect:
        return get_profile(provider)
    return get_profile(GENERIC_PROFILE[dialect])


def _request_body(request: dict[str, Any]) -> Any:
    """The recorded request's body read as JSON (None when it is not JSON)."""
    body = request.get("body")
    if isinstance(body, dict):
        body = body.get("string")
    try:
        return json.loads(body or "null")
    except (TypeError, ValueError):
        return None


def stream_requested(request: dict[str, Any], uri: str) -> bool:
    """Whether the recorded request asked for a stream (its body's `stream`, else its address)."""
    data = _request_body(request)
    if isinstance(data, dict) and "stream" in data:
        return data["stream"] is True
    return "alt=sse" in uri or ":streamGenerateContent" in uri or uri.rstrip("/").endswith("/api/chat")


_MODEL_IN_URI = re.compile(r"/models/([^/:?]+)")


def requested_model(request: dict[str, Any], uri: str) -> str:
    """The model a recorded request names: its body's `model`, else the `models/<id>` of its
    address (Gemini, Vertex); empty when it names none."""
    data = _request_body(request)
    if isinstance(data, dict) and isinstance(data.get("model"), str):
        return str(data["model"])
    found = _MODEL_IN_URI.search(uri)
    return found.group(1) if found else ""


def _headers(raw: Any) -> dict[str, str]:
    return {k: (v[-1] if v else "") if isinstance(v, list) else str(v) for k, v in (raw or {}).items()}


def _body(raw: Any) -> bytes:
    value = raw.get("string", b"") if isinstance(raw, dict) else raw
    return value if isinstance(value, bytes) else str(value or "").encode()


def _interactions(doc: Any, where: str) -> list[dict[str, Any]]:
    """A cassette's interactions, each with a request and a response mapping; else `InputError`."""
    items = doc.get("interactions") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        raise InputError("not a cassette (a mapping with a list of interactions)", where=where)
    for i, item in enumerate(items):
        if not (
            isinstance(item, dict) and isinstance(item.get("request"), dict) and isinstance(item.get("response"), dict)
        ):
            raise InputError("not a cassette (an interaction without a request and a response)", where=f"{where}#{i}")
    return items


def _status(response: dict[str, Any], where: str) -> int:
    status = response.get("status")
    code = status.get("code") if isinstance(status, dict) else None
    if isinstance(code, bool) or not isinstance(code, int | str) or not str(code).isdigit():
        raise InputError("not a cassette (a response without a numeric status code)", where=where)
    return int(code)


def read_entry(
    corpus: Path, entry: dict[str, Any], *, data: bytes | None = None
) -> tuple[list[Interaction], list[Skipped]]:
    """The generation calls of one catalog entry, and the other calls skipped with why."""
    dialect = API_DIALECTS.get(entry["api"])
    if dialect is None:
        return [], [Skipped(entry["path"], f"the {entry['api']} API of {entry['provider']} has no dialect")]
    profile = profile_for(entry["provider"], dialect)
    where = str(corpus / entry["path"])
    raw = data if data is not None else read_recording(corpus, entry)
    key = (where, entry["api"], entry["provider"], hashlib.blake2b(raw, digest_size=20).digest())
    read = _READ.get(key)
    if read is not None and read[0] is profile:
        _READ.move_to_end(key)
        return list(read[1]), [dataclasses.replace(s) for s in read[2]]
    found, skipped = _parse_entry(corpus, entry, dialect, profile, where, raw)
    _READ[key] = (profile, tuple(found), tuple(skipped))
    while len(_READ) > READ_KEPT:
        _READ.popitem(last=False)
    return found, skipped


READ_KEPT = 4096
"""Recordings whose calls `read_entry` keeps in memory (the bundled corpus has 929), the least
recently read dropped first."""

_Read = tuple[ProviderProfile, tuple[Interaction, ...], tuple[Skipped, ...]]
_READ: collections.OrderedDict[tuple[str, str, str, bytes], _Read] = collections.OrderedDict()
"""Each recording parsed once per process for every reader (the real-traffic judge, the realism
lint): by its path, provider, API and the digest of its bytes, so a changed file is parsed again;
and with the profile that read it, so a changed registry reads it again."""


def _parse_entry(
    corpus: Path, entry: dict[str, Any], dialect: str, profile: ProviderProfile, where: str, raw: bytes
) -> tuple[list[Interaction], list[Skipped]]:
    try:
        doc = yaml.load(raw.decode(), Loader=SafeLoader)  # libyaml: same data, 10x faster
    except UnicodeDecodeError:
        raise InputError("not a cassette (not UTF-8 text)", where=where) from None
    except yaml.YAMLError as exc:
        raise InputError(f"not a cassette (not YAML: {' '.join(str(exc).split())[:120]})", where=where) from None
    found: list[Interaction] = []
    skipped: list[Skipped] = []
    for i, item in enumerate(_interactions(doc, where)):
        request, response = item["request"], item["response"]
        uri = str(request.get("uri") or "")
        why = skip_reason(dialect, request.get("method") or "POST", uri)
        if why is not None:
            skipped.append(Skipped(f"{entry['path']}#{i}", why))
            continue
        found.append(
            Interaction(
                path=entry["path"],
                index=i,
                profile=profile,
                status=_status(response, f"{where}#{i}"),
                headers=_headers(response.get("headers")),
                body=_body(response.get("body")),
                stream=stream_requested(request, uri),
                model=requested_model(request, uri),
            )
        )
    return found, skipped
