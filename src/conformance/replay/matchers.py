"""Request matching for replay: JSON bodies compared as JSON, so key order and spacing don't matter.

vcrpy matchers raise AssertionError with a message; vcrpy shows it next to the nearest recorded
request when nothing matches.
"""

from __future__ import annotations

from typing import Any

import orjson


def _json_or_bytes(body: Any) -> Any:
    if body is None or body == b"" or body == "":
        return None
    raw = body.encode() if isinstance(body, str) else body
    try:
        return orjson.loads(raw)
    except (orjson.JSONDecodeError, TypeError):
        return raw


def json_body(r1: Any, r2: Any) -> None:
    """vcrpy matcher: equal JSON bodies (or equal bytes when not JSON)."""
    a, b = _json_or_bytes(r1.body), _json_or_bytes(r2.body)
    if a == b:
        return
    from conformance.compare import diff, render_diff

    if isinstance(a, dict | list) and isinstance(b, dict | list):
        entries = diff(b, a)
        raise AssertionError("request body differs from the recorded one:\n" + render_diff(entries[:12]))
    raise AssertionError("request body differs from the recorded one")
