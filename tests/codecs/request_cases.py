"""Shared assertions for the per-dialect request-reader tests."""

from __future__ import annotations

from typing import Any

from conformance.capabilities import get_profile
from conformance.codecs.request_form import failing, request_findings


def assert_same(provider: str, expected: dict[str, Any], actual: dict[str, Any]) -> None:
    found = request_findings(get_profile(provider), expected, actual)
    assert not failing(found), found


def assert_found(provider: str, expected: dict[str, Any], actual: dict[str, Any], path: str) -> None:
    found = failing(request_findings(get_profile(provider), expected, actual))
    assert [f.path for f in found] == [path], found
