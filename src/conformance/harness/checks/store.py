"""The `store` check: a scenario's operation script run against the runtime's conversation-tree
store, once per backend, compared with the expected step results and the expected final tree.

Scenario input::

    input:
      options: {max_depth: 4}             # optional, passed to store_session
      script:
      - {op: create_root, as: r, system: "Be terse."}
      - {op: append, as: a, parent: r, message: {role: user, content: hi}}
      - {op: reparent, node: r, parent: a, expect: {error: {kind: root_protected, where: r}}}
    expected:
      tree: {roots: [r], nodes: [...], bookmarks: [...]}

`as` names the id an operation returns (`head` for a split); later steps use the name. Results and
the tree are compared with ids replaced by these names (unnamed ids become `#1`, `#2`, … in order
of appearance) and the store's directory by `$DIR`. Besides what the scenario expects, every step
without `expect` must succeed, every failed step must leave the tree exactly as it was, and `fsck`
must find nothing at the end. The store is provider-independent: the verdict is computed once per
scenario and shown in every provider column.

A corruption scenario sets `layout: files`: it runs on the `files` backend alone, whose data
directory has the layout docs/store.md documents, and plants damage between operations with
harness steps that the runtime never sees::

      - {op: tamper, file: '{r}/bookmarks.json', json: {version: 1, bookmarks: {b: n_00000000000000ee}}}
      - {op: tamper, file: '{r2}/nodes/{u2}.json', merge: {parent: u1}}
      - {op: tamper, file: .roots.json.tmp, text: '{"half'}

`{name}` in `file` is the id bound to that name; in `json`/`merge` a string equal to a bound name
becomes its id. `expected.fsck` then lists the violations `fsck()` must report (kind and where,
in any order; the detail is prose). A runtime whose store has no `files` backend is `skipped`.

Concurrent writers (seed 000, 4.1: "Multiple processes reading the same session store
simultaneously … Mitigation: Async lock queue + atomic writes") are one harness step::

      - op: concurrently
        writers:
        - [{op: create_root, as: r1, system: One.}, {op: append, as: u1, parent: r1, message: {...}}]
        - [{op: append, as: v1, parent: u0, message: {...}}, ...]
        expect: {roots: [r0, r1, r2], children: {u0: [v1, w1]}}

Each writer's operations run in order in a thread of its own, every thread on the one store
session, all started together; every operation must succeed (a write that fails under contention
is a lost write), its `as` binds as usual. `expect` is compared as sets, since the writers' order
is not the store's to keep: `roots` every conversation `tree()` lists, `children` a node's children.
Later steps (`path` …) and `fsck` judge that no record was lost, torn or mixed with another's.
"""

from __future__ import annotations

import json
import re
import tempfile
import threading
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from conformance.compare import ScenarioResult
from conformance.exceptions import ScenarioError
from conformance.harness.context import HarnessContext, judge, requires, result
from conformance.model import parse_message
from conformance.runtime.process import RemoteError
from conformance.scenarios import Scenario
from conformance.store.errors import StoreError
from conformance.store.ids import NODE_ID, ROOT_ID

ID_IN_PATH = re.compile(r"\b[nr]_[0-9a-f]{16}\b")

DEFAULT_BACKENDS: tuple[str, ...] = ("files", "sqlite")
REF_KEYS = frozenset({"node", "parent", "root"})
STORE_IGNORE = ("steps[*].error.message", "fsck[*].detail")
LAYOUT = "files"
TAMPER_KEYS = frozenset({"json", "merge", "text"})
CONCURRENT_WAIT_S = 60.0
"""How long the harness waits for concurrent writers to finish."""


def check_store(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    skipped = requires(ctx, scenario, provider, "store")
    if skipped is not None:
        return skipped
    key = f"store:{scenario.id}"
    if key not in ctx.extras:
        ctx.extras[key] = _run_backends(scenario, ctx)
    verdict, reason, fields = ctx.extras[key]
    return result(scenario, provider, verdict, reason, **fields)


def _run_backends(scenario: Scenario, ctx: HarnessContext) -> tuple[str, str, dict[str, Any]]:
    spec = scenario.spec.input
    script = spec.get("script")
    if not isinstance(script, list) or not all(isinstance(s, dict) and "op" in s for s in script):
        raise ScenarioError("input.script must be a list of operations with `op`", where=str(scenario.path))
    backends: tuple[str, ...] = tuple(
        spec.get("backends") or getattr(ctx.runtime, "store_backends", None) or DEFAULT_BACKENDS
    )
    if spec.get("layout") is not None:
        if spec["layout"] != LAYOUT:
            raise ScenarioError(f"input.layout must be {LAYOUT!r}", where=str(scenario.path))
        if LAYOUT not in backends:
            reason = f"runtime {ctx.runtime_name} has no `{LAYOUT}` store backend with the documented data directory"
            return "skipped", reason, {}
        backends = (LAYOUT,)
    passed: list[str] = []
    last: ScenarioResult | None = None
    for backend in backends:
        with tempfile.TemporaryDirectory(prefix="conformance-store-") as tmp:
            res = _run_one(scenario, ctx, backend, Path(tmp))
        if res.verdict != "pass":
            fields = {"expected": res.expected, "actual": res.actual, "diff": res.diff}
            return "fail", f"backend {backend}: {res.reason}", fields
        passed.append(backend)
        last = res
    fields = {} if last is None else {"expected": last.expected, "actual": last.actual}
    return "pass", f"{', '.join(passed)}: matches the expected steps and tree", fields


def _run_one(scenario: Scenario, ctx: HarnessContext, backend: str, directory: Path) -> ScenarioResult:
    provider = "store"
    options = scenario.spec.input.get("options")
    factory: Any = ctx.runtime.store_session
    session = factory(backend, str(directory), options) if options else factory(backend, str(directory))
    names = _Names(directory)
    steps_expected: list[Any] = []
    steps_actual: list[Any] = []
    try:
        for i, step in enumerate(scenario.spec.input["script"]):
            if step["op"] == "tamper":
                _tamper(scenario, directory, names, step, i)
                continue
            if step["op"] == "concurrently":
                failure, seen = _concurrently(scenario, session, names, step, i)
                if failure is not None:
                    return result(scenario, provider, "fail", failure)
                if "expect" in step:
                    steps_expected.append(_as_sets(step["expect"]))
                    steps_actual.append(seen)
                continue
            op = {k: names.ref(v) if k in REF_KEYS else v for k, v in step.items() if k not in ("as", "expect")}
            before = _snapshot(session)
            res = session.apply(op)
            if not isinstance(res, dict):
                return result(
                    scenario, provider, "fail", f"step {i} ({step['op']}): apply returned {type(res).__name__}"
                )
            if "error" in res:
                if _snapshot(session) != before:
                    return result(scenario, provider, "fail", f"step {i} ({step['op']}) failed and changed the store")
                if "expect" not in step:
                    err = names.label(res["error"])
                    return result(scenario, provider, "fail", f"step {i} ({step['op']}) failed: {err}")
            elif "as" in step:
                names.bind(str(step["as"]), res.get("head") or res.get("id"))
            if "expect" in step:
                steps_expected.append(step["expect"])
                steps_actual.append(names.label(res))
        tree = names.label(session.tree()) if _expected_tree(scenario) is not None else None
        actual = {"steps": steps_actual, "tree": tree, "fsck": names.label(session.fsck())}
    finally:
        session.close()
    expected = {"steps": steps_expected, "tree": _expected_tree(scenario), "fsck": _expected_fsck(scenario)}
    actual["fsck"] = sorted(actual["fsck"], key=_violation_key)
    if expected["tree"] is None:
        actual.pop("tree")
        expected.pop("tree")
    return judge(scenario, provider, expected, actual, ctx=ctx, ignore=STORE_IGNORE)


def _snapshot(session: Any) -> Any:
    """The tree, to tell whether a failed step changed the store; a store too corrupt to list
    (an unreadable registry, node or generation file) is its typed error, which must stay the same."""
    try:
        return session.tree()
    except StoreError as exc:
        return {"unreadable": exc.kind, "where": exc.where}
    except RemoteError as exc:  # a runtime program's store raised: its type and message stand for it
        return {"unreadable": exc.remote_type, "message": str(exc)}


def _tamper(scenario: Scenario, directory: Path, names: _Names, step: dict[str, Any], i: int) -> None:
    """Damage planted by the harness in the documented data directory, between two operations."""
    where = f"{scenario.path}: input.script[{i}]"
    kinds = TAMPER_KEYS & set(step)
    if len(kinds) != 1 or not isinstance(step.get("file"), str):
        raise ScenarioError("a tamper step needs `file` and one of json, merge, text", where=where)
    try:
        relative = Path(step["file"].format_map(names.ids))
    except (KeyError, ValueError) as exc:
        raise ScenarioError(f"tamper file {step['file']!r}: unknown name {exc}", where=where) from None
    if relative.is_absolute() or ".." in relative.parts:
        raise ScenarioError(f"tamper file {step['file']!r} must stay inside the store", where=where)
    target = directory / relative
    (kind,) = kinds
    if kind == "text":
        target.write_text(str(step["text"]), encoding="utf-8")
        return
    value = names.refs(step[kind])
    if kind == "merge":
        if not isinstance(value, dict):
            raise ScenarioError("tamper `merge` must be a mapping", where=where)
        value = {**json.loads(target.read_text(encoding="utf-8")), **value}
    target.write_text(json.dumps(value), encoding="utf-8")


def _writers(scenario: Scenario, step: dict[str, Any], i: int) -> list[list[dict[str, Any]]]:
    where = f"{scenario.path}: input.script[{i}]"
    writers = step.get("writers")
    if not isinstance(writers, list) or len(writers) < 2:
        raise ScenarioError("a concurrently step needs `writers`: two lists of operations or more", where=where)
    for k, ops in enumerate(writers):
        if not isinstance(ops, list) or not all(isinstance(o, dict) and "op" in o for o in ops):
            raise ScenarioError(f"writers[{k}] must be a list of operations with `op`", where=where)
        for op in ops:
            if op["op"] in ("tamper", "concurrently") or "expect" in op:
                raise ScenarioError(f"writers[{k}]: {op['op']} with no `expect` is what a writer may do", where=where)
    expect = step.get("expect", {})
    if not isinstance(expect, dict) or not set(expect) <= {"roots", "children"}:
        raise ScenarioError("a concurrently step's `expect` holds `roots` and `children`", where=where)
    return writers


def _concurrently(
    scenario: Scenario, session: Any, names: _Names, step: dict[str, Any], i: int
) -> tuple[str | None, Any]:
    """Run the step's writers at once on `session`: a failure's reason, or what `expect` asks about."""
    writers = _writers(scenario, step, i)
    start = threading.Barrier(len(writers))
    failures: list[str] = []

    def write(k: int) -> None:
        try:
            start.wait()
            for op in writers[k]:
                sent = {key: names.ref(v) if key in REF_KEYS else v for key, v in op.items() if key != "as"}
                res = session.apply(sent)
                if not isinstance(res, dict) or "error" in res:
                    got = names.label(res.get("error")) if isinstance(res, dict) else type(res).__name__
                    failures.append(f"writer {k + 1}: {op['op']} failed under concurrent writes: {got}")
                    return
                if "as" in op:
                    names.bind(str(op["as"]), res.get("id"))
        except Exception as exc:  # the store raised: as a failed write, with its type
            failures.append(f"writer {k + 1}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=write, args=(k,), daemon=True) for k in range(len(writers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(CONCURRENT_WAIT_S)
    if any(thread.is_alive() for thread in threads):
        return f"step {i} (concurrently): a writer did not finish within {CONCURRENT_WAIT_S:g} s", None
    if failures:
        return f"step {i} (concurrently): " + "; ".join(sorted(failures)), None
    seen: dict[str, Any] = {}
    expect = step.get("expect", {})
    if "roots" in expect:
        seen["roots"] = _listed(names, session.tree(), "roots")
    if "children" in expect:
        seen["children"] = {
            name: _listed(names, session.apply({"op": "children", "node": names.ref(name)}), "children")
            for name in dict(expect["children"])
        }
    return None, seen


def _listed(names: _Names, res: Any, key: str) -> Any:
    """The names of the ids a listing answered, sorted; what came instead of a listing, as it came."""
    value = res.get(key) if isinstance(res, dict) else None
    if not isinstance(value, list):
        return names.label(res)
    return sorted(str(v) for v in names.label(value))


def _as_sets(expect: Any) -> Any:
    """A concurrently step's `expect`, each list sorted (compared as a set)."""
    out: dict[str, Any] = {}
    if "roots" in expect:
        out["roots"] = sorted(map(str, expect["roots"]))
    if "children" in expect:
        out["children"] = {str(k): sorted(map(str, v)) for k, v in dict(expect["children"]).items()}
    return out


def _expected_fsck(scenario: Scenario) -> list[Any]:
    expected = scenario.spec.expected or {}
    found = expected.get("fsck", []) if isinstance(expected, dict) else []
    if not isinstance(found, list) or not all(isinstance(v, dict) for v in found):
        raise ScenarioError("expected.fsck must be a list of {kind, where}", where=str(scenario.path))
    return sorted(found, key=_violation_key)


def _violation_key(violation: Any) -> tuple[str, str]:
    if not isinstance(violation, dict):
        return ("", repr(violation))
    return (str(violation.get("kind")), str(violation.get("where")))


def _expected_tree(scenario: Scenario) -> Any:
    expected = scenario.spec.expected or {}
    tree = expected.get("tree") if isinstance(expected, dict) else None
    if tree is None:
        return None
    out = {"roots": tree.get("roots", []), "nodes": [], "bookmarks": tree.get("bookmarks", [])}
    for i, node in enumerate(tree.get("nodes", [])):
        try:
            message = parse_message(node["message"]).model_dump(mode="json", exclude_none=True)
        except (ValidationError, KeyError, TypeError) as exc:
            raise ScenarioError(f"expected.tree.nodes[{i}].message: {exc}", where=str(scenario.path)) from None
        out["nodes"].append({**node, "message": message})
    return out


class _Names:
    """Scenario names ↔ store ids; unnamed ids get `#n` in order of appearance."""

    def __init__(self, directory: Path) -> None:
        self.ids: dict[str, str] = {}
        self.names: dict[str, str] = {}
        self.dirs = (str(directory.resolve()), str(directory))

    def bind(self, name: str, value: Any) -> None:
        if isinstance(value, str):
            self.ids[name] = value
            self.names[value] = name

    def ref(self, value: Any) -> Any:
        """A name → its id; a literal id stays itself (and is shown as itself)."""
        if not isinstance(value, str):
            return value
        if value not in self.ids and _looks_like_id(value):
            self.names.setdefault(value, value)
        return self.ids.get(value, value)

    def refs(self, value: Any) -> Any:
        """Names → ids through a JSON value (a tamper step's content)."""
        if isinstance(value, dict):
            return {k: self.refs(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.refs(v) for v in value]
        return self.ref(value)

    def label(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {self.label(k): self.label(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.label(v) for v in value]
        if isinstance(value, str):
            if value in self.names:
                return self.names[value]
            if _looks_like_id(value):
                self.bind(f"#{len(self.names) + 1}", value)
                return self.names[value]
            for prefix in self.dirs:
                if value.startswith(prefix):
                    return "$DIR" + ID_IN_PATH.sub(lambda m: self.names.get(m[0], m[0]), value[len(prefix) :])
        return value


def _looks_like_id(value: str) -> bool:
    return NODE_ID.fullmatch(value) is not None or ROOT_ID.fullmatch(value) is not None
