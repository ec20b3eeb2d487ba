"""Imports run one way: a module imports only from its own layer or the layers below it.

Function-local imports count too (they are how cycles hide). The order, lowest first:
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "conformance"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("exceptions", "jsonvalue", "fileio", "data"),
    ("model",),
    ("wire",),
    ("capabilities", "secrets"),
    ("codecs",),
    ("runtime", "store"),
    ("compare",),
    ("replay",),
    ("adapters",),
    ("scenarios",),
    ("evidence",),
    ("report",),
    ("strategies",),
    ("harness",),
    ("emulator",),
    ("commands", "pytest_plugin", "pytest_workers", "cli", "__main__"),
)
RANK = {unit: i for i, layer in enumerate(LAYERS) for unit in layer}

REFERENCE_FREE = ("harness",)
"""Layers whose checks judge the runtime under test: they never reach for the reference runtime."""


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "conformance"


def _imports(path: Path) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
    return [(line, name) for line, name in out if name.startswith("conformance.") or name == "conformance"]


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if p.name != "__init__.py" or p.parent != SRC)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.relative_to(SRC).as_posix())
def test_imports_run_one_way(path: Path) -> None:
    own = _unit("conformance." + ".".join(path.relative_to(SRC).with_suffix("").parts))
    assert own in RANK, f"{own} is in no layer: add it to LAYERS"
    wrong = []
    for line, name in _imports(path):
        target = _unit(name)
        if name == "conformance.__version__" or target == own:
            continue
        if target not in RANK:
            wrong.append(f"line {line}: {name} (in no layer)")
        elif RANK[target] > RANK[own]:
            wrong.append(f"line {line}: {name} ({target} sits above {own})")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    "path",
    [p for p in _modules() if _unit("conformance." + ".".join(p.relative_to(SRC).parts[:1])) in REFERENCE_FREE],
    ids=lambda p: p.relative_to(SRC).as_posix(),
)
def test_checks_never_reach_for_the_reference_runtime(path: Path) -> None:
    """A check judges the runtime under test; the reference is used only when it is that runtime."""
    used = [f"line {line}: {name}" for line, name in _imports(path) if name.startswith("conformance.runtime.reference")]
    allowed = path.name in ("record.py", "sync.py")  # recording builds requests; it judges nothing
    assert allowed or not used, "\n".join(used)


def _module_graph() -> dict[str, set[str]]:
    """Module → the package modules it imports (a name imported from a package counts as its submodule
    when there is one, else as the package itself)."""
    names = {
        ".".join(("conformance", *p.relative_to(SRC).with_suffix("").parts)).removesuffix(".__init__"): p
        for p in SRC.rglob("*.py")
    }
    graph: dict[str, set[str]] = {name: set() for name in names}
    for name, path in names.items():
        for _, imported in _imports(path):
            target = imported if imported in names else imported.rpartition(".")[0]
            if target in names and target != name:
                graph[name].add(target)
    return graph


def test_no_import_cycles_within_a_layer() -> None:
    """The layers order units; inside a unit, modules import one way too (a loop never imports the
    façade that wraps it). Function-local imports count."""
    graph = _module_graph()
    done: set[str] = set()
    cycles: list[str] = []

    def visit(node: str, path: list[str]) -> None:
        if node in path:
            cycles.append(" → ".join([*path[path.index(node) :], node]))
            return
        if node in done:
            return
        for nxt in sorted(graph[node]):
            visit(nxt, [*path, node])
        done.add(node)

    for start in sorted(graph):
        visit(start, [])
    assert not cycles, "\n".join(cycles[:5])
