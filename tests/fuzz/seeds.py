"""Seed inputs for mutation: every response recorded in the bundled cassettes (all dialects,
streaming and not, successes and errors), read once."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from conformance.capabilities import get_profile, provider_names
from conformance.replay.cassette import load_cassette

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Seed:
    provider: str
    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes
    stream: bool
    path: Path


@cache
def seeds() -> tuple[Seed, ...]:
    out: list[Seed] = []
    for provider in provider_names():
        folder = ROOT / "cassettes" / provider
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.yaml")):
            for it in load_cassette(path).interactions:
                out.append(
                    Seed(
                        provider,
                        it.response.status,
                        tuple(it.response.flat_headers().items()),
                        it.response.body,
                        it.request.stream_requested(),
                        path,
                    )
                )
    return tuple(out)


@cache
def dialects() -> dict[str, list[str]]:
    """Providers by dialect (every provider is fuzzed; the dialect decides the decoder)."""
    out: dict[str, list[str]] = {}
    for name in provider_names():
        out.setdefault(get_profile(name).dialect, []).append(name)
    return out
