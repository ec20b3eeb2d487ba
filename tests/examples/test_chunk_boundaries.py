"""A re-chunked stream row reaches each library's own stream decoder in its chunks, not buffered whole.

The row `stream_text_multibyte_3` delivers its recorded body in 3-byte chunks. Each adapter serves
them to its library (an httpx/httpx2 transport, or a loopback socket for litellm); a probe installed
INSIDE the library, at the entry of the stream decoder the adapter's code path really uses, counts the
separate pieces that decoder is handed during the row. The same adapter decoding the same recorded
answer handed over as one chunk is the control: there the probe sees one piece, so the count is the
transport's chunking arriving at the decoder, not an artefact of the probe."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conformance.replay.cassette import load_cassette
from conformance.scenarios import load_scenarios
from tests.examples import library_warnings as warn
from tests.examples.rows import rows

ROOT = Path(__file__).resolve().parents[2]
ROW = "stream_text_multibyte_3"
SIZE = 3  # the row's chunk_size

pytestmark = [warn.INSTANCE_ATTRIBUTE, warn.TYPEDDICT, warn.DEPRECATED_MODEL]


@dataclass
class Probe:
    """The pieces a library's decoder was handed, one entry per piece (its length)."""

    pieces: list[int] = field(default_factory=list)

    def counted(self, source: Any) -> Any:
        """`source` (the byte or text iterable the decoder reads) with each piece it yields counted."""
        if hasattr(source, "__aiter__"):

            async def agen(items: AsyncIterable[Any]) -> AsyncIterator[Any]:
                async for piece in items:
                    if piece:
                        self.pieces.append(len(piece))
                    yield piece

            return agen(source)

        def gen(items: Iterable[Any]) -> Iterator[Any]:
            for piece in items:
                if piece:
                    self.pieces.append(len(piece))
                yield piece

        return gen(source)

    def wrap(self, monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, arg: int) -> None:
        """Replace `owner.name` (a decoder entry taking the byte/text iterable as positional `arg`,
        counting `self` for a method) by the same function reading a counted iterable."""
        real: Callable[..., Any] = getattr(owner, name)
        if isinstance(owner, type):
            real = owner.__dict__[name]

        def probe(*args: Any, **kwargs: Any) -> Any:
            args = (*args[:arg], self.counted(args[arg]), *args[arg + 1 :])
            return real(*args, **kwargs)

        monkeypatch.setattr(owner, name, probe)


def _recorded(provider: str) -> tuple[int, dict[str, str], bytes]:
    """The row's recorded answer on `provider`: status, headers, body."""
    (scenario,) = [s for s in load_scenarios(ROOT / "scenarios") if s.id == ROW]
    response = load_cassette(scenario.cassette_path(provider, ROOT)).interactions[0].response
    return response.status, response.flat_headers(), response.body


def _chunks(provider: str) -> int:
    """How many chunks the row delivers on `provider`: its recorded body in 3-byte chunks."""
    return -(-len(_recorded(provider)[2]) // SIZE)


# ----- the probe points, one per library decoder (each wraps the function named) -----


def _openai_sdk(monkeypatch: pytest.MonkeyPatch, probe: Probe) -> None:
    """openai: `openai._streaming.SSEDecoder.iter_bytes` / `.aiter_bytes`, which `Stream.__stream__` /
    `AsyncStream.__stream__` call with `response.iter_bytes()` / `aiter_bytes()`."""
    from openai._streaming import SSEDecoder

    probe.wrap(monkeypatch, SSEDecoder, "iter_bytes", 1)
    probe.wrap(monkeypatch, SSEDecoder, "aiter_bytes", 1)


def _anthropic_sdk(monkeypatch: pytest.MonkeyPatch, probe: Probe) -> None:
    """anthropic: `anthropic._streaming.SSEDecoder.iter_bytes` / `.aiter_bytes` (its `Stream` /
    `AsyncStream`)."""
    from anthropic._streaming import SSEDecoder

    probe.wrap(monkeypatch, SSEDecoder, "iter_bytes", 1)
    probe.wrap(monkeypatch, SSEDecoder, "aiter_bytes", 1)


def _google_genai(monkeypatch: pytest.MonkeyPatch, probe: Probe) -> None:
    """google-genai: `google.genai._api_client._aiter_sse_lines` / `_iter_sse_lines`, which
    `HttpResponse._aiter_response_stream` calls with the httpx response's `aiter_bytes()`."""
    from google.genai import _api_client

    probe.wrap(monkeypatch, _api_client, "_aiter_sse_lines", 0)
    probe.wrap(monkeypatch, _api_client, "_iter_sse_lines", 0)


def _litellm(monkeypatch: pytest.MonkeyPatch, probe: Probe) -> None:
    """litellm: its own SSE line splitter `aiter_sse_lines` as the Anthropic and Gemini handlers import
    it (`make_call` hands it `response.aiter_text()`); its OpenAI path reads through the openai SDK."""
    from litellm.llms.anthropic.chat import handler
    from litellm.llms.vertex_ai.gemini import vertex_and_google_ai_studio_gemini as gemini

    for module in (handler, gemini):
        probe.wrap(monkeypatch, module, "aiter_sse_lines", 0)
        probe.wrap(monkeypatch, module, "iter_sse_lines", 0)
    _openai_sdk(monkeypatch, probe)


def _pydantic_ai(monkeypatch: pytest.MonkeyPatch, probe: Probe) -> None:
    """pydantic-ai: the SDK its model class sends through (`OpenAIChatModel`: openai,
    `AnthropicModel`: anthropic, `GoogleModel`: google-genai)."""
    _openai_sdk(monkeypatch, probe)
    _anthropic_sdk(monkeypatch, probe)
    _google_genai(monkeypatch, probe)


@dataclass(frozen=True)
class Adapter:
    factory: str  # module:function
    providers: tuple[str, ...]  # one column per dialect the adapter and the row cover
    install: Callable[[pytest.MonkeyPatch, Probe], None]
    requires: str


ADAPTERS: dict[str, Adapter] = {
    "openai-sdk (sdk_runtime)": Adapter("examples.sdk_runtime:make", ("openai",), _openai_sdk, "openai"),
    "openai-sdk": Adapter("examples.openai_sdk:make", ("openai",), _openai_sdk, "openai"),
    "openai-sdk-async": Adapter("examples.openai_sdk:make_async", ("openai",), _openai_sdk, "openai"),
    "anthropic-sdk": Adapter("examples.anthropic_sdk:make", ("anthropic",), _anthropic_sdk, "anthropic"),
    "anthropic-sdk-async": Adapter("examples.anthropic_sdk:make_async", ("anthropic",), _anthropic_sdk, "anthropic"),
    "pydantic-ai": Adapter(
        "examples.pydantic_ai_runtime:make", ("openai", "anthropic", "gemini"), _pydantic_ai, "pydantic_ai"
    ),
    "google-genai": Adapter("examples.google_genai_runtime:make", ("gemini", "vertex"), _google_genai, "google.genai"),
    "litellm": Adapter("examples.litellm_runtime:make", ("openai", "anthropic", "gemini"), _litellm, "litellm"),
}

CASES = [(name, provider) for name, adapter in ADAPTERS.items() for provider in adapter.providers]


def _runtime(adapter: Adapter) -> Any:
    from conformance.runtime.loading import load_runtime

    pytest.importorskip(adapter.requires)
    runtime, _ = load_runtime(adapter.factory)
    return runtime


def _probed(monkeypatch: pytest.MonkeyPatch, adapter: Adapter, provider: str) -> tuple[Probe, str, Probe]:
    """The probe's pieces over the row on `provider` through the adapter, the row's verdict, and the
    probe's pieces when the adapter decodes the same recorded answer handed over as one chunk."""
    runtime = _runtime(adapter)
    chunked, whole = Probe(), Probe()
    with monkeypatch.context() as patch:
        adapter.install(patch, chunked)
        verdict = rows(runtime, {ROW}, [provider])[(ROW, provider)].verdict
    status, headers, body = _recorded(provider)
    with monkeypatch.context() as patch:
        adapter.install(patch, whole)
        runtime.decode(provider, status, headers, [body], True)
    return chunked, verdict, whole


@pytest.mark.parametrize(("name", "provider"), CASES, ids=[f"{n}-{p}" for n, p in CASES])
def test_the_row_s_chunks_reach_the_library_s_decoder(
    monkeypatch: pytest.MonkeyPatch, name: str, provider: str
) -> None:
    chunked, verdict, whole = _probed(monkeypatch, ADAPTERS[name], provider)
    print(
        f"{name} on {provider}: {len(chunked.pieces)} pieces of {_chunks(provider)} chunks ({verdict}); whole: {len(whole.pieces)}"
    )
    assert len(whole.pieces) == 1, f"the body handed over as one chunk reached the decoder as {whole.pieces}"
    assert len(chunked.pieces) >= 3, f"the row's {_chunks(provider)} chunks reached the decoder as {chunked.pieces}"


TS = ROOT / "examples" / "typescript"
TS_CASES = [
    (program, provider) for program in ("ai_sdk.mjs", "pi_ai.mjs") for provider in ("openai", "anthropic", "gemini")
]
"""The TypeScript adapters (run as programs) on each dialect both drive. Their probe is
examples/typescript/lib/chunk_probe.mjs (`CONFORMANCE_CHUNK_PROBE`): ai-sdk's `parseJsonEventStream`,
the openai SDK's `Stream.fromSSEResponse`, the body of the Anthropic SDK's `APIPromise.asResponse()`
that pi-ai's own SSE reader takes, @google/genai's `processStreamResponse`."""


@dataclass
class _TsProgram:
    """A TypeScript adapter's program with the chunk probe on, writing to `pieces`."""

    runtime: Any
    pieces: Path

    def pieces_since(self, start: int) -> list[dict[str, Any]]:
        """The pieces the probe wrote from byte `start` of its file on."""
        with self.pieces.open(encoding="utf-8") as f:
            f.seek(start)
            return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module")
def ts_programs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], _TsProgram]]:
    """Each TypeScript adapter's program, started once for the module's rows with the chunk probe on
    (`CONFORMANCE_CHUNK_PROBE`, read when it starts): each test reads the pieces written during its
    own calls."""
    from conformance.runtime.process import ProcessRuntime

    folder = tmp_path_factory.mktemp("chunk-probe")
    started: dict[str, _TsProgram] = {}
    with pytest.MonkeyPatch.context() as patch:

        def program(name: str) -> _TsProgram:
            if name not in started:
                pieces = folder / f"{name}.jsonl"
                pieces.write_text("")
                patch.setenv("CONFORMANCE_CHUNK_PROBE", str(pieces))
                started[name] = _TsProgram(ProcessRuntime(f"node {TS / name}"), pieces)
            return started[name]

        try:
            yield program
        finally:
            for each in started.values():
                each.runtime.close()


@pytest.mark.skipif(
    shutil.which("node") is None or not (TS / "node_modules").is_dir(),
    reason="needs node and the TypeScript libraries: (cd examples/typescript && npm ci)",
)
@pytest.mark.parametrize(("program", "provider"), TS_CASES, ids=[f"{p}-{v}" for p, v in TS_CASES])
def test_the_row_s_chunks_reach_a_typescript_library_s_decoder(
    ts_programs: Callable[[str], _TsProgram], program: str, provider: str
) -> None:
    served = ts_programs(program)
    start = served.pieces.stat().st_size
    verdict = rows(served.runtime, {ROW}, [provider])[(ROW, provider)].verdict
    chunked = served.pieces_since(start)
    start = served.pieces.stat().st_size
    status, headers, body = _recorded(provider)
    served.runtime.decode(provider, status, headers, [body], True)
    whole = served.pieces_since(start)
    probes = sorted({p["probe"] for p in chunked})
    print(
        f"{program} on {provider}: {len(chunked)} pieces of {_chunks(provider)} chunks ({verdict}) at {probes}; whole: {len(whole)}"
    )
    assert len(whole) == 1, f"the body handed over as one chunk reached the decoder as {whole}"
    assert len(chunked) >= 3, f"the row's {_chunks(provider)} chunks reached the decoder as {chunked}"
