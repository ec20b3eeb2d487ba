"""Every recorded Ollama `/api/chat` interaction of the shared corpus through the codec.

Reads `../shared/corpus` (or `$CONFORMANCE_CORPUS`) and skips when it is absent. Ollama's `/v1`
recordings belong to the OpenAI-chat dialect and are not read here. Checks: no exception other
than `InputError`; every HTTP error is typed; a stream decodes the same in 7-byte chunks; our
summary agrees with the ollama SDK's (`tests/evidence/sdk_ollama.py`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from conformance.codecs.base import decode_response
from conformance.codecs.ollama import CODEC
from conformance.exceptions import InputError
from tests.codecs.ollama.helpers import PROFILE
from tests.evidence.sdk_ollama import sdk_summary
from tests.evidence.summary import ours

CORPUS = Path(os.environ.get("CONFORMANCE_CORPUS", Path(__file__).resolve().parents[3].parent / "shared" / "corpus"))


@dataclass
class Tally:
    files: int = 0
    interactions: int = 0
    agree: int = 0
    disagree: list[str] = field(default_factory=list)
    typed_errors: int = 0
    input_errors: list[str] = field(default_factory=list)


def _headers(raw: dict[str, Any]) -> dict[str, str]:
    return {k: ", ".join(v) if isinstance(v, list) else str(v) for k, v in (raw or {}).items()}


def _body(raw: Any) -> bytes:
    value = raw.get("string", b"") if isinstance(raw, dict) else raw
    return value if isinstance(value, bytes) else str(value or "").encode()


def _streams(request_body: Any) -> bool:
    """Ollama streams unless the request said `"stream": false`."""
    try:
        request = orjson.loads(_body(request_body) or b"{}")
    except orjson.JSONDecodeError:
        return True
    return not (isinstance(request, dict) and request.get("stream") is False)


def _cassettes() -> list[Path]:
    catalog = orjson.loads((CORPUS / "catalog.json").read_bytes())
    return [CORPUS / e["path"] for e in catalog if e["provider"] == "ollama" and e["api"] == "ollama_chat"]


def run_corpus() -> Tally:
    tally = Tally()
    for path in _cassettes():
        tally.files += 1
        cassette = yaml.safe_load(path.read_text())
        for n, interaction in enumerate(cassette["interactions"]):
            request = interaction["request"]
            if not request["uri"].rstrip("/").endswith("/api/chat"):
                continue
            tally.interactions += 1
            response = interaction["response"]
            status, headers, body = (
                response["status"]["code"],
                _headers(response["headers"]),
                _body(response["body"]),
            )
            stream = _streams(request.get("body"))
            where = f"{path.name}#{n}"
            try:
                outcome = decode_response(CODEC, PROFILE, status, headers, body, stream_hint=stream)
            except InputError as exc:
                tally.input_errors.append(f"{where}: {exc}")
                continue
            if outcome.error is not None:
                tally.typed_errors += 1
            if stream and status < 400:
                small = [body[i : i + 7] for i in range(0, len(body), 7)]
                again = decode_response(CODEC, PROFILE, status, headers, body, stream_hint=stream, chunks=small)
                if again.to_json() != outcome.to_json():
                    tally.disagree.append(f"{where}: 7-byte chunks decode differently")
            if status >= 400:
                if outcome.error is None:
                    tally.disagree.append(f"{where}: HTTP {status} not typed as an error")
                else:
                    tally.agree += 1
                continue
            theirs, mine = sdk_summary(status, headers, body, stream), ours(outcome)
            if theirs == mine:
                tally.agree += 1
            else:
                diffs = [
                    f"{k}: ours={getattr(mine, k)!r:.80} sdk={getattr(theirs, k)!r:.80}"
                    for k in ("text", "tool_calls", "input_tokens", "output_tokens", "stop")
                    if getattr(mine, k, None) != getattr(theirs, k, None)
                ]
                tally.disagree.append(f"{where}: " + "; ".join(diffs))
    return tally


@pytest.mark.skipif(not (CORPUS / "catalog.json").exists(), reason="shared corpus not present")
def test_corpus_ollama() -> None:
    tally = run_corpus()
    print(
        f"corpus ollama: {tally.files} files, {tally.interactions} interactions, agree {tally.agree}, "
        f"disagree {len(tally.disagree)}, typed-errors {tally.typed_errors}"
    )
    for line in tally.disagree[:10] + tally.input_errors[:10]:
        print("  ", line)
    assert tally.interactions > 0
    assert not tally.disagree
