"""The `context` check: history trimming, compaction and session files, judged through the runtime's
`context(request: dict) -> dict` capability (see docs/context.md for the request shapes).

The scenario's `input.op` names the operation:

- ``count``: `input` is a conversation; `expected: {count: {tokens, source, baseline, estimated}}`,
  the history's tokens from the last reported usage plus an estimate of what came after it (a
  field given as `<field>_at_least: N` is bounded from below instead of compared); or `expected:
  {exact: N}`, the exact count asked for (`exact: true`): N is the provider's own count of that
  prompt (`usage.prompt_tokens` of a real recording). A runtime that has no tokenizer for the
  model answers `exact: null`, and the row is `unsupported` for it: an exact count is offered
  where the provider's tokenizer is at hand (seed 000, 5.1), an estimate is no wrong answer;
- ``trim``: `input` is a conversation plus `settings`; the runtime answers the trimmed history
  and the wire body it sends for the provider. `expected: {messages, body}` — `messages` shared,
  `body` per provider in `overrides` (compared where given); or `expected: {bound: {...}}`, what
  any trimming within the seed's bound must satisfy (`checks.trim_bound`), where the seed gives no formula;
- ``compact``: `input.session` (messages) is written as the session file, `input.files` puts
  other files beside it (a backup, a temporary file); the runtime compacts the file, sending its
  summarisation requests through the httpx transport handed to `context(request, transport)`,
  replayed from the scenario's cassette (every interaction played, bodies matched). The harness
  reads the file back itself: `expected: {session, files, error, trace}` — the messages in the
  file, the file names in its directory, the typed error (`kind`) and the runtime's trace
  (`reason`, `seconds` and `profile` are not compared).
  `input.requests: none` says the operation must send no request (there is no cassette);
- ``encode``: the runtime encodes `input` for the provider: `expected: {body}`, or `{error: {kind:
  unsupported_feature, where}}` when the request asks for a feature the model lacks;
- ``recover``: the same files, no cassette: the runtime recovers the session after a crash;
  `expected: {session, files}`;
- ``append``: `input.append` (messages) is appended with `input.settings.max_tool_result_chars`;
  `expected: {session, files}`.

A runtime without `context` gets `skipped`.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from conformance.compare import ScenarioResult
from conformance.exceptions import ScenarioError
from conformance.harness.checks.trim_bound import bound_problems
from conformance.harness.context import HarnessContext, judge, mismatch_failure, requires, result, unplayed_failure
from conformance.model import MESSAGES_ADAPTER
from conformance.replay.cassette import Cassette, load_cassette
from conformance.replay.player import CassetteTransport, ReplayMismatch
from conformance.scenarios import Scenario

SESSION = "session.jsonl"
CONTEXT_IGNORE = ("trace[*].reason", "trace[*].seconds", "trace[*].profile", "error.message", "error.provider_error")
OPS = ("count", "trim", "encode", "compact", "recover", "append")


def _canonical_messages(data: Any, where: str) -> list[dict[str, Any]]:
    try:
        messages = MESSAGES_ADAPTER.validate_python(data)
    except ValueError as exc:
        raise ScenarioError(f"not a list of messages: {exc}", where=where) from None
    return [m.model_dump(mode="json", exclude_none=True) for m in messages]


def _read_session(directory: Path) -> dict[str, Any]:
    """What is on disk after the operation: the session's records and the directory's file names."""
    path = directory / SESSION
    records: list[Any] = []
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                try:
                    records.append(json.loads(line))
                except ValueError:
                    records.append({"unreadable": line})
    try:
        session: Any = [m.model_dump(mode="json", exclude_none=True) for m in MESSAGES_ADAPTER.validate_python(records)]
    except ValueError:
        session = records
    files = sorted(p.name for p in directory.iterdir() if not p.name.endswith(".lock"))
    return {"session": session, "files": files}


def _write_files(directory: Path, spec: dict[str, Any], where: str) -> None:
    session = spec.get("session")
    if session is not None:
        lines = [json.dumps(m, ensure_ascii=False) for m in _canonical_messages(session, f"{where}: input.session")]
        (directory / SESSION).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    for name, text in dict(spec.get("files", {})).items():
        if "/" in name or name.startswith(".."):
            raise ScenarioError(f"file name {name!r} must be a plain name", where=f"{where}: input.files")
        (directory / name).write_text(str(text), encoding="utf-8")


def _trace(steps: Any) -> list[dict[str, Any]]:
    return [{k: v for k, v in dict(s).items() if v is not None} for s in steps or []]


def _expected(scenario: Scenario, provider: str) -> dict[str, Any]:
    data = scenario.expected_for(provider)
    if not isinstance(data, dict):
        raise ScenarioError("expected: a mapping is needed", where=str(scenario.path))
    out = dict(data)
    for key in ("messages", "session"):
        if isinstance(out.get(key), list):
            out[key] = _canonical_messages(out[key], f"{scenario.path}: expected.{key}")
    if "trace" in out:
        out["trace"] = _trace(out["trace"])
    if isinstance(out.get("error"), dict):
        out["error"] = {k: v for k, v in out["error"].items() if k in ("kind", "where")}
    return out


def _error(error: dict[str, Any], expected: dict[str, Any]) -> dict[str, Any]:
    """The runtime's typed error as compared: its `kind`, and its `where` when the scenario names one."""
    wanted = expected.get("error")
    wanted = wanted if isinstance(wanted, dict) else {}
    return {k: error.get(k) for k in ("kind", "where") if k == "kind" or k in wanted}


def check_context(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    skipped = requires(ctx, scenario, provider, "context")
    if skipped is not None:
        return skipped
    spec = dict(scenario.spec.input)
    op = spec.get("op")
    if op not in OPS:
        raise ScenarioError(f"input.op must be one of {', '.join(OPS)}", where=str(scenario.path))
    expected = _expected(scenario, provider)
    runtime: Any = ctx.runtime
    if op == "trim":
        return _check_trim(scenario, provider, ctx, expected, spec)
    if op == "count":
        if "exact" in expected:  # the exact count, against the provider's own
            return _check_exact(scenario, provider, ctx, expected)
        # only `count` is judged: the exact tokenizer count is not asked for
        count = {"op": "count", "provider": provider, "conversation": scenario.conversation(provider), "exact": False}
        answer = runtime.context(count)
        return judge(
            scenario, provider, expected, _floored(expected, answer.get("count")), ctx=ctx, ignore=CONTEXT_IGNORE
        )
    if op == "encode":
        answer = runtime.context(
            {"op": "encode", "provider": provider, "conversation": scenario.conversation(provider)}
        )
        error = answer.get("error")
        actual: dict[str, Any] = {"error": _error(error, expected)} if error else {"body": answer.get("body")}
        return judge(scenario, provider, expected, actual, ctx=ctx, ignore=CONTEXT_IGNORE)
    with tempfile.TemporaryDirectory(prefix="conformance-context-") as tmp:
        directory = Path(tmp)
        _write_files(directory, spec, str(scenario.path))
        request: dict[str, Any] = {"op": op, "session": str(directory / SESSION), "provider": provider}
        for key in ("settings", "policy", "model"):
            if key in spec:
                request[key] = spec[key]
        if op == "append":
            request["messages"] = _canonical_messages(spec.get("append", []), f"{scenario.path}: input.append")
        if op != "compact":
            runtime.context(request)
            return judge(scenario, provider, expected, _read_session(directory), ctx=ctx, ignore=CONTEXT_IGNORE)
        request["api_key"] = "replay-key"
        rel: str | None = None
        if spec.get("requests") == "none":  # the operation must send nothing: an empty cassette, not reported
            transport = CassetteTransport(Cassette(path=directory / "no-requests.yaml", interactions=[]))
        else:
            cassette = scenario.cassette_path(provider, ctx.root)
            if not cassette.is_file():
                return result(scenario, provider, "missing", f"no cassette at {ctx.rel(cassette)}")
            transport = CassetteTransport(load_cassette(cassette), restream=True)
            rel = ctx.rel(cassette)
        try:
            answer = runtime.context(request, transport)
            transport.raise_mismatch()  # the library may have replaced the exception with one of its own
        except ReplayMismatch as exc:
            return mismatch_failure(scenario, provider, exc, cassette=rel)
        unplayed = transport.unplayed()
        actual = _read_session(directory)
        error = answer.get("error")
        actual["error"] = None if error is None else _error(error, expected)
        actual["trace"] = _trace(answer.get("trace"))
        failure = unplayed_failure(scenario, provider, unplayed, cassette=rel, expected=expected, actual=actual)
        if failure is not None:
            return failure
        return judge(scenario, provider, expected, actual, ctx=ctx, ignore=CONTEXT_IGNORE, cassette=rel)


def _check_exact(scenario: Scenario, provider: str, ctx: HarnessContext, expected: dict[str, Any]) -> ScenarioResult:
    runtime: Any = ctx.runtime
    count = {"op": "count", "provider": provider, "conversation": scenario.conversation(provider), "exact": True}
    exact = runtime.context(count).get("exact")
    if exact is None:
        reason = f"runtime {ctx.runtime_name} gives no exact count for this model (no tokenizer at hand)"
        return result(scenario, provider, "unsupported", reason)
    return judge(scenario, provider, {"exact": expected["exact"]}, {"exact": exact}, ctx=ctx, ignore=CONTEXT_IGNORE)


def _floored(expected: dict[str, Any], count: Any) -> dict[str, Any]:
    """The count as compared: a field the row bounds from below (`estimated_at_least: N`, where the
    cost of a part has no one right value, as an image's) reads as N when the runtime's figure is at
    least N, and as the figure itself otherwise, so the diff shows it."""
    want = expected.get("count")
    if not isinstance(want, dict) or not isinstance(count, dict):
        return {"count": count}
    out = {k: v for k, v in count.items() if f"{k}_at_least" not in want}
    for key, floor in want.items():
        if key.endswith("_at_least"):
            value = count.get(key.removesuffix("_at_least"))
            number = isinstance(value, int) and not isinstance(value, bool)
            out[key] = floor if number and value >= floor else value
    return {"count": out}


def _check_trim(
    scenario: Scenario, provider: str, ctx: HarnessContext, expected: dict[str, Any], spec: dict[str, Any]
) -> ScenarioResult:
    runtime: Any = ctx.runtime
    answer = runtime.context(
        {
            "op": "trim",
            "provider": provider,
            "conversation": scenario.conversation(provider),
            "settings": spec.get("settings", {}),
        }
    )
    actual: dict[str, Any] = {"messages": _canonical_messages(answer.get("messages"), "runtime answer")}
    if isinstance(expected.get("bound"), dict):  # the seed's bound, not one formula's numbers
        original = _canonical_messages(scenario.conversation(provider)["messages"], f"{scenario.path}: input")
        problems = bound_problems(original, actual.pop("messages"), expected["bound"])
        expected = {**{k: v for k, v in expected.items() if k != "messages"}, "bound": []}
        actual["bound"] = problems
    if "body" in expected:
        actual["body"] = answer.get("body")
    return judge(scenario, provider, expected, actual, ctx=ctx, ignore=CONTEXT_IGNORE)
