"""A loopback HTTP server that answers like each provider, from cassettes.

Requests go to `http://127.0.0.1:PORT/<provider><base path>/…` (the printed base URLs), or, scoped
to one scenario, to `http://127.0.0.1:PORT/s/<scenario id>/<provider><base path>/…`
(`scenario_base_url`): then only that scenario's cassette answers, so one shared emulator serves
scenarios whose cassettes hold the same request (`error_auth`, `error_server`, the retries) right
in any order and in parallel. The provider's recorded interaction whose method, path and JSON body
match is played back, streamed
in chunks (with an optional delay) — to a request that asks for a stream where the recording did
not, and differs from it in delivery keys alone, the same answer streamed (`replay.delivery`) — and
faults can be injected per request with the
`x-conformance-fault` header or for the whole server. A request that matches nothing is a 404
whose body names the nearest recorded request. Serving is interaction by interaction: the first
matching interaction not yet served answers (a retry of the same request gets the next recorded
answer); once all were served they start over. Binds to loopback only.

The server is asynchronous (aiohttp on one event loop): a slow stream or a delay never holds a
thread, and hundreds of concurrent connections are served without resets. `--request-log FILE`
appends one JSON line per request (see `RequestLog`).
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from conformance.capabilities import ProviderProfile, get_profile, provider_names
from conformance.codecs.request_form import failing, request_table
from conformance.emulator.faults import Fault
from conformance.exceptions import InputError
from conformance.jsonvalue import printable
from conformance.replay.cassette import Interaction, load_cassette
from conformance.replay.delivery import delivered, restreamed
from conformance.replay.faults import FaultKind, fault_kinds
from conformance.replay.matchers import body_findings
from conformance.secrets import fingerprint_headers, fingerprint_query

FAULT_HEADER = "x-conformance-fault"

TIMEOUT_HOLD_S = 600.0
"""How long a `timeout` answer holds the connection open, at most, waiting for the client to give up."""


class _MalformedRequests(logging.Filter):
    """aiohttp logs a request it cannot parse (a bad `Content-Length`, an oversized header) at
    ERROR with its traceback, after answering it 400: made one WARNING line naming what was wrong."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, HttpProcessingError):
            what = " ".join(str(exc.message or type(exc).__name__).split())
            record.msg, record.args = "emulator: %s for a malformed request: %s", (exc.code, printable(what[:200]))
            record.exc_info, record.exc_text, record.stack_info = None, None, None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


_FILTER = _MalformedRequests()


def _json(body: bytes | None) -> Any:
    if not body:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return body


@dataclass
class Recorded:
    cassette: Path
    index: int
    path: str
    body: Any
    interaction: Interaction
    fault: FaultKind = "clean_end"
    """How the answer ends on the connection (the cassette's `meta.fault`, `replay.faults`)."""


@dataclass
class Catalog:
    """Recorded interactions by provider, with per-cassette play positions."""

    by_provider: dict[str, list[Recorded]] = field(default_factory=dict)
    played: dict[tuple[Path, int], int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def load(cls, directory: Path) -> Catalog:
        catalog = cls()
        known = set(provider_names())
        for sub in sorted(p for p in directory.iterdir() if p.is_dir() and p.name in known):
            for path in sorted(sub.glob("*.yaml")):
                cassette = load_cassette(path)
                endings = fault_kinds(cassette.meta, len(cassette.interactions), str(path))
                for i, it in enumerate(cassette.interactions):
                    split = urlsplit(it.request.uri)
                    served = request_table(get_profile(sub.name).dialect).canonical_path(split.path)
                    route = served + (f"?{split.query}" if split.query else "")
                    catalog.by_provider.setdefault(sub.name, []).append(
                        Recorded(path, i, route, _json(it.request.body), it, endings[i])
                    )
        return catalog

    def match(self, provider: str, route: str, body: Any, scenario: str | None = None) -> Recorded | str:
        """The first matching interaction not yet served (all served: they start over), or why none.

        Bodies match as the provider reads them (`replay.matchers.body_findings`: no `fail` finding
        left), paths up to the API-version aliases the provider serves alike."""
        profile = get_profile(provider)
        route = request_table(profile.dialect).canonical_path(route)
        on_route = [
            r
            for r in self.by_provider.get(provider, [])
            if (scenario is None or r.cassette.stem == scenario) and r.path == route
        ]
        plain = stream_route(profile, route)
        if not on_route and plain is not None:  # the address that streams a recorded answer (Gemini)
            return self.match(provider, plain, body, scenario)
        candidates = [r for r in on_route if r.body == body or not failing(body_findings(profile, r.body, body))]
        if not candidates:  # the same request asking for a stream the recording did not (`replay.delivery`)
            candidates = [r for r in on_route if delivered(profile, r.body, body) is not None]
        if not candidates:
            same_path = [r for r in self.by_provider.get(provider, []) if r.path == route]
            nearest = same_path[0].cassette.name if same_path else "none on this path"
            scope = f" in scenario {scenario}'s cassette" if scenario is not None else ""
            return f"no recorded {provider} request matches {route}{scope} with this body (nearest: {nearest})"
        with self.lock:
            for rec in candidates:
                key = (rec.cassette, rec.index)
                if self.played.get(key, 0) == 0:
                    self.played[key] = 1
                    return rec
            for rec in candidates:  # every one was played: start over
                self.played[(rec.cassette, rec.index)] = 0
            first = candidates[0]
            self.played[(first.cassette, first.index)] = 1
            return first


@dataclass
class Settings:
    chunk_size: int = 64
    delay_s: float = 0.0
    faults: list[Fault] = field(default_factory=list)
    request_log: Path | None = None
    keys: tuple[str, ...] = ()
    """Keys to find in any header or query value of the request log (fingerprinted there)."""


class RequestLog:
    """One JSON object per request received, one per line, flushed per line: `seq`, `t` (seconds
    since the server started, monotonic), `method`, `path`, `query`, `provider`, `cassette`,
    `interaction` (index of the interaction served, null when none matched), `headers`, `body`
    (parsed JSON or text) and `status`. A key in a header or the query becomes its fingerprint:
    the value of any key-carrying header or parameter (by name: `authorization`, `cookie`,
    `x-custom-key`, `token`, …), and a given key (`keys`) or a key of a declared shape anywhere else."""

    def __init__(self, path: Path, started: float, keys: tuple[str, ...] = ()) -> None:
        self._keys = keys
        try:
            self._handle: IO[str] = path.open("a", encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write the request log ({exc.strerror or exc})", where=str(path)) from None
        self._started = started
        self._seq = 0

    def write(self, request: web.Request, body: bytes, provider: str, found: Recorded | None, status: int) -> None:
        parsed = _json(body)
        entry = {
            "seq": self._seq,
            "t": round(time.monotonic() - self._started, 6),
            "method": request.method,
            "path": request.path,
            "query": fingerprint_query(request.query_string, self._keys),
            "provider": provider,
            "cassette": None if found is None else found.cassette.as_posix(),
            "interaction": None if found is None else found.index,
            "headers": fingerprint_headers(dict(request.headers), self._keys),
            "body": parsed.decode("utf-8", "replace") if isinstance(parsed, bytes) else parsed,
            "status": status,
        }
        self._seq += 1
        self._handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()


class Emulator:
    """The request handler: match, inject faults, stream the recorded response in chunks."""

    def __init__(self, catalog: Catalog, settings: Settings, log: RequestLog | None) -> None:
        self.catalog = catalog
        self.settings = settings
        self.log = log

    def _fault(self, request: web.Request) -> Fault | None:
        spec = request.headers.get(FAULT_HEADER)
        if spec:
            return Fault.parse(spec)
        for fault in self.settings.faults:
            if fault.times is None or fault.times > 0:
                if fault.times is not None:
                    fault.times -= 1
                return fault
        return None

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        scenario, provider, rest = split_path(request.path)
        found: Recorded | None = None
        ending: FaultKind = "clean_end"
        try:
            status, headers, chunks, found, ending = self._answer(request, provider, rest, body, scenario)
        except InputError as exc:  # a malformed fault header
            status, headers, chunks = 400, {"content-type": "application/json"}, [_error(str(exc))]
        if self.log is not None:
            self.log.write(request, body, provider, found, status)
        if ending in ("reset", "timeout"):  # no byte of the answer: reset now, or once the client gives up
            if ending == "timeout":
                await _held_open(request)
            _reset(request)
            raise web.HTTPException()  # nothing more is written: the connection is gone
        response = web.StreamResponse(status=status)
        for key, value in headers.items():
            if key.lower() not in ("content-length", "transfer-encoding", "connection"):
                response.headers[key] = value
        if ending == "drop":  # chunked, so that closing before the terminating chunk is a drop
            response.enable_chunked_encoding()
        else:
            response.content_length = sum(len(c) for c in chunks)
        await response.prepare(request)
        for chunk in chunks:
            await response.write(chunk)
            if self.settings.delay_s:
                await asyncio.sleep(self.settings.delay_s)
        if ending == "drop":  # the bytes are out; the connection closes with no terminating chunk
            if request.transport is not None:
                request.transport.close()
            return response
        await response.write_eof()
        return response

    def _answer(
        self, request: web.Request, provider: str, rest: str, body: bytes, scenario: str | None = None
    ) -> tuple[int, dict[str, str], list[bytes], Recorded | None, FaultKind]:
        """(status, headers, body chunks, the interaction served, how the answer ends on the connection)."""
        json_type = {"content-type": "application/json"}
        if provider not in self.catalog.by_provider:
            return 404, json_type, [_error(f"no cassettes for provider {provider!r}")], None, "clean_end"
        query = "&".join(q for q in request.query_string.split("&") if q and not q.startswith("key="))
        route = "/" + rest + (f"?{query}" if query else "")
        dialect = get_profile(provider).dialect
        fault = self._fault(request)
        if fault is not None and (error := fault.error_response(dialect)) is not None:
            return error[0], error[1], [error[2]], None, "clean_end"
        if fault is not None and fault.ending() in ("reset", "timeout"):  # no answer, whatever was asked
            return 0, {}, [], None, fault.ending() or "clean_end"
        found = self.catalog.match(provider, route, _json(body), scenario)
        if isinstance(found, str):
            return 404, json_type, [_error(found)], None, "clean_end"
        response = found.interaction.response
        headers, payload = list(response.flat_headers().items()), response.body
        sent = _json(body)
        streamed = stream_route(get_profile(provider), route) is not None
        if streamed or delivered(get_profile(provider), found.body, sent) is not None:  # asked for a stream
            headers, payload = restreamed(get_profile(provider), response.status, headers, payload, sent)
        payload = payload if fault is None else fault.shape_stream(payload, dialect)
        chunks = (fault or Fault("none")).chunks(payload, self.settings.chunk_size)
        ending = (fault.ending() if fault is not None else None) or found.fault
        return response.status, dict(headers), chunks, found, ending


async def _held_open(request: web.Request) -> None:
    """Wait, sending nothing, until the client closes the connection (its read timeout), at most
    `TIMEOUT_HOLD_S`."""
    waited = 0.0
    while waited < TIMEOUT_HOLD_S and request.transport is not None and not request.transport.is_closing():
        await asyncio.sleep(0.05)
        waited += 0.05


def _reset(request: web.Request) -> None:
    """Reset the connection (TCP RST: linger 0, then abort): the client's read fails with ECONNRESET."""
    transport = request.transport
    if transport is None:
        return
    sock = transport.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()


def stream_route(profile: ProviderProfile, route: str) -> str | None:
    """The route whose recorded answer a stream address asks for (`…:streamGenerateContent?alt=sse`
    for `…:generateContent`), or None when `route` is no stream address."""
    path, _, query = route.partition("?")
    pairs = tuple(parse_qsl(query, keep_blank_values=True))
    plain = request_table(profile.dialect).unstreamed_address(path, pairs)
    if plain is None:
        return None
    return plain[0] + (f"?{urlencode(plain[1])}" if plain[1] else "")


SCOPE = "s"
"""The first path segment of a scenario-scoped URL: `/s/<scenario id>/<provider>/…`."""


def split_path(path: str) -> tuple[str | None, str, str]:
    """(scenario or None, provider, the rest) of a request path, scoped or not."""
    head, _, rest = path.lstrip("/").partition("/")
    if head == SCOPE:
        scenario, _, rest = rest.partition("/")
        provider, _, rest = rest.partition("/")
        return scenario or None, provider, rest
    return None, head, rest


def scenario_base_url(host: str, port: int, scenario: str, provider: str) -> str:
    """The base URL that answers for `provider` from `scenario`'s cassette alone."""
    path = urlsplit(get_profile(provider).base_url).path.rstrip("/")
    return f"http://{host}:{port}/{SCOPE}/{scenario}/{provider}{path}"


def _error(message: str) -> bytes:
    return json.dumps({"error": message}).encode()


def base_urls(host: str, port: int, providers: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name in providers:
        path = urlsplit(get_profile(name).base_url).path.rstrip("/")
        out[name] = f"http://{host}:{port}/{name}{path}"
    return out


class EmulatorServer:
    """A bound server (call `serve_forever`, or `start_in_thread`; then `shutdown` and
    `server_close`). `server_address` is `(host, port)`; `catalog` what it serves."""

    def __init__(self, catalog: Catalog, settings: Settings, host: str, port: int) -> None:
        self.catalog = catalog
        self.loop = asyncio.new_event_loop()
        self._thread: threading.Thread | None = None
        self.log = RequestLog(settings.request_log, time.monotonic(), settings.keys) if settings.request_log else None
        logging.getLogger("aiohttp.server").addFilter(_FILTER)  # once: the same filter is added once
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", Emulator(catalog, settings, self.log).handle)
        self.runner = web.AppRunner(app, access_log=None, handle_signals=False)
        self.loop.run_until_complete(self.runner.setup())
        site = web.TCPSite(self.runner, host, port, backlog=4096, reuse_address=True)
        try:
            self.loop.run_until_complete(site.start())
        except OSError as exc:
            self.server_close()
            reason = "the port is in use" if exc.errno == errno.EADDRINUSE else exc.strerror or str(exc)
            raise InputError(f"cannot listen on {host}:{port}: {reason}", where="--port") from None
        sockets = self.runner.addresses
        self.server_address: tuple[str, int] = (host, int(sockets[0][1]))

    def serve_forever(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def shutdown(self) -> None:
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=10)

    def server_close(self) -> None:
        if self.loop.is_closed():
            return
        self.loop.run_until_complete(self.runner.cleanup())
        self.loop.close()
        if self.log is not None:
            self.log.close()


def serve(
    directory: Path, *, host: str = "127.0.0.1", port: int = 0, settings: Settings | None = None
) -> EmulatorServer:
    """A server bound to loopback, serving the cassettes under `directory` (not started)."""
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError("the emulator binds to loopback only")
    if not 0 <= port <= 65535:
        raise InputError(f"port {port} is out of range (0-65535)", where="--port")
    catalog = Catalog.load(directory)
    if not catalog.by_provider:
        known = ", ".join(provider_names())
        raise InputError(
            f"no cassettes to serve (expected <provider>/*.yaml for one of: {known})", where=str(directory)
        )
    return EmulatorServer(catalog, settings or Settings(), host, port)


def start_in_thread(server: EmulatorServer) -> threading.Thread:
    thread = threading.Thread(target=server.serve_forever, name="conformance-emulator", daemon=True)
    server._thread = thread
    thread.start()
    return thread
