"""The adapters' plumbing: the SDK's sleep rerouted to the harness clock and always restored; the
httpx2 view of an httpx transport passes requests and responses through unchanged."""

from __future__ import annotations

import time
import types

import httpx
import pytest

httpx2 = pytest.importorskip("httpx2")

from examples._sdk_common import Httpx2Transport, sdk_sleeps_on  # noqa: E402

from conformance.runtime.clock import FakeClock  # noqa: E402


def _sdk_module() -> types.ModuleType:
    module = types.ModuleType("fake_base_client")
    module.time = time  # type: ignore[attr-defined]
    return module


def _sleep_then_fail(clock: FakeClock, module: types.ModuleType) -> None:
    with sdk_sleeps_on(clock, module):
        module.time.sleep(2.5)
        assert module.time.time() > 0  # everything else is the real module
        raise RuntimeError("boom")


def test_the_sdk_sleeps_on_the_clock_and_the_module_is_restored_after_an_error() -> None:
    clock, module = FakeClock(), _sdk_module()
    with pytest.raises(RuntimeError, match="boom"):
        _sleep_then_fail(clock, module)
    assert clock.sleeps == [2.5]
    assert module.time is time


def test_httpx2_requests_reach_the_httpx_transport_and_back() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(429, headers={"retry-after": "3"}, content=b'{"error": {}}')

    with httpx2.Client(transport=Httpx2Transport(httpx.MockTransport(handler))) as client:
        response = client.post("https://api.example.test/v1/x", content=b'{"a": 1}', headers={"x-api-key": "k"})
    assert response.status_code == 429
    assert response.headers["retry-after"] == "3"
    assert response.content == b'{"error": {}}'
    assert seen[0].content == b'{"a": 1}'
    assert seen[0].headers["x-api-key"] == "k"
    assert str(seen[0].url) == "https://api.example.test/v1/x"
