"""Rebuild the request side of cassettes from the runtime's encoder.

The request a scenario sends is built by the runtime from the scenario's input, so a cassette's
recorded request must be exactly that. When the encoder changes on purpose, this shows which
cassette requests change and, with `write=True`, rewrites them (the responses stay as they are).
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

import orjson

from conformance.capabilities import get_profile
from conformance.compare import diff, render_diff
from conformance.model.parse import parse_conversation
from conformance.replay.cassette import load_cassette, save_cassette
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import load_layered

SYNCED_CHECKS = frozenset({"decode", "retry"})


def sync_requests(
    root: Path,
    *,
    providers: list[str],
    only: list[str] | None,
    write: bool,
    out: TextIO,
    layers: tuple[Path, ...] = (),
) -> int:
    """Cassette requests that differ from the encoder's (shown on `out`, rewritten with `write`).

    With `layers` (bottom first, `root` on top), every layer's scenarios are read, and only the
    cassettes inside `root` are synced: a lower layer's belong to it (the bundled ones to the package)."""
    changed = 0
    top = root.resolve()
    for scenario in load_layered(layers or (root,), only=only):
        if scenario.check not in SYNCED_CHECKS or {"compaction", "history_trimming"} & set(
            scenario.spec.input.get("runtime", {})
        ):
            continue  # the first request is trimmed or a summarisation: the scenario's own
        for provider in providers:
            entry = scenario.entry(provider)
            if entry is not None and entry.unsupported:
                continue
            path = scenario.cassette_path(provider, root)
            if not path.is_file() or (layers and not path.resolve().is_relative_to(top)):
                continue
            profile = get_profile(provider)
            conv = parse_conversation(scenario.conversation(provider), where=f"{scenario.path}: input")
            wire = ReferenceRuntime().wire_request(conv, profile)
            body = orjson.dumps(wire.body)
            cassette = load_cassette(path)
            dirty = False
            for i, it in enumerate(cassette.interactions):
                if i > 0 and it.request.body is not None:
                    continue  # later requests of a multi-step cassette are the scenario's own
                old = it.request.json()
                if old == wire.body and it.request.uri == wire.url(profile):
                    continue
                dirty = True
                rel = path.relative_to(root) if path.is_relative_to(root) else path
                out.write(f"{rel} interaction {i}:\n")
                if old is None:
                    out.write("  (no request body yet)\n")
                else:
                    out.write("  " + render_diff(diff(old, wire.body)).replace("\n", "\n  ") + "\n")
                it.request.body = body
                it.request.uri = wire.url(profile)
                it.request.method = wire.method
                it.request.headers = {"content-type": ["application/json"]}
            if dirty:
                changed += 1
                if write:
                    save_cassette(cassette)
    return changed
