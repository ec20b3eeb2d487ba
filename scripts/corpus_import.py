"""Add recordings of a public repository to `corpus/`: each source file converted to the corpus
form (`conformance.evidence.convert`), a catalog entry, and `corpus/ATTRIBUTION.md` written again
from the catalog.

    python scripts/corpus_import.py --git DIR --repo OWNER/NAME --commit SHA --license MIT \\
        --label SOURCE --format vcrpy --provider P --api A [--test-request JSON] PATH [PATH ...]

`--git` is a git directory holding the repository (each file is read as `git show COMMIT:PATH`).
`--raw DIR` also writes each source file as `DIR/<owner>/<name>/<commit>/<path>`, so that
`python scripts/evidence_manifest.py --raw file://DIR` hashes the source files offline.
`--attribution-only` writes ATTRIBUTION.md again from the catalog and adds nothing.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from conformance.evidence.convert import to_corpus_form
from conformance.fileio import SafeLoader, atomic_write

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpus"

ATTRIBUTION_HEAD = """# Real recorded provider traffic: sources and licences

Every file under `corpus/` is a recording of real provider HTTP traffic made by a public open-source
project's test suite, converted to plain vcrpy YAML (version 1): bodies decoded to text (gzip undone),
`content-encoding` / `content-length` dropped, credentials replaced by `<redacted>`, cookies and
account ids dropped. Bodies are otherwise what the provider sent (JSON bodies the source stored
pre-parsed were re-serialized). `catalog.json` names, per file, the source repository, the path
and commit it was taken from, and its licence; `conformance evidence fetch` re-downloads and checks
each one.

A source that keeps a recorded response body without its request (the AI SDK's `__fixtures__`:
`original_format` `ai_sdk_json` or `ai_sdk_chunks` in `catalog.json`) is stored with the request its
test sends, with the status its test serves it with (`test_request` in `catalog.json`): the body
is the recording, the request is the test's. Stream events are framed as the test frames them
(`data: <event>`, then `data: [DONE]` for chat completions), except where the provider names each
event (Anthropic Messages, OpenAI Responses): there each `data:` line follows the `event: <type>`
line the provider sends, and no `[DONE]` line ends the stream.

The licence text of each source repository, with its copyright line as the repository states it
at the pinned commit, is in [`LICENSES/`](LICENSES/) (`<owner>--<name>.txt`, and the repository's
NOTICE file beside it where it has one).
"""


def _git_show(git: str, commit: str, path: str) -> bytes:
    return subprocess.run(["git", "--git-dir", git, "show", f"{commit}:{path}"], check=True, capture_output=True).stdout


def _name(label: str, path: str) -> str:
    stem = Path(path).name
    for suffix in (".yaml", ".yml", ".json", ".txt"):
        stem = stem.removesuffix(suffix)
    return f"{label}--{re.sub(r'[^A-Za-z0-9_.-]', '_', stem)}"


def _json(text: str | None) -> Any:
    try:
        return json.loads(text or "")
    except ValueError:
        return None


def _events(body: str) -> list[Any]:
    out = []
    for line in body.splitlines():
        if line.startswith("data:"):
            value = _json(line[5:].strip())
            if value is not None:
                out.append(value)
    return out


def _walk(value: Any) -> Any:
    yield value
    if isinstance(value, dict):
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)


def _text_chars(objects: list[Any]) -> set[str]:
    tags = set()
    for obj in objects:
        for v in _walk(obj):
            if isinstance(v, dict):
                for key in ("content", "text", "reasoning_content", "reasoning", "delta"):
                    s = v.get(key)
                    if isinstance(s, str):
                        tags |= {"u2028_in_text"} if "\u2028" in s else set()
                        tags |= {"u0085_in_text"} if "\x85" in s else set()
                        tags |= {"lone_cr_in_text"} if re.search(r"\r(?!\n)", s) else set()
    return tags


def _request_tags(req: Any) -> set[str]:
    if not isinstance(req, dict):
        return set()
    msgs = req.get("messages") or req.get("contents") or []
    roles = {m.get("role") for m in msgs if isinstance(m, dict)}
    shown = {
        "streaming": req.get("stream") is True,
        "tools_in_request": bool(req.get("tools")),
        "tool_choice": bool(req.get("tool_choice") or req.get("toolConfig")),
        "system_prompt": bool(req.get("system") or req.get("systemInstruction")) or "system" in roles,
        "structured_output": bool(req.get("response_format") or req.get("text")),
        "stream_options_include_usage": bool((req.get("stream_options") or {}).get("include_usage")),
        "tool_result_in_request": bool(roles & {"tool", "function"}),
    }
    return {tag for tag, seen in shown.items() if seen}


def _error_tags(status: int, headers: dict[str, Any], objects: list[Any]) -> set[str]:
    if status < 400:
        return set()
    tags = {f"error_{status}"}
    if status == 429 and any("ratelimit" in k for k in headers):
        tags.add("error_429_with_ratelimit_headers")
    for obj in objects:
        err = obj.get("error") if isinstance(obj, dict) else None
        if isinstance(err, dict):
            tags |= {f"error_{k}:{err[k]}" for k in ("type", "code", "status") if isinstance(err.get(k), (str, int))}
    return tags


def _object_tags(v: dict[str, Any], stream: bool, calls: set[Any]) -> set[str]:
    """Tags of one JSON object of a body (any depth); tool calls seen are added to `calls`."""
    usage = v.get("usageMetadata")
    shown = {
        "usage": bool(v.get("usage") or usage),
        "partial_usage_chunk": isinstance(usage, dict) and "totalTokenCount" not in usage,
        "chunk_without_usage": stream and "candidates" in v and usage is None,
        "text": any(isinstance(v.get(k), str) and v[k] for k in ("content", "text")),
        "reasoning_content": bool(v.get("reasoning_content")),
        "reasoning": bool(v.get("reasoning")) and not v.get("reasoning_content"),
        "reasoning_details": bool(v.get("reasoning_details")),
        "thinking": v.get("thought") is True or v.get("type") == "thinking",
        "content_filter": v.get("finish_reason") == "content_filter",
        "content_filter_results": bool(v.get("content_filter_results")),
    }
    tags = {tag for tag, seen in shown.items() if seen}
    for call in v.get("tool_calls") or []:
        if isinstance(call, dict):
            calls.add(call.get("index", call.get("id")))
            tags |= {"tool_call_index"} if stream and "index" in call else set()
            tags |= {"tool_call_args_delta"} if stream and (call.get("function") or {}).get("arguments") else set()
    if "functionCall" in v:
        calls.add(json.dumps(v["functionCall"], sort_keys=True))
    if v.get("type") in ("function_call", "tool_use"):
        calls.add(v.get("id") or v.get("call_id"))
    return tags


def _models(objects: list[Any]) -> list[str]:
    found = []
    for v in (v for obj in objects for v in _walk(obj) if isinstance(v, dict)):
        if isinstance(v.get("model"), str) and "object" in v:
            found.append(v["model"])
        if isinstance(v.get("modelVersion"), str):
            found.append(v["modelVersion"])
    return found


def features(doc: dict[str, Any]) -> tuple[set[str], list[int], list[str], bool]:
    """Feature tags, statuses, models and whether a call streams, read from a corpus-form file."""
    tags: set[str] = set()
    statuses: list[int] = []
    models: list[str] = []
    streaming = False
    for item in doc["interactions"]:
        request, response = item["request"], item["response"]
        req = _json(request.get("body")) or {}
        status = int(response["status"]["code"])
        statuses.append(status)
        headers = {k.lower(): v for k, v in (response.get("headers") or {}).items()}
        body = response["body"]["string"] or ""
        stream = "event-stream" in " ".join(headers.get("content-type", [])) or body.startswith(("data:", "event:"))
        streaming |= stream
        models += [req["model"]] if isinstance(req, dict) and isinstance(req.get("model"), str) else []
        tags |= _request_tags(req)
        objects = _events(body) if stream else [v for v in [_json(body)] if v is not None]
        tags |= {"sse"} if stream else set()
        tags |= {"done_sentinel"} if stream and "data: [DONE]" in body else set()
        tags |= {"ratelimit_headers"} if any("ratelimit" in k for k in headers) else set()
        tags |= {"retry_after_header"} if any(k in ("retry-after", "retry-after-ms") for k in headers) else set()
        tags |= _error_tags(status, headers, objects) | _text_chars(objects)
        calls: set[Any] = set()
        for v in (v for obj in objects for v in _walk(obj) if isinstance(v, dict)):
            tags |= _object_tags(v, stream, calls)
        tags |= {"tool_call"} if calls else set()
        tags |= {"parallel_tool_calls"} if len(calls) > 1 else set()
        last = objects[-1] if stream and objects else None
        tags |= {"usage_in_final_chunk"} if isinstance(last, dict) and last.get("usage") else set()
        models += _models(objects)
    return tags, sorted(set(statuses)), sorted(set(models)), streaming


def entry_for(path: str, data: bytes, args: argparse.Namespace, source_path: str, provider: str) -> dict[str, Any]:
    doc = yaml.load(data.decode(), Loader=SafeLoader)
    tags, statuses, models, streaming = features(doc)
    entry: dict[str, Any] = {
        "path": path,
        "source_repo": args.repo,
        "source_path": source_path,
        "commit": args.commit,
        "license": args.license,
        "original_format": args.format,
        "provider": provider,
        "api": args.api,
        "streaming": streaming,
        "features": sorted(tags),
        "http_statuses": statuses,
        "n_interactions": len(doc["interactions"]),
        "models": models,
    }
    if args.test_request:
        entry["test_request"] = json.loads(args.test_request)
    return entry


def write_attribution(catalog: list[dict[str, Any]]) -> None:
    counts = Counter((e["source_repo"], e["license"], e["commit"]) for e in catalog)
    lines = [ATTRIBUTION_HEAD, "## Sources", "", "| repository | licence | commit | files |", "|---|---|---|---:|"]
    for (repo, lic, commit), n in sorted(counts.items(), key=lambda kv: -kv[1]):
        lines.append(f"| [{repo}](https://github.com/{repo}) | {lic} | `{commit[:12]}` | {n} |")
    lines += ["", "## Files", "", "| file | source |", "|---|---|"]
    for e in sorted(catalog, key=lambda e: e["path"]):
        url = f"https://github.com/{e['source_repo']}/blob/{e['commit']}/{e['source_path']}"
        lines.append(f"| `{e['path']}` | [{e['source_repo']}/{e['source_path']}]({url}) ({e['license']}) |")
    atomic_write(CORPUS / "ATTRIBUTION.md", "\n".join(lines) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--git")
    parser.add_argument("--repo")
    parser.add_argument("--commit")
    parser.add_argument("--license")
    parser.add_argument("--label", help="the source's short name in corpus file names")
    parser.add_argument("--format", default="vcrpy")
    parser.add_argument("--provider", help="corpus provider; PATH=PROVIDER overrides it per file")
    parser.add_argument("--api")
    parser.add_argument("--test-request", help="JSON: the request the test sends (body-only formats)")
    parser.add_argument("--raw", help="also write each source file under DIR/<owner>/<name>/<commit>/<path>")
    parser.add_argument("--attribution-only", action="store_true")
    parser.add_argument("paths", nargs="*")
    args = parser.parse_args()
    catalog: list[dict[str, Any]] = json.loads((CORPUS / "catalog.json").read_text())
    known = {e["path"] for e in catalog}
    for spec in [] if args.attribution_only else args.paths:
        source_path, _, provider = spec.partition("=")
        provider = provider or args.provider
        data = _git_show(args.git, args.commit, source_path)
        test = json.loads(args.test_request) if args.test_request else None
        form = to_corpus_form(data, args.format, test)
        path = f"{provider}/{args.api}/{_name(args.label, source_path)}.yaml"
        if path in known:
            path = path.removesuffix(".yaml") + f"--{args.commit[:10]}.yaml"
        if path in known:
            print(f"skipped {source_path}: already in the corpus as {path}", file=sys.stderr)
            continue
        atomic_write(CORPUS / path, form)
        if args.raw:
            atomic_write(Path(args.raw, args.repo, args.commit, source_path), data)
        catalog.append(entry_for(path, form, args, source_path, provider))
        known.add(path)
        print(path)
    atomic_write(CORPUS / "catalog.json", json.dumps(catalog, indent=1, ensure_ascii=False) + "\n")
    write_attribution(catalog)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
