"""The adapter kit: what an adapter around a real library needs and should not write again.

- `sdk_sleeps_on(clock, *modules)` — for the duration of a block, an SDK's own retry loop
  (`time.sleep` / `anyio.sleep` in its `_base_client`) waits on the harness clock, with the
  duration the SDK computed;
- the decode pattern, one recorded response served to any HTTP stack with its body in the chunks
  the row hands over (one read of the wire per chunk, so the library's own stream decoder sees the
  boundaries; a cut connection raises the stack's own protocol error):
  `httpx_transport(status, headers, chunks)` for `httpx` clients (sync and async),
  `mock_transport(status, headers, chunks)` for `httpx2` clients (sync and async),
  `serve_response(status, headers, chunks)` a loopback URL for any other client (aiohttp,
  requests, urllib);
- `Httpx2Transport(transport)` — an `httpx2` transport (for SDKs built on `httpx2`) that forwards
  to the harness's `httpx` transport. It and `mock_transport(status, headers, chunks)` (one
  recorded response for every request, the decode pattern) need the `httpx2` package and are
  imported on first use. Both carry faults as the SDK's transport raises them: a body whose
  connection dropped yields what arrived, then raises `httpx2.RemoteProtocolError`;
- `recorded_response(status, headers, chunks, request)` — the same recorded answer as an `httpx`
  response, for an `httpx.MockTransport` handler (a dropped body raises `httpx.RemoteProtocolError`
  after its chunks);
- `ReplayMismatch` and `reraise_replay_mismatch(exc, transport)` — the harness's "request not in
  cassette" signal, re-raised when a library wrapped it (cause chain) or replaced it with an
  exception of its own (the transport keeps every unmatched request): that verdict is the
  harness's to give, never an outcome of the runtime. The harness reads the transport's marker
  after every call as well;
- `failed(error, partial)` — the outcome of a response that failed after `partial` arrived;
- `conversation_parts(conversation)`, `text_of(content)`, `arguments_json(block)` — reading a
  CONVERSATION.json as plain call arguments;
- `Reproduction(module, decode=…, encode=…)` — what a runtime offers `conformance repro`: its
  library call as source a standalone script runs with the library alone;
- `DecodeOnly(runtime)` — the decode-only pattern: a view of a runtime offering `decode` alone, so
  its reading of responses is judged with the recorded request standing in for its own.

Nothing here decides what a library does: the kit only moves bytes, time and signals between the
library and the harness. See docs/other-runtimes.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from conformance.adapters._body import recorded_response
from conformance.adapters._conversation import arguments_json, conversation_parts, failed, text_of
from conformance.adapters._decode_only import DecodeOnly
from conformance.adapters._replay import ReplayMismatch, reraise_replay_mismatch
from conformance.adapters._repro import Reproduction
from conformance.adapters._serve import ChunkStream, Served, httpx_transport, serve_response
from conformance.adapters._sleep import sdk_sleeps_on

if TYPE_CHECKING:
    from conformance.adapters._httpx2 import Httpx2Transport, mock_transport

_LAZY = {"Httpx2Transport", "mock_transport"}


def __getattr__(name: str) -> Any:
    """`Httpx2Transport` and `mock_transport` import `httpx2` only when an adapter asks for them."""
    if name in _LAZY:
        from conformance.adapters import _httpx2

        return getattr(_httpx2, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ChunkStream",
    "DecodeOnly",
    "Httpx2Transport",
    "ReplayMismatch",
    "Reproduction",
    "Served",
    "arguments_json",
    "conversation_parts",
    "failed",
    "httpx_transport",
    "mock_transport",
    "recorded_response",
    "reraise_replay_mismatch",
    "sdk_sleeps_on",
    "serve_response",
    "text_of",
]
