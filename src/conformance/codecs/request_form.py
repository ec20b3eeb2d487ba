"""Requests compared as a provider reads them: a wire body read into its canonical form under the
dialect's table of equivalences, and what still differs as typed request findings.

A dialect's `request_reader` module holds a `RequestTable`: every entry cites the provider document
it comes from. Reading a body applies the table once, copying only the objects it changes:

- `defaults`: an explicit value the provider documents as its default reads as the key left out
  (`"stream": false`), optionally only when another top-level key is present (`tool_choice: "auto"`
  with `tools`);
- `renames`: an alternative spelling of a key the provider accepts (`max_tokens` for
  `max_completion_tokens`);
- `values`: alternative spellings of a value (`developer` for `system`);
- `text_blocks`: a string where the provider takes a list of text blocks (Anthropic `system`);
- `path_aliases`: API-version prefixes the provider serves alike (`/v1/` for `/v1beta/`);
- `proto_names`: the proto3 JSON mapping, where the provider parses protobuf JSON (Gemini): every
  field name is read alike in snake_case and lowerCamelCase (`system_instruction` ≡
  `systemInstruction`), except inside free-form objects (`functionCall.args`, property names);
- `delivery`: top-level keys that choose how the same answer is delivered (`stream`,
  `stream_options`), not what the model reads: where the caller asked for no particular delivery,
  a difference in them is a note.

Key order never matters (JSON objects compare as mappings). The canonical body is then split into
conversation, tools and options. Every remaining difference is a `RequestFinding`: `fail` when the
provider would reject the actual request (a field its rule book says it refuses,
`codecs.rulebook`) or read a different request; `note` for the table's `informational` keys, which
change nothing the model reads (`metadata`, `user`, caching hints), for what the rule book says
the provider ignores, and for values the provider corrects on its own.

Paths in patterns are dot-joined keys with `*` for any list index (`messages.*.content`).
"""

from __future__ import annotations

import base64
import binascii
import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict

from conformance.capabilities import BuiltinDialect, ProviderProfile, get_profile, provider_names
from conformance.codecs.endpoints import GENERATION
from conformance.codecs.rulebook import rule_book

FindingVerdict = Literal["fail", "note"]


@dataclass(frozen=True)
class Default:
    """`path` set to `value` reads as `path` left out (when `when` is set: only if that top-level key is present)."""

    path: str
    value: Any
    source: str
    when: str | None = None


@dataclass(frozen=True)
class Rename:
    """`path` is another spelling of `to` (the key in the same object); when `when` names a
    `ProviderProfile` flag, only for the providers whose profile sets it."""

    path: str
    to: str
    source: str
    when: str | None = None


@dataclass(frozen=True)
class ValueAlias:
    """At `path`, the value `spelled` reads as `means` (when `when` names a `ProviderProfile` flag:
    only for the providers whose profile sets it, e.g. the ones that document the alias)."""

    path: str
    spelled: Any
    means: Any
    source: str
    when: str | None = None


@dataclass(frozen=True)
class TextBlocks:
    """At `path`, a string reads as one block `{"type": block_type, key: string}` in a list."""

    path: str
    source: str
    block_type: str = "text"
    key: str = "text"


@dataclass(frozen=True)
class PathAlias:
    """A URL path containing `spelled` is served as the one containing `means`."""

    spelled: str
    means: str
    source: str


@dataclass(frozen=True)
class RequestTable:
    """A dialect's equivalences and how its top-level keys split into conversation, tools and options."""

    dialect: str
    conversation: frozenset[str]
    tools: frozenset[str]
    defaults: tuple[Default, ...] = ()
    renames: tuple[Rename, ...] = ()
    values: tuple[ValueAlias, ...] = ()
    text_blocks: tuple[TextBlocks, ...] = ()
    path_aliases: tuple[PathAlias, ...] = ()
    informational: Mapping[str, str] = field(default_factory=dict)
    """Keys that change nothing the model reads, with the document saying so: top-level keys, or
    dotted patterns with `*` for any list index (`messages.*.content.*.cache_control`)."""
    delivery: Mapping[str, str] = field(default_factory=dict)
    """Top-level keys that choose how the answer is delivered (a stream or one body), with the
    document saying so: a difference there changes the framing of the answer, never its content."""
    stream_addresses: tuple[PathAlias, ...] = ()
    """Where the address, not the body, asks for a stream: a path containing `spelled` asks for the
    answer of the path containing `means`, streamed (Gemini's `:streamGenerateContent`)."""
    stream_query: tuple[tuple[str, str], ...] = ()
    """Query parameters that choose the stream's framing on such an address (`alt=sse`)."""
    token_limit_at: str = ""
    """The object that holds the output-token limit (`generationConfig`); empty: the body itself."""
    proto_names: str = ""
    """The source saying the provider parses proto3 JSON (either spelling of a field name); empty: no."""
    free_form: tuple[str, ...] = ()
    """Where `proto_names` holds: keys whose objects are data, not fields (their keys are kept as
    sent): the last key of a path (`args`, `properties`)."""
    bytes_fields: tuple[tuple[str, str], ...] = ()
    """(path, source) of fields holding bytes as base64 that the provider reads in either alphabet,
    padded or not (proto3 JSON): compared by the bytes they hold."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "_bytes", {path for path, _ in self.bytes_fields})
        object.__setattr__(self, "_defaults", {d.path: d for d in self.defaults})
        object.__setattr__(self, "_scoped", {})
        object.__setattr__(self, "_blocks", {t.path: t for t in self.text_blocks})

    def rules(self) -> list[tuple[str, str, str]]:
        """(kind, what, source) of every entry: for docs and reports."""
        out: list[tuple[str, str, str]] = []
        out += [
            ("default", f"{d.path} = {d.value!r}" + (f" (with {d.when})" if d.when else ""), d.source)
            for d in self.defaults
        ]
        out += [
            ("spelling", f"{r.path} ≡ {r.to}" + (f" (where {r.when})" if r.when else ""), r.source)
            for r in self.renames
        ]
        out += [
            ("spelling", f"{v.path}: {v.spelled!r} ≡ {v.means!r}" + (f" (where {v.when})" if v.when else ""), v.source)
            for v in self.values
        ]
        out += [("string ≡ one block", t.path, t.source) for t in self.text_blocks]
        out += [("API version", f"{p.spelled} ≡ {p.means}", p.source) for p in self.path_aliases]
        out += [("informational", key, src) for key, src in self.informational.items()]
        out += [("delivery", key, src) for key, src in self.delivery.items()]
        out += [("stream address", f"{a.spelled} ≡ {a.means}, streamed", a.source) for a in self.stream_addresses]
        if self.proto_names:
            out.append(("spelling", "snake_case field names ≡ lowerCamelCase (proto3 JSON)", self.proto_names))
        out += [
            ("spelling", f"{path}: standard ≡ URL-safe base64, padded or not", src) for path, src in self.bytes_fields
        ]
        return out

    def named(self, body: Any) -> Any:
        """`body` with every field name in the spelling the table's other entries use (proto3 JSON:
        lowerCamelCase); the body itself when nothing is renamed."""
        if not self.proto_names or not isinstance(body, dict):
            return body
        return _camel(body, self.free_form)

    def asks_stream(self, body: Any) -> bool:
        """Whether a request body asks for a stream: its `stream`, else the provider's documented default."""
        default: Default | None = self._defaults.get("stream")  # type: ignore[attr-defined]
        value = body.get("stream", default.value if default is not None else False) if isinstance(body, dict) else False
        return value is True

    def informational_at(self, path: str) -> str | None:
        """The source saying a difference at `path` (`messages[2].content[0].cache_control`) changes
        nothing the model reads, or None."""
        top = path.split(".", 1)[0].split("[", 1)[0]
        if top in self.informational:
            return self.informational[top]
        pattern = _INDEX.sub(".*", path)
        for key, source in self.informational.items():
            if "." in key and (pattern == key or pattern.startswith(key + ".")):
                return source
        return None

    def unstreamed_address(
        self, path: str, query: tuple[tuple[str, str], ...]
    ) -> tuple[str, tuple[tuple[str, str], ...]] | None:
        """The address whose answer a stream address asks for (path, query without the framing
        parameters), or None when `path` is no stream address."""
        for alias in self.stream_addresses:
            if alias.spelled in path:
                kept = tuple(pair for pair in query if pair not in self.stream_query)
                return path.replace(alias.spelled, alias.means, 1), kept
        return None

    def canonical_path(self, path: str) -> str:
        for alias in self.path_aliases:
            if alias.spelled in path:
                return path.replace(alias.spelled, alias.means, 1)
        return path

    def canonical_body(self, body: Any, profile: ProviderProfile | None = None) -> Any:
        """The body as `profile`'s provider reads it (objects the table changes are copied; the rest
        shared). Without a profile, only the aliases that hold for every provider apply."""
        if not isinstance(body, dict):
            return body
        body = self.named(body)
        return _read(self, body, "", body, self._spellings(profile))

    def _spellings(self, profile: ProviderProfile | None) -> _Spellings:
        """The renames and value aliases that hold for `profile` (cached per set of profile flags)."""
        scoped_rules: list[Rename | ValueAlias] = [*self.renames, *self.values]
        flags = tuple(sorted({r.when for r in scoped_rules if r.when and getattr(profile, r.when, False)}))
        cache: dict[tuple[str, ...], _Spellings] = self._scoped  # type: ignore[attr-defined]
        if flags not in cache:
            renames = {r.path: r.to for r in self.renames if r.when is None or r.when in flags}
            values: dict[str, dict[Any, Any]] = {}
            for v in self.values:
                if v.when is None or v.when in flags:
                    values.setdefault(v.path, {})[v.spelled] = v.means
            cache[flags] = _Spellings(renames, values)
        return cache[flags]


def _camel_key(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest) if rest and head else key


def _camel(value: Any, free_form: tuple[str, ...], data: bool = False) -> Any:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            name = key if data else _camel_key(key)
            if name in out and name != key:
                name = key  # both spellings sent: keep both as they are
            keep = name in free_form and not data
            out[name] = item if keep else _camel(item, free_form, data=name == "properties" and not data)
        return out
    if isinstance(value, list):
        return [_camel(item, free_form) for item in value]
    return value


@dataclass(frozen=True)
class _Spellings:
    renames: dict[str, str]
    values: dict[str, dict[Any, Any]]


def _read(table: RequestTable, value: Any, pattern: str, root: dict[str, Any], spell: _Spellings) -> Any:
    if isinstance(value, dict):
        renames = spell.renames
        defaults: dict[str, Default] = table._defaults  # type: ignore[attr-defined]
        out: dict[str, Any] = {}
        for key, item in value.items():
            path = f"{pattern}.{key}" if pattern else key
            to = renames.get(path)
            if to is not None and to not in value:
                key, path = to, (f"{pattern}.{to}" if pattern else to)
            read = _read(table, item, path, root, spell)
            default = defaults.get(path)
            if default is not None and read == default.value and (default.when is None or default.when in root):
                continue
            out[key] = read
        return out
    if isinstance(value, list):
        star = f"{pattern}.*"
        return [_read(table, item, star, root, spell) for item in value]
    block: TextBlocks | None = table._blocks.get(pattern)  # type: ignore[attr-defined]
    if block is not None and isinstance(value, str):
        return [{"type": block.block_type, block.key: value}]
    aliases = spell.values.get(pattern)
    if aliases is not None and isinstance(value, str | int | float | bool) and value in aliases:
        return aliases[value]
    if isinstance(value, str) and pattern in table._bytes:  # type: ignore[attr-defined]
        if aliases is not None and value in aliases.values():
            return value  # a value an alias reads to (a sentinel written as text) is no base64
        return _standard_base64(value)
    return value


def _standard_base64(value: str) -> str:
    """`value` as padded standard base64 of the bytes it holds (either alphabet, padded or not); as
    it is when it is no base64."""
    try:
        data = base64.b64decode(value.replace("-", "+").replace("_", "/") + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return value
    return base64.b64encode(data).decode()


class CanonicalRequest(BaseModel):
    """A request as the provider reads it: the conversation, the tools offered, the options."""

    model_config = ConfigDict(frozen=True)

    conversation: dict[str, Any]
    tools: dict[str, Any]
    options: dict[str, Any]


def read_request(table: RequestTable, body: Any) -> CanonicalRequest:
    """Wire body → canonical request under the table (a body that is not an object is all options)."""
    if not isinstance(body, dict):
        return CanonicalRequest(conversation={}, tools={}, options={"body": body})
    read = table.canonical_body(body)
    conv = {k: v for k, v in read.items() if k in table.conversation}
    tools = {k: v for k, v in read.items() if k in table.tools}
    options = {k: v for k, v in read.items() if k not in table.conversation and k not in table.tools}
    return CanonicalRequest(conversation=conv, tools=tools, options=options)


class RequestFinding(BaseModel):
    """One way the runtime's request differs from the expected one, as the provider would read it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str
    """Where in the body (`messages[1].content`, `tools`, `max_completion_tokens`)."""
    expected: Any = None
    actual: Any = None
    verdict: FindingVerdict
    """`fail`: the provider would reject or misread the request; `note`: it reads it the same."""
    fact: str
    """Why: the provider fact (what it answers, what it reads) behind the verdict."""
    source: str = ""
    """Where that fact comes from: a provider document (URL and the quoted sentence), a real recorded
    4xx (its recording and message) or a real recorded 2xx. Empty: unsourced, a note that never
    fails a row."""


_TABLES: dict[str, RequestTable] = {}


def register_request_table(table: RequestTable) -> None:
    """Make a dialect's request table available (a registered codec's dialect, or a replacement)."""
    _TABLES[table.dialect] = table


def request_table(dialect: str) -> RequestTable:
    """The dialect's table (built-in dialects' are imported on first use; unknown: no equivalences)."""
    table = _TABLES.get(dialect)
    if table is None:
        if dialect in get_args(BuiltinDialect):
            module = importlib.import_module(f"conformance.codecs.{dialect}.request_reader")
            table = module.TABLE
        else:
            table = RequestTable(dialect=dialect, conversation=frozenset(), tools=frozenset())
        _TABLES[dialect] = table
    return table


def _path(parts: list[Any]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _differences(a: Any, b: Any, parts: list[Any], out: list[tuple[str, Any, Any]]) -> None:
    if a == b:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a.keys() | b.keys():
            _differences(a.get(key, _ABSENT), b.get(key, _ABSENT), [*parts, key], out)
        return
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _differences(x, y, [*parts, i], out)
        return
    out.append((_path(parts), None if a is _ABSENT else a, None if b is _ABSENT else b))


_ABSENT = object()
_INDEX = re.compile(r"\[\d+\]")


def request_findings(
    profile: ProviderProfile, expected: Any, actual: Any, *, delivery_free: bool = False
) -> list[RequestFinding]:
    """What differs between the expected and the actual body once both are read as the provider reads them.

    `delivery_free`: the caller asked for no particular delivery, so a difference in the table's
    `delivery` keys (a stream where one body was expected, or the reverse) is a note."""
    table = request_table(profile.dialect)
    book = rule_book(profile.dialect)
    findings: list[RequestFinding] = []
    model = actual.get("model") if isinstance(actual, dict) and isinstance(actual.get("model"), str) else None
    if isinstance(actual, dict):
        for key, rule in book.rejected_fields(profile, model).items():
            if key in actual and not (isinstance(expected, dict) and key in expected):
                verdict: FindingVerdict = "fail" if rule.sourced else "note"
                fact = f"{profile.name} {rule.does}"
                findings.append(
                    RequestFinding(path=key, actual=actual[key], verdict=verdict, fact=fact, source=rule.source_text())
                )
    exp = table.canonical_body(expected, profile)
    act = table.canonical_body(actual, profile)
    if exp == act:
        return findings
    diffs: list[tuple[str, Any, Any]] = []
    _differences(exp, act, [], diffs)
    rejected = {f.path for f in findings}
    for path, want, got in sorted(diffs, key=lambda d: d[0]):
        top = path.split(".", 1)[0].split("[", 1)[0]
        if top in rejected:
            continue
        note = table.informational_at(path)
        if note is None and delivery_free:
            note = table.delivery.get(top)
        ignored = book.ignored_at(_INDEX.sub(".*", path), profile, model) if note is None else None
        if ignored is not None:
            fact = f"{profile.name} {ignored.does}"
            findings.append(
                RequestFinding(
                    path=path, expected=want, actual=got, verdict="note", fact=fact, source=ignored.source_text()
                )
            )
        elif note is not None:
            findings.append(RequestFinding(path=path, expected=want, actual=got, verdict="note", fact=note))
        else:
            part = "conversation" if top in table.conversation else "tools" if top in table.tools else "options"
            fact = f"{profile.name} reads a different request ({part})"
            findings.append(RequestFinding(path=path, expected=want, actual=got, verdict="fail", fact=fact))
    return findings


def failing(findings: list[RequestFinding]) -> list[RequestFinding]:
    return [f for f in findings if f.verdict == "fail"]


def render_findings(findings: list[RequestFinding], limit: int = 12) -> str:
    lines = [
        f"  {f.verdict} {f.path}: {f.fact}"
        if f.expected is None and f.actual is None
        else f"  {f.verdict} {f.path}: expected {f.expected!r}, got {f.actual!r} ({f.fact})"
        for f in findings[:limit]
    ]
    if len(findings) > limit:
        lines.append(f"  … {len(findings) - limit} more")
    return "\n".join(lines)


def profile_for_uri(uri: str) -> ProviderProfile | None:
    """The provider a recorded request was sent to: the dialect from its path, the provider from its
    host (the dialect's first provider when no registered one has that host); None off every dialect."""
    parts = urlsplit(uri)
    dialects = [d for d, pattern in GENERATION.items() if pattern.search(parts.path)]
    if not dialects:
        return None
    profiles = [get_profile(n) for n in provider_names()]
    same = [p for p in profiles if p.dialect in dialects]
    host = (parts.hostname or "").lower()
    for profile in same:
        if (urlsplit(profile.base_url).hostname or "").lower() == host:
            return profile
    return same[0] if same else None
