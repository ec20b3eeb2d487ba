"""Transcript recovery benchmark: loading time against the size of one damaged line.

Writes a transcript of a good record, one damaged line, and a good record, doubling the damaged
line from 1 MiB to 16 MiB, for several kinds of damage (random bytes, a run of ``{``, objects
opened and never closed, crash fragments glued together, ``{"`` pairs); loads each with
`load_transcript` and prints the seconds and the ratio to the previous size (linear: about 2).
Both good records must come back every time. Run:

    python benchmarks/transcript_recovery.py [--max-mib 16] [--kind random]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from conformance.runtime.transcripts import load_transcript

GOOD = b'{"role":"user","content":[{"type":"text","text":"ok"}]}'
FRAGMENT = b'{"role":"assistant","content":[{"type":"text","text":"cut'


def _random(n: int) -> bytes:
    rng = random.Random(n)
    return bytes(b for b in rng.randbytes(n) if b != 0x0A)


KINDS: dict[str, Callable[[int], bytes]] = {
    "random": _random,
    "braces": lambda n: b"{" * n,
    "unclosed": lambda n: b'{"a":' * (n // 5),
    "fragments": lambda n: FRAGMENT * (n // len(FRAGMENT)),
    "key-quotes": lambda n: b'{"' * (n // 2),
}


def run(kind: str, sizes: list[int]) -> None:
    previous = None
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "t.jsonl"
            path.write_bytes(GOOD + b"\n" + KINDS[kind](size) + b"\n" + GOOD + b"\n")
            start = time.perf_counter()
            loaded = load_transcript(path)
            seconds = time.perf_counter() - start
        assert len(loaded.messages) == 2, (kind, size, len(loaded.messages))
        ratio = f"x{seconds / previous:.2f}" if previous else "-"
        print(f"{kind:11} {size >> 20:3d} MiB  {seconds:7.3f} s  {ratio}", flush=True)
        previous = seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--max-mib", type=int, default=16)
    parser.add_argument("--kind", action="append", choices=sorted(KINDS))
    args = parser.parse_args()
    sizes = [1 << (20 + i) for i in range(args.max_mib.bit_length()) if 1 << i <= args.max_mib]
    for kind in args.kind or list(KINDS):
        run(kind, sizes)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"peak RSS {peak / 1024:.0f} MiB (pid {os.getpid()})")


if __name__ == "__main__":
    main()
