"""Emulator load benchmark: requests/s, p50/p99 latency and errors at 1, 8, 64 and 256 concurrent
connections, on loopback only.

Starts `conformance serve` on 127.0.0.1 (a free port) in a subprocess, then for each concurrency
level opens that many keep-alive connections (an aiohttp client, one event loop) and sends the
recorded request of a bundled cassette (OpenAI `text_basic`, non-streaming; `--stream` for the
streamed `usage_stream`) until `--requests` answers or `--seconds` have passed, whichever comes
first. An error is any exception (reset, timeout) or a status other than the recorded one. Run:

    python benchmarks/emulator.py [--levels 1,8,64,256] [--requests 3000] [--seconds 20] [--stream]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import aiohttp

from conformance.replay.cassette import load_cassette

ROOT = Path(__file__).resolve().parents[1]


def _start_server() -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "conformance.cli", "serve", "--port", "0", "--cassettes", str(ROOT / "cassettes")],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    if match is None:
        proc.kill()
        raise SystemExit(f"the emulator did not start: {line!r}")
    return proc, int(match.group(1))


async def _level(url: str, body: bytes, status: int, concurrency: int, total: int, seconds: float) -> dict[str, float]:
    latencies: list[float] = []
    errors = 0
    sent = 0
    deadline = time.monotonic() + seconds
    connector = aiohttp.TCPConnector(limit=concurrency, force_close=False)
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:

        async def worker() -> None:
            nonlocal errors, sent
            while sent < total and time.monotonic() < deadline:
                sent += 1
                start = time.perf_counter()
                try:
                    async with session.post(url, data=body, headers={"content-type": "application/json"}) as resp:
                        await resp.read()
                        if resp.status != status:
                            errors += 1
                except (TimeoutError, aiohttp.ClientError):
                    errors += 1
                latencies.append(time.perf_counter() - start)

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - start
    latencies.sort()
    return {
        "requests": len(latencies),
        "rps": len(latencies) / elapsed,
        "p50_ms": statistics.median(latencies) * 1000,
        "p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000,
        "errors": errors,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--levels", default="1,8,64,256")
    parser.add_argument("--requests", type=int, default=3000, help="answers per level at most")
    parser.add_argument("--seconds", type=float, default=20.0, help="time per level at most")
    parser.add_argument("--stream", action="store_true", help="a streamed response (usage_stream)")
    args = parser.parse_args()
    name = "usage_stream" if args.stream else "text_basic"
    interaction = load_cassette(ROOT / "cassettes" / "openai" / f"{name}.yaml").interactions[0]
    proc, port = _start_server()
    try:
        url = f"http://127.0.0.1:{port}/openai/v1/chat/completions"
        print(f"emulator on 127.0.0.1:{port}; openai {name}; at most {args.requests} requests or {args.seconds:.0f} s")
        print(f"{'connections':>11} {'requests':>9} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}")
        for level in (int(x) for x in args.levels.split(",")):
            row = asyncio.run(
                _level(
                    url,
                    interaction.request.body or b"",
                    interaction.response.status,
                    level,
                    args.requests,
                    args.seconds,
                )
            )
            print(
                f"{level:>11} {row['requests']:>9.0f} {row['rps']:>8.0f} {row['p50_ms']:>8.2f} "
                f"{row['p99_ms']:>8.2f} {row['errors']:>7.0f}",
                flush=True,
            )
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
