"""Rewrite the `overrides:` section of scenario files for people: block style, and providers whose
override is the same sharing one key (`openrouter, xai, groq:`).

Only the `overrides:` section of a file is rewritten (the rest, comments included, stays as it is),
and a file is written only when every provider's expected form is the same before and after.

    python scripts/tidy_overrides.py [--write] [scenarios/]

Without `--write` it lists the files it would change.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from conformance.capabilities import provider_names
from conformance.scenarios.loader import _load_scenario, override_providers

TOP_KEY = re.compile(r"^[A-Za-z_][\w-]*:")


class _NoAliases(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def _section(lines: list[str]) -> tuple[int, int] | None:
    """The line range of the top-level `overrides:` section, or None."""
    start = next((i for i, line in enumerate(lines) if line.startswith("overrides:")), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if TOP_KEY.match(lines[i])), len(lines))
    return start, end


def _grouped(overrides: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    keys: dict[str, list[str]] = {}
    for key, value in overrides.items():
        if len(override_providers(key)) > 1:
            out[key] = value
            continue
        signature = yaml.safe_dump(value, sort_keys=True)
        keys.setdefault(signature, []).append(key)
        out.setdefault(signature, value)
    return {(", ".join(keys[k]) if k in keys else k): v for k, v in out.items()}


def tidy(path: Path) -> str | None:
    """The tidied text of `path`, or None when nothing changes."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    span = _section(lines)
    if span is None:
        return None
    start, end = span
    trailing = [line for line in lines[start:end] if line.strip().startswith("#")]
    overrides = (yaml.safe_load(text) or {}).get("overrides") or {}  # the whole file: anchors resolve
    block = yaml.dump(
        {"overrides": _grouped(overrides)},
        Dumper=_NoAliases,
        sort_keys=False,
        allow_unicode=True,
        width=100,
        default_flow_style=False,
    )
    new = "".join(lines[:start]) + "".join(trailing) + block + "".join(lines[end:])
    if new == text:
        return None
    before, after = _load_scenario(path, None), None
    path_new = path.with_name(f".{path.name}.tidy")
    path_new.write_text(new, encoding="utf-8")
    try:
        after = _load_scenario(path_new, None)
    finally:
        path_new.unlink()
    for provider in provider_names():
        if before.expected_for(provider) != after.expected_for(provider):
            raise SystemExit(f"{path}: tidying would change {provider}'s expected form; left as it is")
    return new


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", nargs="?", default="scenarios")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    changed = 0
    for path in sorted(Path(args.root).rglob("*.yaml")):
        new = tidy(path)
        if new is None:
            continue
        changed += 1
        if args.write:
            path.write_text(new, encoding="utf-8")
        print(("tidied " if args.write else "would tidy ") + str(path))
    print(f"{changed} file(s) {'tidied' if args.write else 'to tidy'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
