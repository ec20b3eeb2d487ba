"""Replay a cassette through httpx with vcrpy in `none` mode: body-matched, never on the network.

A `ReplaySession` is opened per scenario × provider; every request the runtime makes is answered
from the cassette, a request that matches nothing fails with vcrpy's explanation, and
`unplayed()` tells which recorded interactions were never asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx
import orjson
import vcr
from vcr.errors import CannotOverwriteExistingCassetteException

from conformance.exceptions import CassetteError
from conformance.replay.cassette import load_cassette
from conformance.replay.matchers import json_body

MATCH_ON = ("method", "scheme", "host", "port", "path", "query", "json_body")


class ReplayMismatch(Exception):
    """The runtime sent a request the cassette does not hold (a verdict, not a crash)."""


@dataclass(frozen=True)
class ReplayedResponse:
    status: int
    headers: dict[str, str]
    body: bytes


def make_vcr(record_mode: str = "none") -> vcr.VCR:
    recorder = vcr.VCR(record_mode=record_mode, match_on=MATCH_ON, decode_compressed_response=True)
    recorder.register_matcher("json_body", json_body)
    return recorder


class ReplaySession:
    def __init__(self, cassette: Path) -> None:
        # Validate with our loader first: its errors name the file and field.
        load_cassette(cassette)
        self.path = cassette
        self._context: Any = None
        self._cassette: Any = None
        self._client: httpx.Client | None = None

    def __enter__(self) -> ReplaySession:
        self._context = make_vcr().use_cassette(str(self.path), allow_playback_repeats=False)
        self._cassette = self._context.__enter__()
        self._client = httpx.Client(timeout=10.0)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._client is not None:
            self._client.close()
        self._context.__exit__(exc_type, exc, tb)

    def send(self, method: str, url: str, body: Any, headers: dict[str, str] | None = None) -> ReplayedResponse:
        assert self._client is not None, "use ReplaySession as a context manager"
        content = None if body is None else orjson.dumps(body)
        request_headers = {"content-type": "application/json", **(headers or {})}
        try:
            response = self._client.request(method, url, content=content, headers=request_headers)
        except CannotOverwriteExistingCassetteException as exc:
            raise ReplayMismatch(str(exc)) from None
        data = response.read()
        return ReplayedResponse(response.status_code, dict(response.headers.items()), data)

    def unplayed(self) -> list[int]:
        """Indices of recorded interactions that no request played."""
        counts = self._cassette.play_counts
        return [i for i in range(len(self._cassette.data)) if counts[i] == 0]


def require_cassette(path: Path) -> None:
    if not path.is_file():
        raise CassetteError("no such cassette", where=str(path))
