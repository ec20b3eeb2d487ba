"""A loopback HTTP server that answers like each provider, from cassettes.

Requests go to `http://127.0.0.1:PORT/<provider><base path>/…` (the printed base URLs); the
provider's recorded interaction whose method, path and JSON body match is played back, streamed
in chunks (with an optional delay), and faults can be injected per request with the
`x-conformance-fault` header or for the whole server. A request that matches nothing is a 404
whose body names the nearest recorded request. Multi-interaction cassettes play in order and
start over once every interaction was played. Binds to loopback only.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from conformance.capabilities import get_profile, provider_names
from conformance.emulator.faults import Fault
from conformance.replay.cassette import Interaction, load_cassette

FAULT_HEADER = "x-conformance-fault"


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
                for i, it in enumerate(load_cassette(path).interactions):
                    split = urlsplit(it.request.uri)
                    route = split.path + (f"?{split.query}" if split.query else "")
                    catalog.by_provider.setdefault(sub.name, []).append(
                        Recorded(path, i, route, _json(it.request.body), it)
                    )
        return catalog

    def match(self, provider: str, route: str, body: Any) -> Recorded | str:
        candidates = [r for r in self.by_provider.get(provider, []) if r.path == route and r.body == body]
        if not candidates:
            same_path = [r for r in self.by_provider.get(provider, []) if r.path == route]
            nearest = same_path[0].cassette.name if same_path else "none on this path"
            return f"no recorded {provider} request matches {route} with this body (nearest: {nearest})"
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


def make_handler(catalog: Catalog, settings: Settings) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet; nothing of the request is logged
            return

        def _send(self, status: int, headers: dict[str, str], chunks: list[bytes]) -> None:
            self.send_response(status)
            for key, value in headers.items():
                if key.lower() not in ("content-length", "transfer-encoding", "connection"):
                    self.send_header(key, value)
            self.send_header("content-length", str(sum(len(c) for c in chunks)))
            self.end_headers()
            for chunk in chunks:
                self.wfile.write(chunk)
                self.wfile.flush()
                if settings.delay_s:
                    time.sleep(settings.delay_s)

        def _fault(self) -> Fault | None:
            spec = self.headers.get(FAULT_HEADER)
            if spec:
                return Fault.parse(spec)
            for fault in settings.faults:
                if fault.times is None or fault.times > 0:
                    if fault.times is not None:
                        fault.times -= 1
                    return fault
            return None

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            provider, _, rest = self.path.lstrip("/").partition("/")
            if provider not in catalog.by_provider:
                self._send(
                    404,
                    {"content-type": "application/json"},
                    [json.dumps({"error": f"no cassettes for provider {provider!r}"}).encode()],
                )
                return
            route = "/" + rest
            route_path, _, query = route.partition("?")
            query = "&".join(q for q in query.split("&") if q and not q.startswith("key="))
            route = route_path + (f"?{query}" if query else "")
            dialect = get_profile(provider).dialect
            fault = self._fault()
            if fault is not None and (error := fault.error_response(dialect)) is not None:
                self._send(error[0], error[1], [error[2]])
                return
            found = catalog.match(provider, route, _json(body))
            if isinstance(found, str):
                self._send(404, {"content-type": "application/json"}, [json.dumps({"error": found}).encode()])
                return
            response = found.interaction.response
            payload = response.body if fault is None else fault.shape_stream(response.body, dialect)
            chunks = (
                fault.chunks(payload, settings.chunk_size)
                if fault is not None
                else Fault("none").chunks(payload, settings.chunk_size)
            )
            self._send(response.status, response.flat_headers(), chunks)

    return Handler


def base_urls(host: str, port: int, providers: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name in providers:
        path = urlsplit(get_profile(name).base_url).path.rstrip("/")
        out[name] = f"http://{host}:{port}/{name}{path}"
    return out


def serve(
    directory: Path, *, host: str = "127.0.0.1", port: int = 0, settings: Settings | None = None
) -> ThreadingHTTPServer:
    """A server bound to loopback (not started: call `serve_forever`, or `start_in_thread`)."""
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError("the emulator binds to loopback only")
    catalog = Catalog.load(directory)
    server = ThreadingHTTPServer((host, port), make_handler(catalog, settings or Settings()))
    server.catalog = catalog  # type: ignore[attr-defined]
    return server


def start_in_thread(server: ThreadingHTTPServer) -> threading.Thread:
    thread = threading.Thread(target=server.serve_forever, name="conformance-emulator", daemon=True)
    thread.start()
    return thread
