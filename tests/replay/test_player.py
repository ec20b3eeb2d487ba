"""The cassette transport answers as stock vcrpy does, in order, and explains a mismatch."""

from __future__ import annotations

import ssl
from pathlib import Path

import httpx
import pytest

from conformance.replay.cassette import Cassette, Interaction, RecordedRequest, RecordedResponse, load_cassette
from conformance.replay.faults import fault_kinds, read_until_dropped
from conformance.replay.player import CassetteTransport, ReplayMismatch, make_vcr

ROOT = Path(__file__).resolve().parents[2]
PROVIDER_DIRS = sorted(p for p in (ROOT / "cassettes").iterdir() if p.is_dir())


def _send_all(client: httpx.Client, cassette: Cassette) -> list[tuple[int, bytes]]:
    """(status, the bytes that arrived) per interaction. Stock vcrpy ends every answer cleanly: a
    body whose connection drops (`meta.fault: drop`) is compared up to the drop, and an answer that
    never comes (`reset`, `timeout`) as (0, b"") — the request is still sent, to keep the order."""
    out = []
    endings = fault_kinds(cassette.meta, len(cassette.interactions), str(cassette.path))
    for it, ending in zip(cassette.interactions, endings, strict=True):
        req = it.request
        headers = {k: v[-1] for k, v in req.headers.items() if k.lower() not in ("content-length", "host")}
        try:
            with client.stream(req.method, req.uri, content=req.body, headers=headers) as response:
                body, _ = read_until_dropped(response)
        except (httpx.ReadError, httpx.ReadTimeout):
            out.append((0, b""))
            continue
        out.append((0, b"") if ending in ("reset", "timeout") else (response.status_code, body))
    return out


@pytest.mark.parametrize("directory", PROVIDER_DIRS, ids=lambda p: p.name)
def test_every_bundled_cassette_replays_as_stock_vcrpy_replays_it(directory: Path) -> None:
    paths = sorted(directory.glob("*.yaml"))
    assert paths
    tls = ssl.create_default_context()  # one for all the clients: loading the CA store costs ~30 ms
    for path in paths:
        cassette = load_cassette(path)
        transport = CassetteTransport(cassette)
        with httpx.Client(transport=transport) as client:
            ours = _send_all(client, cassette)
        assert transport.unplayed() == [], path
        with make_vcr().use_cassette(str(path), allow_playback_repeats=False), httpx.Client(verify=tls) as client:
            theirs = _send_all(client, cassette)
        assert ours == theirs, path


def _cassette(*bodies: bytes) -> Cassette:
    return Cassette(
        path=Path("c.yaml"),
        interactions=[
            Interaction(
                RecordedRequest("POST", "https://api.example.com/v1/x?b=2&a=1", b'{"n": 1}'),
                RecordedResponse(200 + i, body),
            )
            for i, body in enumerate(bodies)
        ],
    )


def test_repeated_requests_get_the_recorded_answers_in_order() -> None:
    transport = CassetteTransport(_cassette(b"first", b"second"))
    with httpx.Client(transport=transport) as client:
        url = "https://api.example.com:443/v1/x?a=1&b=2"  # default port and query order do not matter
        answers = [client.post(url, content=b'{ "n":1 }') for _ in range(2)]
        assert [(r.status_code, r.text) for r in answers] == [(200, "first"), (201, "second")]
        with pytest.raises(ReplayMismatch, match="all 2 recorded interactions were already played"):
            client.post(url, content=b'{"n": 1}')


def test_a_mismatch_names_the_nearest_interaction_and_the_difference() -> None:
    transport = CassetteTransport(_cassette(b"only"))
    with httpx.Client(transport=transport) as client:
        with pytest.raises(ReplayMismatch, match=r"nearest is interaction 0 .*body differs.*n"):
            client.post("https://api.example.com/v1/x?a=1&b=2", content=b'{"n": 2}')
        with pytest.raises(ReplayMismatch, match="differs in path"):
            client.post("https://api.example.com/v1/y?a=1&b=2", content=b'{"n": 1}')
    assert transport.unplayed() == [0]


async def test_the_transport_serves_async_clients() -> None:
    transport = CassetteTransport(_cassette(b"async"))
    async with httpx.AsyncClient(transport=transport) as client:
        response = await client.post("https://api.example.com/v1/x?a=1&b=2", content=b'{"n": 1}')
    assert response.text == "async"
    assert transport.unplayed() == []


def test_a_request_to_another_providers_host_is_read_as_that_provider_reads_it() -> None:
    """A turn that fell back to Anthropic from the Gemini column: the Anthropic request is read by
    Anthropic's request table (an explicit `stream: false` is Anthropic's default), not Gemini's."""
    import json as _json
    from pathlib import Path as _Path

    from conformance.replay.cassette import load_cassette as _load
    from conformance.replay.player import CassetteTransport as _Transport

    root = _Path(__file__).resolve().parents[2]
    transport = _Transport(_load(root / "cassettes/gemini/retry_provider_fallback.yaml"))
    recorded = _json.loads(transport.cassette.interactions[2].request.body or b"{}")
    sent = _json.dumps({**recorded, "stream": False}).encode()
    index, _ = transport.answer("POST", "https://api.anthropic.com/v1/messages", sent)
    assert index == 2
