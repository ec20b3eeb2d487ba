"""Request matching for replay: bodies compared as the provider reads them.

Both bodies are read under the dialect's table of equivalences (`conformance.codecs.request_form`):
key order, explicit defaults, alternative spellings the provider accepts do not matter. Two
requests match when no difference is left that the provider would reject or misread (`fail`
findings); what is left besides are notes. A body that is not JSON is compared as bytes; a
request off every dialect's endpoints is compared as plain JSON.

vcrpy matchers raise AssertionError with a message; vcrpy shows it next to the nearest recorded
request when nothing matches.
"""

from __future__ import annotations

from typing import Any

import orjson

from conformance.capabilities import ProviderProfile
from conformance.codecs.request_form import (
    RequestFinding,
    failing,
    profile_for_uri,
    render_findings,
    request_findings,
)


def parse_body(body: Any) -> Any:
    """A request body as JSON (None when empty, the bytes when not JSON)."""
    if body is None or body == b"" or body == "":
        return None
    raw = body.encode() if isinstance(body, str) else body
    try:
        return orjson.loads(raw)
    except (orjson.JSONDecodeError, TypeError):
        return raw


def body_findings(profile: ProviderProfile | None, recorded: Any, sent: Any) -> list[RequestFinding]:
    """What differs between the recorded body and the sent one, both parsed, as the provider reads them."""
    if recorded == sent:
        return []
    if profile is None or not isinstance(recorded, dict) or not isinstance(sent, dict):
        return [RequestFinding(path="", expected=recorded, actual=sent, verdict="fail", fact="the body differs")]
    return request_findings(profile, recorded, sent)


def explain(findings: list[RequestFinding]) -> str:
    return "request body differs from the recorded one:\n" + render_findings(failing(findings) or findings)


def json_body(r1: Any, r2: Any) -> None:
    """vcrpy matcher: the bodies match as the provider of r2's URL reads them (bytes when not JSON)."""
    a, b = parse_body(r1.body), parse_body(r2.body)
    if a == b:
        return
    uri = getattr(r2, "uri", None) or getattr(r1, "uri", None)
    profile = profile_for_uri(uri) if isinstance(uri, str) else None
    findings = body_findings(profile, b, a)
    if failing(findings):
        raise AssertionError(explain(findings))
