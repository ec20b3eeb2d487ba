"""Provider facts live in `capabilities.py`: no other module matches a provider or model-family name.

An AST walk over `src/` finds the fragile kind of branching (`id == "gemini-openai" or
id.startswith("gemini")`, `"dolphin" in model`): a comparison, membership test, `match` case or
`startswith`/`endswith`/`find` against a string constant naming a registered provider, a provider's
family or a model family. Everything else reads a profile flag instead.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.capabilities import provider_names

SRC = Path(__file__).resolve().parents[1] / "src" / "conformance"
ALLOWED = frozenset({"capabilities.py"})
"""The registry: the one module that knows provider names."""
MODEL_FAMILIES = frozenset({"claude", "gpt", "o1", "o3", "o4", "qwen", "llama", "deepseek", "grok", "sonar", "dolphin"})


def _names() -> frozenset[str]:
    names = set(provider_names())
    families = {part for name in names for part in name.replace("-", "_").split("_")}
    return frozenset(names | families | MODEL_FAMILIES) - {"compatible", "responses"}


NAMES = _names()


def _is_name(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.lower().strip("-_/.: ") in NAMES
    )


def matches(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, source) of every match against a provider or model-family name in `tree`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                elements = side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side]
                if any(_is_name(e) for e in elements):
                    yield node.lineno, ast.unparse(node)
                    break
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("startswith", "endswith", "find", "rfind", "index", "count"):
                args = [e for a in node.args for e in (a.elts if isinstance(a, ast.Tuple) else [a])]
                if any(_is_name(a) for a in args):
                    yield node.lineno, ast.unparse(node)
        elif isinstance(node, ast.Match):
            for case in node.cases:
                if any(isinstance(p, ast.MatchValue) and _is_name(p.value) for p in ast.walk(case.pattern)):
                    yield node.lineno, f"match {ast.unparse(node.subject)}: case {ast.unparse(case.pattern)}"


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if p.name not in ALLOWED or p.parent != SRC)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.relative_to(SRC).as_posix())
def test_no_module_but_the_registry_matches_provider_names(path: Path) -> None:
    found = list(matches(ast.parse(path.read_text(encoding="utf-8"))))
    assert not found, "provider-name matching outside capabilities.py (read a profile flag instead): " + "; ".join(
        f"{path.relative_to(SRC)}:{line}: {text}" for line, text in found
    )


@pytest.mark.parametrize(
    "source",
    [
        'is_gemini = id == "gemini-openai" or id.startswith("gemini")',
        'if provider in ("openai", "azure"): pass',
        'if "dolphin" in model: pass',
        'if model.startswith(("claude", "gpt")): pass',
        'match provider:\n    case "anthropic":\n        pass',
        'if profile.name != "groq": pass',
    ],
)
def test_the_walk_finds_the_anti_patterns(source: str) -> None:
    assert list(matches(ast.parse(source)))


@pytest.mark.parametrize(
    "source",
    [
        "if profile.think_tags: pass",
        "if dialect_of(x) == DIALECTS[0]: pass",
        'if kind == "rate_limited": pass',
        'if block["type"] == "function": pass',
    ],
)
def test_profile_flags_and_other_vocabulary_pass(source: str) -> None:
    assert not list(matches(ast.parse(source)))
