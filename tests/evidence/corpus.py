"""The shared corpus of real recordings, read once and compared with the official SDKs.

The corpus is reference data outside the project (`../shared/corpus` beside the checkout or its
worktree parent, or `$CONFORMANCE_CORPUS`); tests that use it skip when it is absent. Each
catalog entry names a provider and an API. An API with a dialect here is decoded with the
matching profile (a corpus provider without its own profile gets the generic one of the
dialect); every other API is listed as skipped with its reason. Inside a cassette, only the
generation calls of the dialect are decoded (`conformance.codecs.endpoints`): a downloaded PDF,
an upload, a token exchange or a telemetry post is listed as skipped, as `conformance decode`
does.

Each decoded interaction is one fact: it agrees with the SDK, differs for a reason explained here
(a known fault of the SDK, undone before comparing), or disagrees.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

from conformance.capabilities import ProviderProfile, get_profile, provider_names
from conformance.codecs import codec_for, decode_response
from conformance.codecs.base import is_stream
from conformance.codecs.endpoints import skip_reason
from conformance.exceptions import InputError
from conformance.fileio import SafeLoader
from conformance.model import Outcome


def _corpus_dir() -> Path:
    if env := os.environ.get("CONFORMANCE_CORPUS"):
        return Path(env)
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "shared" / "corpus"
        if (candidate / "catalog.json").is_file():
            return candidate
    return here.parents[3] / "shared" / "corpus"


CORPUS = _corpus_dir()
PRESENT = (CORPUS / "catalog.json").is_file()

API_DIALECTS: dict[str, str] = {
    "chat_completions": "openai_chat",
    "messages": "anthropic",
    "generate_content": "gemini",
    "ollama_chat": "ollama",
    "responses": "openai_responses",
}
"""Corpus API → dialect that decodes it (and a comparator in `tests/evidence/test_corpus.py`)."""

GENERIC_PROFILE: dict[str, str] = {
    "openai_chat": "openai-compatible",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "ollama": "ollama",
    "openai_responses": "openai_responses",
}
"""The profile used for a corpus provider without its own profile of that dialect."""

DIALECT_PROFILES: dict[tuple[str, str], str] = {
    ("azure_openai", "openai_responses"): "azure_responses",
    ("xai", "openai_responses"): "xai_responses",
    ("openrouter", "openai_responses"): "openrouter_responses",
}
"""Corpus providers whose profile of a dialect has another name than theirs."""


@dataclasses.dataclass(frozen=True)
class Interaction:
    path: str
    index: int
    profile: ProviderProfile
    status: int
    headers: dict[str, str]
    body: bytes
    stream: bool

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
    where: str
    reason: str


def catalog() -> list[dict[str, Any]]:
    return list(json.loads((CORPUS / "catalog.json").read_text()))


def profile_for(provider: str, dialect: str) -> ProviderProfile:
    if (provider, dialect) in DIALECT_PROFILES:
        return get_profile(DIALECT_PROFILES[(provider, dialect)])
    if provider in provider_names() and get_profile(provider).dialect == dialect:
        return get_profile(provider)
    return get_profile(GENERIC_PROFILE[dialect])


def _stream_requested(request: dict[str, Any], uri: str) -> bool:
    body = request.get("body")
    if isinstance(body, dict):
        body = body.get("string")
    try:
        data = json.loads(body or "null")
    except (TypeError, ValueError):
        data = None
    if isinstance(data, dict) and "stream" in data:
        return data["stream"] is True
    return "alt=sse" in uri or ":streamGenerateContent" in uri or uri.rstrip("/").endswith("/api/chat")


def _headers(raw: Any) -> dict[str, str]:
    return {k: (v[-1] if v else "") if isinstance(v, list) else str(v) for k, v in (raw or {}).items()}


def _body(raw: Any) -> bytes:
    value = raw.get("string", b"") if isinstance(raw, dict) else raw
    return value if isinstance(value, bytes) else str(value or "").encode()


@functools.cache
def load(dialect: str) -> tuple[tuple[Interaction, ...], tuple[Skipped, ...]]:
    """Every generation call of `dialect` in the corpus, and what was skipped inside its files."""
    found: list[Interaction] = []
    skipped: list[Skipped] = []
    for entry in sorted(catalog(), key=lambda e: e["path"]):
        if API_DIALECTS.get(entry["api"]) != dialect:
            continue
        profile = profile_for(entry["provider"], dialect)
        doc = yaml.load((CORPUS / entry["path"]).read_text(), Loader=SafeLoader)  # libyaml: same data, 10× faster
        for i, item in enumerate(doc["interactions"]):
            request, response = item["request"], item["response"]
            uri = request.get("uri") or ""
            why = skip_reason(dialect, request.get("method") or "POST", uri)
            if why is not None:
                skipped.append(Skipped(f"{entry['path']}#{i}", why))
                continue
            found.append(
                Interaction(
                    path=entry["path"],
                    index=i,
                    profile=profile,
                    status=int(response["status"]["code"]),
                    headers=_headers(response.get("headers")),
                    body=_body(response.get("body")),
                    stream=_stream_requested(request, uri),
                )
            )
    return tuple(found), tuple(skipped)


def unrecognised() -> list[Skipped]:
    """Catalog entries whose API has no dialect here, with the reason."""
    return [
        Skipped(e["path"], f"the {e['api']} API of {e['provider']} has no dialect")
        for e in catalog()
        if e["api"] not in API_DIALECTS
    ]


@dataclasses.dataclass
class Tally:
    agree: int = 0
    explained: list[str] = dataclasses.field(default_factory=list)
    disagree: list[str] = dataclasses.field(default_factory=list)
    typed_errors: list[str] = dataclasses.field(default_factory=list)

    @property
    def facts(self) -> int:
        return self.agree + len(self.explained) + len(self.disagree) + len(self.typed_errors)

    def line(self, dialect: str) -> str:
        return (
            f"corpus {dialect}: {self.facts} facts, agree {self.agree}, explained {len(self.explained)}, "
            f"disagree {len(self.disagree)}, input-errors {len(self.typed_errors)}"
        )


Comparator = Callable[[Interaction, Outcome], "str | None"]
"""None when we and the SDK agree; `"explained: …"` for a known SDK difference; else the difference."""


def run(dialect: str, compare: Comparator) -> Tally:
    tally = Tally()
    interactions, _ = load(dialect)
    for it in interactions:
        try:
            outcome = it.decode()
        except InputError as exc:
            tally.typed_errors.append(f"{it.where}: {exc}")
            continue
        why = compare(it, outcome)
        if why is None:
            tally.agree += 1
        elif why.startswith("explained: "):
            tally.explained.append(f"{it.where}: {why.removeprefix('explained: ')}")
        else:
            tally.disagree.append(f"{it.where}: {why}")
    return tally


def streams(dialect: str) -> Iterator[Interaction]:
    return (it for it in load(dialect)[0] if it.streams)
