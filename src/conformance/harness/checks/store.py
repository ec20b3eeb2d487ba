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
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from conformance.compare import ScenarioResult
from conformance.exceptions import ScenarioError
from conformance.harness.context import HarnessContext, judge, requires, result
from conformance.model import parse_message
from conformance.scenarios import Scenario
from conformance.store.ids import NODE_ID, ROOT_ID

DEFAULT_BACKENDS: tuple[str, ...] = ("files", "sqlite")
REF_KEYS = frozenset({"node", "parent", "root"})
STORE_IGNORE = ("steps[*].error.message", "fsck[*].detail")


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
            op = {k: names.ref(v) if k in REF_KEYS else v for k, v in step.items() if k not in ("as", "expect")}
            before = session.tree()
            res = session.apply(op)
            if not isinstance(res, dict):
                return result(
                    scenario, provider, "fail", f"step {i} ({step['op']}): apply returned {type(res).__name__}"
                )
            if "error" in res:
                if session.tree() != before:
                    return result(scenario, provider, "fail", f"step {i} ({step['op']}) failed and changed the store")
                if "expect" not in step:
                    err = names.label(res["error"])
                    return result(scenario, provider, "fail", f"step {i} ({step['op']}) failed: {err}")
            elif "as" in step:
                names.bind(str(step["as"]), res.get("head") or res.get("id"))
            if "expect" in step:
                steps_expected.append(step["expect"])
                steps_actual.append(names.label(res))
        actual = {"steps": steps_actual, "tree": names.label(session.tree()), "fsck": names.label(session.fsck())}
    finally:
        session.close()
    expected = {"steps": steps_expected, "tree": _expected_tree(scenario), "fsck": []}
    if expected["tree"] is None:
        actual.pop("tree")
        expected.pop("tree")
    return judge(scenario, provider, expected, actual, ctx=ctx, ignore=STORE_IGNORE)


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
                    return "$DIR" + value[len(prefix) :]
        return value


def _looks_like_id(value: str) -> bool:
    return NODE_ID.fullmatch(value) is not None or ROOT_ID.fullmatch(value) is not None
