"""Token estimators against the provider's own count: the `usage` recorded in cassettes.

For every 200 response whose request body is JSON (the bundled cassettes, and the reference
corpus in ../shared/corpus when it is there), the prompt tokens the provider reported
(`usage.input_tokens` of the decoded response) are compared with:

- `json/4`: the characters of the compact JSON request body / 4, rounded up — what
  `runtime.budget` and `runtime.context.tokens.estimate_tokens` do on the canonical history;
- `text/4`: only the string values of the body (texts, tool names, schema words; inline base64
  data left out) / 4;
- `baseline`: seed §5.1 — in a multi-request cassette (a tool loop), the previous response's
  input + output tokens plus json/4 of what the request added since (its growth in characters);
- `o200k`: OpenAI's o200k_base tokenizer over the string values, plus OpenAI's documented 3 tokens
  per message and 3 to prime the reply (exact for text-only OpenAI requests; elsewhere a stand-in
  for a tokenizer the provider does not publish), when `conformance[tokens]` is installed.

Prints, per source (bundled, corpus), provider and estimator: how many requests, the median of
estimate / actual, and the median and mean absolute error in percent. Hand-authored bundled
cassettes carry illustrative usage figures; the corpus (real traffic) is the measure. Run:

    python benchmarks/tokens.py [--corpus DIR] [--no-corpus]    # DIR: $CONFORMANCE_CORPUS or ../shared/corpus
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from conformance.capabilities import provider_names
from conformance.runtime.context.tokens import exact_text_tokens
from conformance.runtime.reference import ReferenceRuntime

ROOT = Path(__file__).resolve().parents[1]
CORPUS_PROVIDERS = {"google_gemini": "gemini"}
"""Corpus directory names that differ from profile names."""
CORPUS_APIS = frozenset({"chat_completions", "messages", "generate_content", "chat"})


def _body(raw: Any) -> Any:
    if isinstance(raw, dict) and "string" in raw:
        raw = raw["string"]
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def _strings(node: Any) -> Iterator[str]:
    """The string values of a body, inline base64 data (images, documents) left out."""
    if isinstance(node, str):
        if not (node.startswith("data:") or (len(node) > 1000 and " " not in node[:1000])):
            yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def _o200k(text: str, request: dict[str, Any]) -> int | None:
    tokens = exact_text_tokens(text, "o200k_base")
    if tokens is None:
        return None
    messages = request.get("messages", request.get("contents", []))
    return tokens + 3 * (len(messages) if isinstance(messages, list) else 0) + 3


def cassettes(corpus: Path | None) -> Iterator[tuple[str, str, Path]]:
    """(source, provider, path): the bundled cassettes, then the corpus's chat-style ones."""
    known = set(provider_names())
    for path in sorted((ROOT / "cassettes").glob("*/*.yaml")):
        if path.parent.name in known:
            yield "bundled", path.parent.name, path
    if corpus is None or not corpus.is_dir():
        return
    for path in sorted(corpus.glob("*/*/*.yaml")):
        provider = CORPUS_PROVIDERS.get(path.parts[-3], path.parts[-3])
        if provider in known and path.parts[-2] in CORPUS_APIS:
            yield "corpus", provider, path


def samples(provider: str, path: Path) -> Iterator[dict[str, int | None]]:
    """One sample per 200 response with usage: the actual prompt tokens and each estimate."""
    runtime = ReferenceRuntime()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError):
        return
    previous: tuple[int, int, int] | None = None  # input, output, request chars
    for it in (data or {}).get("interactions", []):
        request = _body(it.get("request", {}).get("body"))
        response = it.get("response", {})
        status = int(response.get("status", {}).get("code", 0))
        if not isinstance(request, dict) or status != 200:
            previous = None
            continue
        headers = {k: (v[-1] if isinstance(v, list) and v else str(v)) for k, v in response.get("headers", {}).items()}
        raw = response.get("body", {}).get("string", "")
        body = raw.encode() if isinstance(raw, str) else bytes(raw or b"")
        kind = headers.get("content-type", headers.get("Content-Type", ""))
        stream = "event-stream" in kind or "ndjson" in kind or bool(request.get("stream"))
        try:
            outcome = runtime.decode(provider, status, headers, [body], stream)
        except Exception:  # a cassette this runtime cannot read is left out
            previous = None
            continue
        usage = (outcome.get("message") or {}).get("usage") or {}
        actual = int(usage.get("input_tokens", 0))
        chars = len(json.dumps(request, ensure_ascii=False, separators=(",", ":")))
        if actual <= 0:
            previous = None
            continue
        text = "".join(_strings(request.get("messages", request.get("contents", []))))
        text += "".join(_strings({k: v for k, v in request.items() if k in ("system", "systemInstruction", "tools")}))
        sample: dict[str, int | None] = {
            "actual": actual,
            "json/4": math.ceil(chars / 4),
            "text/4": math.ceil(len(text) / 4),
            "o200k": _o200k(text, request),
            "baseline": None,
        }
        if previous is not None and chars >= previous[2]:
            sample["baseline"] = previous[0] + previous[1] + math.ceil((chars - previous[2]) / 4)
        yield sample
        previous = (actual, int(usage.get("output_tokens", 0)), chars)


ESTIMATORS = ("json/4", "text/4", "baseline", "o200k")


Row = tuple[int, float, float, float]


def report(corpus: Path | None) -> dict[tuple[str, str], dict[str, Row]]:
    """Per (source, provider) and estimator: (n, median estimate/actual, median and mean
    absolute error in percent)."""
    ratios: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for source, provider, path in cassettes(corpus):
        for sample in samples(provider, path):
            actual = sample["actual"]
            assert actual
            for name in ESTIMATORS:
                value = sample[name]
                if value is not None:
                    ratios[(source, provider)][name].append(value / actual)
    return {
        key: {
            name: (
                len(v),
                statistics.median(v),
                100 * statistics.median(abs(r - 1) for r in v),
                100 * statistics.fmean(abs(r - 1) for r in v),
            )
            for name, v in by_name.items()
        }
        for key, by_name in ratios.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(os.environ.get("CONFORMANCE_CORPUS", ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--corpus", type=Path, default=default, help="default: $CONFORMANCE_CORPUS or ../shared/corpus")
    parser.add_argument("--no-corpus", action="store_true")
    args = parser.parse_args()
    table = report(None if args.no_corpus else args.corpus)
    head = ("source", "provider", "estimator", "n", "est/actual", "median |err|", "mean |err|")
    print(f"{head[0]:8} {head[1]:18} {head[2]:10} {head[3]:>4} {head[4]:>10} {head[5]:>12} {head[6]:>11}")
    for source, provider in sorted(table):
        for name in ESTIMATORS:
            if name in table[(source, provider)]:
                n, ratio, median, mean = table[(source, provider)][name]
                print(f"{source:8} {provider:18} {name:10} {n:4d} {ratio:10.2f} {median:11.1f}% {mean:10.1f}%")


if __name__ == "__main__":
    main()
