"""Helpers shared by the checks: chunking a body, and the expected and actual outcomes in contract form."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from conformance.exceptions import ScenarioError
from conformance.model import Outcome
from conformance.scenarios import Scenario


def split(body: bytes, size: int | None) -> list[bytes]:
    """`body` in chunks of `size` bytes (whole when `size` is None)."""
    if not size or not body:
        return [body]
    return [body[i : i + size] for i in range(0, len(body), size)]


def canonical_outcome(data: Any) -> dict[str, Any]:
    """The contract JSON of an outcome with defaults filled, so omitted defaults compare equal."""
    return Outcome.model_validate(data).to_json()


def expected_outcome(scenario: Scenario, provider: str) -> dict[str, Any]:
    """The scenario's expected outcome for `provider`; a malformed one is a `ScenarioError` naming the field."""
    data = scenario.expected_for(provider)
    try:
        return canonical_outcome(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "expected"
        raise ScenarioError(f"expected.{where}: {first['msg']}", where=str(scenario.path)) from None
