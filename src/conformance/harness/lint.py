"""Cassette hygiene: secrets, interactions no scenario plays, cassettes no scenario uses, and
malformed files — each finding with the file and the line.

Secret-like values (see `conformance.secrets`): the key shapes the provider profiles declare (also
where a body spells them with `\\uXXXX` escapes; a key without a prefix, such as Mistral's, only as
a standalone run of letters and digits), bearer tokens, cookies (`set-cookie`, `cookie`: a session is
a credential) and, in headers (`header_credential`): a key used as a header's name, any value of a
header that carries credentials (`api-key`, `authorization: Token …`) that is not a placeholder, a
credential in a `name=value;` pair, 32 hex digits or one high-entropy token outside a header that
names an id. Bodies are
checked for key shapes only, so base64 image data or signatures are not flagged.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.exceptions import CassetteError, ConformanceError
from conformance.fileio import parse_yaml, read_regular
from conformance.replay.cassette import load_cassette
from conformance.replay.faults import fault_kinds
from conformance.scenarios import load_layered
from conformance.secrets import find_key, header_credential, unescape_ascii


@dataclass(frozen=True)
class Finding:
    path: Path
    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.rule}: {self.message}"


COOKIE_HEADERS = frozenset({"set-cookie", "set-cookie2", "cookie"})
"""Headers that carry a session: never kept in a cassette (recording drops them)."""


def _headers(data: object) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if isinstance(data, dict):
        for item in data.get("interactions", []) or []:
            for side in ("request", "response"):
                headers = (item.get(side) or {}).get("headers") or {}
                for name, values in headers.items():
                    out += [(str(name), str(v)) for v in (values if isinstance(values, list) else [values])]
    return out


def lint_file(path: Path, referenced: dict[Path, int] | None, catalogued: bool | None = None) -> list[Finding]:
    """The findings of one cassette. `catalogued`: None for a cassette scenarios play (checked
    against `referenced`), else whether the catalog of the corpus holding it lists it (a corpus
    recording is referenced by its catalog, never by a scenario)."""
    text = read_regular(path).decode("utf-8", errors="replace")
    lines = text.splitlines()

    def line_of(needle: str) -> int:
        for i, line in enumerate(lines, 1):
            if needle in line:
                return i
        return 1

    findings: list[Finding] = []
    for i, line in enumerate(lines, 1):
        if (label := find_key(line)) is not None or (label := find_key(unescape_ascii(line))) is not None:
            findings.append(Finding(path, i, "secret", f"{label} in the cassette"))
    try:
        cassette = load_cassette(path)
    except CassetteError as exc:
        where = exc.where or ""
        at = int(where.rsplit(":", 1)[1]) if re.search(r":\d+$", where) else 1
        findings.append(Finding(path, at, "malformed", str(exc)))
        return findings
    for name, value in _headers(parse_yaml(text)):  # the parser load_cassette used, so it parses
        if name.lower() in COOKIE_HEADERS:
            findings.append(Finding(path, line_of(f"{name}:"), "secret", f"a {name.lower()} header (a session)"))
        elif (why := header_credential(name, value)) is not None:
            needle = name if "header name" in why else value.strip()[:24]
            findings.append(Finding(path, line_of(needle), "secret", why))
    # a corpus recording (catalogued) is real traffic as the server sent it, mislabelled bodies included
    findings += [Finding(path, line_of(f"{s}:"), "body", m) for s, m in _body_findings(cassette, catalogued is None)]
    if catalogued is not None:
        if not catalogued:
            findings.append(Finding(path, 1, "unreferenced", "not in the corpus catalog (catalog.json)"))
    elif referenced is not None:
        plays = referenced.get(path.resolve())
        if plays is None:
            findings.append(Finding(path, 1, "unreferenced", "no scenario uses this cassette"))
        elif plays < len(cassette.interactions):
            findings.append(
                Finding(
                    path,
                    line_of("interactions:"),
                    "unplayed",
                    f"{len(cassette.interactions)} interactions, but its scenario plays {plays}",
                )
            )
    return findings


NO_BODY = frozenset({202, 204, 205, 304})
"""Statuses whose answer may carry no body whatever its content type says."""


def _body_findings(cassette: Any, wanted: bool = True) -> list[tuple[str, str]]:
    """(side, message) for each body that does not parse as its content type says (none unless `wanted`)."""
    out: list[tuple[str, str]] = []
    if not wanted:
        return out
    try:
        endings = fault_kinds(cassette.meta, len(cassette.interactions), str(cassette.path))
    except ConformanceError:
        endings = ["clean_end"] * len(cassette.interactions)  # a malformed fault is reported on its own
    for n, (it, ending) in enumerate(zip(cassette.interactions, endings, strict=True), 1):
        whole = it.response.status not in NO_BODY and ending == "clean_end"  # a dropped body is cut on purpose
        for side, headers, body in (
            ("request", it.request.headers, it.request.body),
            ("response", it.response.headers, it.response.body if whole else None),
        ):
            if (why := _body_problem(headers, body, side)) is not None:
                out.append((side, f"interaction {n}: the {side} {why}"))
    return out


def _body_problem(headers: dict[str, list[str]], body: bytes | None, side: str) -> str | None:
    """Why a body does not parse as its `content-type` says (JSON types only: `application/json`,
    `*+json`), or None. An absent request body is allowed (a cassette may leave the request out)."""
    types = [v for k, vs in headers.items() if k.lower() == "content-type" for v in vs]
    kind = types[0].split(";")[0].strip().lower() if types else ""
    if not (kind == "application/json" or kind.endswith("+json")):
        return None
    if body is None:  # an absent request body (a cassette may leave it out), or a status without one
        return None
    if not body or not body.strip():
        return f"says {kind} but its body is empty"
    try:
        json.loads(body)
    except ValueError as exc:
        return f"says {kind} but its body is not JSON ({exc.__class__.__name__}: {str(exc).splitlines()[0][:80]})"
    return None


def referenced_cassettes(root: Path, layers: tuple[Path, ...] = ()) -> dict[Path, int]:
    """Cassette → how many interactions its scenario plays (decode, agent: 1; retry, context: all of
    them); with `layers` (bottom first, `root` on top), every layer's scenarios, cassettes looked up top down."""
    out: dict[Path, int] = {}
    from conformance.capabilities import provider_names

    for scenario in load_layered(layers or (root,)):
        if scenario.check not in ("decode", "retry", "context", "agent"):
            continue
        for provider in provider_names():
            entry = scenario.entry(provider)
            if entry is not None and entry.unsupported:
                continue  # a provider that cannot have the feature plays no cassette
            path = scenario.cassette_path(provider, root)
            if path.is_file():
                plays = 1 if scenario.check in ("decode", "agent") else 10**6
                out[path.resolve()] = plays
    return out


def lint(paths: list[Path], root: Path | None, layers: tuple[Path, ...] = ()) -> list[Finding]:
    referenced: dict[Path, int] | None = None
    if root is not None and (root / "scenarios").is_dir():
        try:
            referenced = referenced_cassettes(root, layers)
        except ConformanceError:
            referenced = None
    files: list[Path] = []
    for path in paths:
        files += sorted(path.rglob("*.yaml")) if path.is_dir() else [path]
    findings: list[Finding] = []
    catalogs: dict[Path, frozenset[Path] | None] = {}
    for file in files:
        findings += lint_file(file, referenced, _catalogued(file, catalogs))
    return findings


def _catalogued(file: Path, catalogs: dict[Path, frozenset[Path] | None]) -> bool | None:
    """Whether the corpus holding `file` lists it in its `catalog.json`; None when no folder above
    `file` holds a catalog (a cassette of scenarios). `catalogs` caches each folder's listing."""
    for folder in file.resolve().parents:
        if folder not in catalogs:
            catalogs[folder] = _catalog_paths(folder)
        listed = catalogs[folder]
        if listed is not None:
            return file.resolve() in listed
    return None


def _catalog_paths(folder: Path) -> frozenset[Path] | None:
    """The files `folder/catalog.json` lists (its entries' `path`s; lint needs no other field), or
    None when the folder has no catalog or it is not a list of entries."""
    catalog = folder / "catalog.json"
    if not catalog.is_file():
        return None
    try:
        entries = json.loads(read_regular(catalog))
    except (ConformanceError, OSError, ValueError):
        return None
    if not isinstance(entries, list):
        return None
    paths = [e["path"] for e in entries if isinstance(e, dict) and isinstance(e.get("path"), str)]
    return frozenset((folder / p).resolve() for p in paths)
