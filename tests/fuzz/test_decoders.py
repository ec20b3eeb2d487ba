"""Every decoder (all dialects, every provider profile, streaming and not, any status, any
chunking) on damaged responses: a normalized outcome or a typed error, in linear time."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.capabilities import get_profile
from conformance.runtime.reference import ReferenceRuntime
from tests.fuzz.contract import Tally, fuzz
from tests.fuzz.mutate import (
    VALUES,
    Mutator,
    batch_size,
    chunked,
    deep,
    dumps,
    mutated_bytes,
    mutated_json,
    split_events,
)
from tests.fuzz.seeds import Seed, dialects, seeds

RUNTIME = ReferenceRuntime()
STATUSES = st.one_of(
    st.sampled_from([200, 201, 204, 400, 401, 403, 404, 408, 413, 422, 429, 500, 502, 503, 504, 529]),
    st.integers(100, 599),
    st.integers(-1, 10_000),
)


def _seeds(dialect: str, stream: bool) -> list[Seed]:
    return [s for s in seeds() if get_profile(s.provider).dialect == dialect and s.stream == stream]


@st.composite
def _event(draw: st.DrawFn, event: bytes) -> bytes:
    head, sep, payload = event.rpartition(b"data:") if b"data:" in event else (b"", b"", event)
    try:
        value = json.loads(payload)
    except ValueError:
        return draw(mutated_bytes(event))
    return head + sep + b" " + dumps(draw(mutated_json(value)))


@st.composite
def _body(draw: st.DrawFn, seed: Seed) -> bytes:
    kind = draw(st.sampled_from(["json", "events", "bytes", "random", "deep"]))
    if kind == "random":
        return draw(st.binary(max_size=512))
    if kind == "deep":
        return dumps(draw(deep()))
    if kind == "bytes":
        return draw(mutated_bytes(seed.body))
    events = split_events(seed.body)
    if kind == "json" or len(events) < 2:
        try:
            return dumps(draw(mutated_json(json.loads(seed.body))))
        except ValueError:
            kind = "events"
    if not events:
        return draw(mutated_bytes(seed.body))
    out = list(events)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(out) - 1))
        op = draw(st.sampled_from(["mutate", "mutate", "drop", "duplicate", "value"]))
        if op == "mutate":
            out[i] = draw(_event(out[i]))
        elif op == "drop":
            del out[i]
            if not out:
                break
        elif op == "duplicate":
            out.insert(i, out[i])
        else:
            out[i] = b"data: " + dumps(draw(VALUES))
    sep = b"\n\n" if b"\n\n" in seed.body else b"\n"
    return sep.join(out) + sep


@st.composite
def responses(draw: st.DrawFn, dialect: str, stream: bool) -> tuple[str, int, dict[str, str], list[bytes], bool]:
    seed = draw(st.sampled_from(_seeds(dialect, stream)))
    provider = draw(st.sampled_from(dialects()[dialect]))
    status = draw(st.one_of(st.just(seed.status), STATUSES))
    headers: dict[str, Any] = dict(seed.headers)
    if draw(st.booleans()):
        name = draw(st.sampled_from(["content-type", "retry-after", "retry-after-ms", "x-ratelimit-reset-requests"]))
        headers[name] = draw(
            st.text(max_size=30) | st.sampled_from(["application/json", "text/event-stream", "1e999", "-3"])
        )
    body = draw(_body(seed))
    return provider, status, headers, draw(chunked(body)), draw(st.one_of(st.just(stream), st.booleans()))


CASES = [(d, s) for d in sorted(dialects()) for s in (False, True) if _seeds(d, s)]


@pytest.mark.parametrize(("dialect", "stream"), CASES, ids=[f"{d}-{'stream' if s else 'json'}" for d, s in CASES])
def test_decoder(dialect: str, stream: bool) -> None:
    tally = Tally(f"decode {dialect} {'stream' if stream else 'non-stream'}")

    @fuzz(ci=25, long=600)
    @given(responses(dialect, stream), st.integers(0, 2**32))
    def run(case: tuple[str, int, dict[str, str], list[bytes], bool], seed: int) -> None:
        provider, status, headers, chunks, hint = case
        tally.call(
            sum(len(c) for c in chunks), lambda: json.dumps(RUNTIME.decode(provider, status, headers, chunks, hint))
        )
        mutator = Mutator(random.Random(seed))
        body = b"".join(chunks)
        for _ in range(batch_size()):
            damaged = mutator.body(body)
            pieces = mutator.chunks(damaged)
            tally.call(len(damaged), lambda p=pieces: json.dumps(RUNTIME.decode(provider, status, headers, p, hint)))

    run()
    tally.report()
