"""Framers, the JSONL transcript loader, the scenario and cassette loaders, and every CLI command's
input parsing, on damaged input: a result or a typed error (one line), in linear time."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import random
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from conformance.cli import main
from conformance.emulator.faults import Fault
from conformance.replay.cassette import load_cassette
from conformance.runtime.transcripts import load_transcript
from conformance.scenarios.loader import load_scenario
from conformance.strategies import jsonl_line, transcripts
from conformance.wire import NDJSONDecoder, SSEDecoder, parse_ndjson, parse_sse
from tests.fuzz.contract import Tally, fuzz
from tests.fuzz.mutate import Mutator, batch_size, chunked, mutated_bytes
from tests.fuzz.seeds import ROOT, seeds

SCENARIOS = sorted((ROOT / "scenarios").rglob("*.yaml"))
CASSETTES = sorted((ROOT / "cassettes").rglob("*.yaml"))
_names = itertools.count()


def _file(directory: Path, data: bytes, suffix: str) -> Path:
    path = directory / f"in{next(_names)}{suffix}"  # a fresh name: loaders cache by file
    path.write_bytes(data)
    return path


def _structural(rng: random.Random, text: bytes) -> bytes:
    """A YAML document with a subtree replaced (by another type, a deep list, a lone surrogate)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    value = Mutator(rng).json_value(data)
    try:
        return yaml.safe_dump(value, allow_unicode=False).encode()
    except (yaml.YAMLError, RecursionError):
        return b"a: " + b"[" * 10_000
    except UnicodeEncodeError:
        return text


def _damaged(rng: random.Random, text: bytes) -> bytes:
    return _structural(rng, text) if rng.random() < 0.5 else Mutator(rng).data(text)


# framers ---------------------------------------------------------------------------------------


def _frame(framer: str, chunks: list[bytes]) -> None:
    decoder = SSEDecoder() if framer == "sse" else NDJSONDecoder()
    for chunk in chunks:
        decoder.feed(chunk)
    decoder.finish()


@pytest.mark.parametrize("framer", ["sse", "ndjson"])
def test_framers(framer: str) -> None:
    tally = Tally(f"{framer} framer")
    bodies = [s.body for s in seeds() if s.stream]

    @fuzz(ci=40, long=2_000)
    @given(st.sampled_from(bodies).flatmap(mutated_bytes).flatmap(chunked), st.integers(0, 2**32))
    def run(chunks: list[bytes], seed: int) -> None:
        mutator = Mutator(random.Random(seed))
        cases = [chunks]
        body = b"".join(chunks)
        for _ in range(batch_size()):
            cases.append(mutator.chunks(mutator.data(body)))
        for case in cases:
            size = sum(len(c) for c in case)
            tally.call(size, lambda c=case: _frame(framer, c))
            tally.call(size, lambda c=case: (parse_sse if framer == "sse" else parse_ndjson)(b"".join(c)))

    run()
    tally.report()


# JSONL transcripts -------------------------------------------------------------------------------


def test_transcript_loader() -> None:
    tally = Tally("JSONL transcript loader")
    with tempfile.TemporaryDirectory() as tmp:

        @fuzz(ci=40, long=1_500)
        @given(transcripts(), st.integers(0, 2**32))
        def run(messages: list, seed: int) -> None:  # type: ignore[type-arg]
            rng = random.Random(seed)
            clean = b"".join(jsonl_line(m) for m in messages)
            for data in [clean, *(Mutator(rng).data(clean) for _ in range(batch_size()))]:
                path = _file(Path(tmp), data, ".jsonl")
                tally.call(len(data), lambda p=path: _transcript(p))
                path.unlink()

        run()
    tally.report()


def _transcript(path: Path) -> None:
    for message in load_transcript(path).messages:
        json.dumps(message.model_dump(mode="json"))


# scenario and cassette loaders -------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["scenario", "cassette"])
def test_yaml_loaders(kind: str) -> None:
    tally = Tally(f"{kind} loader")
    files = SCENARIOS if kind == "scenario" else CASSETTES
    load = load_scenario if kind == "scenario" else load_cassette
    with tempfile.TemporaryDirectory() as tmp:

        @fuzz(ci=30, long=1_000)
        @given(st.sampled_from(files), st.integers(0, 2**32))
        def run(source: Path, seed: int) -> None:
            rng = random.Random(seed)
            text = source.read_bytes()
            for _ in range(1 + batch_size() // 2):
                data = _damaged(rng, text)
                path = _file(Path(tmp), data, ".yaml")
                tally.call(len(data), lambda p=path: load(p))
                path.unlink()

        run()
    tally.report()


# CLI commands ------------------------------------------------------------------------------------

TEXT_BODY = b'{"role":"user","content":[{"type":"text","text":"hi"}]}\n'
CONVERSATION = json.dumps({"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}).encode()


def _cli(args: list[str]) -> int:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    assert code in (0, 1, 2), code
    assert "Traceback" not in err.getvalue() + out.getvalue()
    if code == 2:
        lines = [line for line in err.getvalue().splitlines() if line.strip()]
        assert len(lines) == 1, err.getvalue()
    return code


@pytest.mark.parametrize("command", ["decode", "encode", "repair", "lint", "check", "report", "fault"])
def test_cli_input_parsing(command: str) -> None:
    tally = Tally(f"cli {command}")
    sources = {
        "decode": CASSETTES,
        "lint": CASSETTES,
        "encode": [CONVERSATION],
        "repair": [TEXT_BODY * 3],
        "check": [CONVERSATION, b'{"message":{"role":"assistant","content":[]}}'],
        "report": [b'{"providers":[],"rows":[]}'],
        "fault": [b"429;retry-after=30;times=1", b"cut=200", b"rechunk=7", b"error-event", b"529"],
    }[command]
    with tempfile.TemporaryDirectory() as tmp:

        @fuzz(ci=8, long=200)
        @given(st.sampled_from(sources), st.integers(0, 2**32))
        def run(source: Path | bytes, seed: int) -> None:
            rng = random.Random(seed)
            text = source.read_bytes() if isinstance(source, Path) else source
            for _ in range(1 + batch_size() // 4):
                data = _damaged(rng, text) if command in ("decode", "lint") else Mutator(rng).data(text)
                if command == "fault":
                    spec = data.decode("utf-8", "replace")
                    tally.call(len(data), lambda s=spec: Fault.parse(s))
                    continue
                path = _file(Path(tmp), data, ".json" if command in ("encode", "check", "report") else ".yaml")
                args = {
                    "decode": ["decode", "--provider", "openai", str(path)],
                    "lint": ["lint", str(path), "--root", str(tmp)],
                    "encode": ["encode", "--provider", "anthropic", str(path)],
                    "repair": ["repair", "--provider", "gemini", str(path)],
                    "check": [
                        "check",
                        "text_basic",
                        "--provider",
                        "openai",
                        "--actual",
                        str(path),
                        "--root",
                        str(ROOT),
                    ],
                    "report": ["report", "--input", str(path), "--out", str(Path(tmp) / "out")],
                }[command]
                tally.call(len(data), lambda a=args: _cli(a))
                path.unlink()

        run()
    tally.report()
