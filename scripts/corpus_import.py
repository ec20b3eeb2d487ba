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
test sends and served as its test serves it (`test_request` in `catalog.json`): the body is the
recording, the request and the event framing are the test's.

The licence text of each source repository, with its copyright line as the repository states it
at the pinned commit, is in [`LICENSES/`](LICENSES/) (`<owner>--<name>.txt`, and the repository's
NOTICE file beside it where it has one).
"""


def _git_show(git: str, commit: str, path: str) -> bytes:
    return subprocess.run(["git", "--git-dir", git, "show", f"{commit}:{path}"], check=True, capture_output=True).stdout


def _name(label: str, path: str) -> str:
    stem = Path(path).name
    for suffix in (".yaml", ".yml", ".json", ".chunks.txt"):
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
        ctype = " ".join(headers.get("content-type", []))
        stream = "event-stream" in ctype or body.startswith(("data:", "event:"))
        streaming |= stream
        if isinstance(req, dict):
            if isinstance(req.get("model"), str):
                models.append(req["model"])
            tags |= {"streaming"} if req.get("stream") is True else set()
            tags |= {"tools_in_request"} if req.get("tools") else set()
            tags |= {"tool_choice"} if req.get("tool_choice") or req.get("toolConfig") else set()
            tags |= {"system_prompt"} if req.get("system") or req.get("systemInstruction") else set()
            tags |= {"structured_output"} if req.get("response_format") or req.get("text") else set()
            tags |= {"stream_options_include_usage"} if (req.get("stream_options") or {}).get("include_usage") else set()
            msgs = req.get("messages") or req.get("contents") or []
            roles = {m.get("role") for m in msgs if isinstance(m, dict)}
            tags |= {"system_prompt"} if "system" in roles else set()
            tags |= {"tool_result_in_request"} if "tool" in roles or "function" in roles else set()
        if stream:
            tags |= {"sse"}
            tags |= {"done_sentinel"} if "data: [DONE]" in body else set()
            objects = _events(body)
        else:
            parsed = _json(body)
            objects = [parsed] if parsed is not None else []
        tags |= {"ratelimit_headers"} if any("ratelimit" in k for k in headers) else set()
        tags |= {"retry_after_header"} if any(k in ("retry-after", "retry-after-ms") for k in headers) else set()
        if status >= 400:
            tags.add(f"error_{status}")
            if status == 429 and any("ratelimit" in k for k in headers):
                tags.add("error_429_with_ratelimit_headers")
            for obj in objects:
                err = obj.get("error") if isinstance(obj, dict) else None
                if isinstance(err, dict):
                    for key in ("type", "code", "status"):
                        if isinstance(err.get(key), (str, int)) and err.get(key) != "":
                            tags.add(f"error_{key}:{err[key]}")
        tags |= _text_chars(objects)
        calls: set[Any] = set()
        for obj in objects:
            for v in _walk(obj):
                if not isinstance(v, dict):
                    continue
                if isinstance(v.get("model"), str) and "object" in v:
                    models.append(v["model"])
                if isinstance(v.get("modelVersion"), str):
                    models.append(v["modelVersion"])
                if v.get("usage") or v.get("usageMetadata"):
                    tags.add("usage")
                if isinstance(v.get("usageMetadata"), dict) and "totalTokenCount" not in v["usageMetadata"]:
                    tags.add("partial_usage_chunk")
                if stream and "candidates" in v and "usageMetadata" not in v:
                    tags.add("chunk_without_usage")
                if isinstance(v.get("content"), str) and v["content"] or isinstance(v.get("text"), str) and v["text"]:
                    tags.add("text")
                if v.get("reasoning_content") or v.get("reasoning"):
                    tags.add("reasoning_content" if v.get("reasoning_content") else "reasoning")
                if v.get("reasoning_details"):
                    tags.add("reasoning_details")
                if v.get("thought") is True or v.get("type") == "thinking":
                    tags.add("thinking")
                for call in v.get("tool_calls") or []:
                    if isinstance(call, dict):
                        calls.add(call.get("index", call.get("id")))
                        if stream and "index" in call:
                            tags.add("tool_call_index")
                        if stream and (call.get("function") or {}).get("arguments"):
                            tags.add("tool_call_args_delta")
                if "functionCall" in v:
                    calls.add(json.dumps(v["functionCall"], sort_keys=True))
                if v.get("type") in ("function_call", "tool_use"):
                    calls.add(v.get("id") or v.get("call_id"))
                if v.get("finish_reason") == "content_filter" or v.get("content_filter_results"):
                    tags.add("content_filter" if v.get("finish_reason") == "content_filter" else "content_filter_results")
        if calls:
            tags.add("tool_call")
            if len(calls) > 1:
                tags.add("parallel_tool_calls")
        if stream and objects and isinstance(objects[-1], dict) and objects[-1].get("usage"):
            tags.add("usage_in_final_chunk")
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
