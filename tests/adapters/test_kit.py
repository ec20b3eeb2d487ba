"""The adapter kit (`conformance.adapters`): the SDK's sleep rerouted to the harness clock and always restored; the
httpx2 view of an httpx transport passes requests and responses through unchanged."""

from __future__ import annotations

import time
import types

import httpx
import pytest

httpx2 = pytest.importorskip("httpx2")

from conformance.adapters import Httpx2Transport, sdk_sleeps_on  # noqa: E402
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


class _Library:
    name = "lib 1.0"

    def encode(self, conversation: dict[str, object], provider: str) -> dict[str, object]:
        raise AssertionError("the decode-only view never encodes")

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, object]:
        return {"message": {"role": "assistant", "content": [{"type": "text", "text": b"".join(chunks).decode()}]}}


def test_decode_only_offers_decode_alone_under_its_own_name() -> None:
    from conformance.adapters import DecodeOnly
    from conformance.runtime.protocol import capabilities_of, declaration_of

    view = DecodeOnly(_Library())
    assert capabilities_of(view) == {"decode"}
    assert view.name == "lib 1.0 (decode only)"
    assert declaration_of(view).name == "lib 1.0 (decode only)"
    assert view.decode("openai", 200, {}, [b"hi"], False)["message"]["content"][0]["text"] == "hi"


def test_the_kit_imports_without_touching_httpx2_until_asked() -> None:
    import subprocess
    import sys

    code = "import sys, conformance.adapters; print('httpx2' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
