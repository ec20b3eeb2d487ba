"""Replay a cassette through an httpx transport: body-matched, in order, never on the network.

`CassetteTransport` is an `httpx` transport (sync and async) that answers each request with the
first not-yet-played recorded interaction that matches it on method, scheme, host, port, path,
query and JSON body — vcrpy's `none` record mode with `allow_playback_repeats=False`, without
patching httpx. A request that matches nothing raises `ReplayMismatch` naming the nearest recorded
request and how it differs; `unplayed()` tells which interactions were never asked for.

How each answer ends on the transport is the cassette's `meta.fault` (`replay.faults`): cleanly
(the default), or a connection dropped mid-body (the recorded bytes, then `httpx.RemoteProtocolError`
as a socket read raises it), reset before any byte (`httpx.ReadError`) or timed out (`httpx.ReadTimeout`).

Cassettes stay plain vcrpy YAML: a test replays every bundled cassette through stock vcrpy too and
requires the same answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import orjson

from conformance.capabilities import ProviderProfile, get_profile, provider_names
from conformance.codecs.endpoints import skip_reason
from conformance.codecs.request_form import RequestFinding, failing, request_table
from conformance.replay.cassette import Cassette, Interaction, load_cassette
from conformance.replay.delivery import delivered, restreamed
from conformance.replay.faults import DroppingStream, before_answer, fault_kinds, read_until_dropped
from conformance.replay.matchers import body_findings, explain, json_body, parse_body
from conformance.secrets import QUERY_KEYS

MATCH_ON = ("method", "scheme", "host", "port", "path", "query", "json_body")

_HOP_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})
"""Recorded bodies are stored decoded and whole: these headers no longer describe them."""


class ReplayMismatch(Exception):
    """The runtime sent a request the cassette does not hold (a verdict, not a crash).

    `findings`: how its body differs from the nearest unplayed recorded request with the same
    method and URL, as the provider reads it (empty when no such request is left); `number`: which
    request of the exchange it was (1 for the first)."""

    def __init__(self, message: str, findings: list[RequestFinding] | None = None, number: int | None = None) -> None:
        super().__init__(message)
        self.findings = findings or []
        self.number = number


@dataclass(frozen=True)
class ReplayedResponse:
    status: int
    headers: dict[str, str]
    body: bytes
    dropped: httpx.TransportError | None = None
    """The error that ended the body when its connection dropped (`body` is what arrived); None: clean."""


@dataclass(frozen=True)
class LoggedRequest:
    """One request the transport answered: which interaction, what was sent, when (on its clock)."""

    interaction: int
    method: str
    url: str
    headers: dict[str, str]
    body: bytes | None
    at: float


@dataclass(frozen=True)
class _Target:
    method: str
    scheme: str
    host: str
    port: int
    path: str
    query: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, method: str, uri: str, profile: ProviderProfile | None = None) -> _Target:
        parts = urlsplit(uri)
        scheme = parts.scheme.lower()
        port = parts.port or (443 if scheme == "https" else 80)
        # a key in the query string is never recorded, so it takes no part in matching
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        query = tuple(sorted((k, v) for k, v in pairs if k.lower() not in QUERY_KEYS))
        path = parts.path or "/"
        if profile is not None:  # API-version aliases the provider serves alike
            path = request_table(profile.dialect).canonical_path(path)
        return cls(method.upper(), scheme, (parts.hostname or "").lower(), port, path, query)

    def unstreamed(self, profile: ProviderProfile | None) -> _Target | None:
        """The address whose answer this stream address asks for (Gemini's `:streamGenerateContent?alt=sse`
        for `:generateContent`), or None."""
        if profile is None:
            return None
        plain = request_table(profile.dialect).unstreamed_address(self.path, self.query)
        if plain is None:
            return None
        return _Target(self.method, self.scheme, self.host, self.port, plain[0], plain[1])

    def differences(self, other: _Target) -> list[str]:
        return [
            name
            for name in ("method", "scheme", "host", "port", "path", "query")
            if getattr(self, name) != getattr(other, name)
        ]


def _cassette_profile(cassette: Cassette) -> ProviderProfile | None:
    name = cassette.meta.get("provider")
    return get_profile(name) if isinstance(name, str) and name in provider_names() else None


def _interaction_profile(uri: str, default: ProviderProfile | None) -> ProviderProfile | None:
    """The profile that reads an interaction's request: the cassette's, unless the request went to
    another provider's host (a turn that fell back to another provider), then that provider's (of the
    profiles served there, one whose dialect the address is a generation call of)."""
    host = urlsplit(uri).hostname
    if default is None or urlsplit(default.base_url).hostname == host:
        return default
    profiles = (get_profile(n) for n in provider_names())
    others = [p for p in profiles if urlsplit(p.base_url).hostname == host]
    # of the profiles served there, one whose dialect the address is a generation call of
    others.sort(key=lambda p: skip_reason(p.dialect, "POST", uri) is not None)
    return others[0] if others else default


class CassetteTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """Answers requests from one cassette; each recorded interaction is played at most once.

    Every answered request is kept in `log` (with the time on `clock`, when one is given)."""

    def __init__(
        self, cassette: Cassette, *, clock: Any = None, profile: ProviderProfile | None = None, restream: bool = False
    ) -> None:
        self.cassette = cassette
        self.restream = restream
        """A request asking for a stream where the recording did not, and differing in delivery keys
        alone, is answered with the recorded answer streamed (`replay.delivery`)."""
        self._streamed: dict[int, Any] = {}
        self.profile = profile or _cassette_profile(cassette)
        self._profiles = [_interaction_profile(it.request.uri, self.profile) for it in cassette.interactions]
        """The profile that reads each interaction's request (another provider's for a fallback's)."""
        self._targets = [
            _Target.of(it.request.method, it.request.uri, p)
            for it, p in zip(cassette.interactions, self._profiles, strict=True)
        ]
        self._bodies = [parse_body(it.request.body) for it in cassette.interactions]
        self.faults = fault_kinds(cassette.meta, len(cassette.interactions), str(cassette.path))
        """How each recorded answer ends on the transport (`replay.faults`)."""
        self.findings: list[RequestFinding] = []
        """Notes on requests that matched (differences the provider reads the same)."""
        self.play_counts = [0] * len(cassette.interactions)
        self.log: list[LoggedRequest] = []
        self._clock = clock
        self.mismatches: list[ReplayMismatch] = []
        """Every request no interaction matched, kept whatever the runtime did with the exception
        (a library may wrap it, or replace it with one of its own): `raise_mismatch` reads it."""

    @classmethod
    def from_path(cls, path: Path, *, restream: bool = False) -> CassetteTransport:
        return cls(load_cassette(path), restream=restream)

    def answered_streams(self) -> bool:
        """Whether a recorded answer was given as the stream a request asked for (`replay.delivery`)."""
        return bool(self._streamed)

    def unplayed(self) -> list[int]:
        """Indices of recorded interactions that no request played."""
        return [i for i, n in enumerate(self.play_counts) if n == 0]

    def answer(self, method: str, url: str, body: bytes | None) -> tuple[int, Interaction]:
        """The index and interaction that answer this request (marked played), or ReplayMismatch."""
        sent = parse_body(body)
        nearest: tuple[int, str] | None = None
        near_findings: list[RequestFinding] = []
        targets: dict[str | None, _Target] = {}  # the address as each profile reads it (one, as a rule)
        for i, it in enumerate(self.cassette.interactions):
            if self.play_counts[i]:
                continue
            profile = self._profiles[i]
            name = None if profile is None else profile.name
            if name not in targets:
                targets[name] = _Target.of(method, url, profile)
            target = targets[name]
            differs = target.differences(self._targets[i])
            by_address = False
            if differs and self.restream:  # the same request at the address that streams its answer
                plain = target.unstreamed(profile)
                by_address = plain is not None and not plain.differences(self._targets[i])
            if differs and not by_address:
                if nearest is None:
                    nearest = (i, "differs in " + ", ".join(differs))
                continue
            findings = body_findings(profile, self._bodies[i], sent)
            if by_address and not failing(findings):
                self._streamed[i] = sent
            if failing(findings) and self.restream and not by_address:
                streamed = delivered(profile, self._bodies[i], sent)
                if streamed is not None:
                    findings = streamed
                    self._streamed[i] = sent
            if failing(findings):
                if nearest is None or nearest[1].startswith("differs in"):
                    nearest = (i, explain(findings))
                    near_findings = findings
                continue
            self.findings += findings
            self.play_counts[i] += 1
            return i, it
        mismatch = ReplayMismatch(self._explain(method, url, nearest), near_findings, len(self.log) + 1)
        self.mismatches.append(mismatch)
        raise mismatch

    def raise_mismatch(self) -> None:
        """Raise the first request no interaction matched, if any: called after a runtime's call, it
        gives the mismatch verdict however the library wrapped, replaced or swallowed the exception."""
        if self.mismatches:
            raise self.mismatches[0]

    def _explain(self, method: str, url: str, nearest: tuple[int, str] | None) -> str:
        head = f"no unplayed interaction of {self.cassette.path} matches {method} {url}"
        if nearest is None:
            played = len(self.play_counts) - len(self.unplayed())
            return f"{head} (all {played} recorded interactions were already played)"
        i, why = nearest
        rec = self.cassette.interactions[i].request
        return f"{head}; nearest is interaction {i} ({rec.method} {rec.uri}): {why}"

    def _response(self, request: httpx.Request, content: bytes) -> httpx.Response:
        index, it = self.answer(request.method, str(request.url), content)
        at = float(self._clock.now()) if self._clock is not None else 0.0
        headers = {k.lower(): v for k, v in request.headers.items()}
        self.log.append(LoggedRequest(index, request.method, str(request.url), headers, content or None, at))
        failure = before_answer(self.faults[index], request)
        if failure is not None:  # reset or timed out before any byte of the answer
            raise failure
        answer_headers = [
            (k, v) for k, vals in it.response.headers.items() if k.lower() not in _HOP_HEADERS for v in vals
        ]
        body = it.response.body
        sent, profile = self._streamed.get(index), self._profiles[index]
        if sent is not None and profile is not None:
            answer_headers, body = restreamed(profile, it.response.status, answer_headers, body, sent)
        extensions = {"reason_phrase": it.response.reason.encode("ascii", "replace")}
        if self.faults[index] == "drop":  # the bytes that arrived, then the peer closes mid-body
            return httpx.Response(
                it.response.status,
                headers=answer_headers,
                stream=DroppingStream([body] if body else [], request),
                request=request,
                extensions=extensions,
            )
        return httpx.Response(
            it.response.status, headers=answer_headers, content=body, request=request, extensions=extensions
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self._response(request, request.read())

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return self._response(request, await request.aread())


class ReplaySession:
    """One cassette, a client over its transport, and the play counts: for checks that send requests
    themselves (the runtime under test only decodes)."""

    def __init__(self, cassette: Path, *, restream: bool = False) -> None:
        self.path = cassette
        # typed errors name the file and field; `restream`: a request asking for the recorded answer
        # as a stream gets it streamed (`replay.delivery`)
        self.transport = CassetteTransport.from_path(cassette, restream=restream)
        self._client = httpx.Client(transport=self.transport)

    def __enter__(self) -> ReplaySession:
        return self

    def __exit__(self, *exc: object) -> None:
        self._client.close()

    def send(self, method: str, url: str, body: Any, headers: dict[str, str] | None = None) -> ReplayedResponse:
        content = None if body is None else orjson.dumps(body)
        request_headers = {"content-type": "application/json", **(headers or {})}
        request = self._client.build_request(method, url, content=content, headers=request_headers)
        response = self._client.send(request, stream=True)
        try:
            body, dropped = read_until_dropped(response)
        finally:
            response.close()
        return ReplayedResponse(response.status_code, dict(response.headers.items()), body, dropped)

    def unplayed(self) -> list[int]:
        return self.transport.unplayed()


def make_vcr(record_mode: str = "none") -> Any:
    """Stock vcrpy configured as replay is (the same matchers): the reference our transport agrees with."""
    import vcr

    recorder = vcr.VCR(record_mode=record_mode, match_on=MATCH_ON, decode_compressed_response=True)
    recorder.register_matcher("json_body", json_body)
    return recorder
