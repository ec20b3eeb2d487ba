"""Authored cassettes held to real traffic: every response shape an authored cassette replays is
looked up among the shapes the real recordings of the same column (provider profile, hence API)
show.

A shape is one of:

- a JSON object in a body, an SSE event's data or an NDJSON line: its context (`json`, `sse:<event
  type>`, `ndjson`, or `error` for a status >= 400), its JSON path with list indices collapsed
  (`$.choices[].delta.tool_calls[]`) and its key set (`{function,id,index}`). Objects whose keys
  are the caller's (tool arguments, schemas, metadata: `OPAQUE_KEYS`) are not walked into;
- a data line that is not JSON (`data: [DONE]`): its context and the text;
- a step of an SSE stream's event-type order (`sse-order`, `message_start > content_block_start`,
  with `^` the start and `$` the end of the stream);
- for an error: its status (`error status 503`) and which of the headers a client reads to decide
  on a retry it carries (`error headers {retry-after}`).

An authored shape no real recording shows is accepted when the cassette's `meta.sources` cites
where it comes from: a list of `{url, quote, shapes}` (the doc address, the quoted sentence or
example, and optionally the shapes it covers, each a prefix of the printed shape; without `shapes`
the source covers every shape of the cassette). Columns with no real recording are "authored only".
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from conformance.capabilities import get_profile, provider_names
from conformance.codecs.endpoints import skip_reason
from conformance.evidence.corpus import API_DIALECTS, DIALECT_PROFILES, profile_for, read_catalog, read_entry
from conformance.exceptions import CassetteError, WireFormatError
from conformance.replay.cassette import cassette_evidence, load_cassette
from conformance.wire.ndjson import parse_ndjson
from conformance.wire.sse import SSEDecoder

Shape = tuple[str, str, str]
"""(context, JSON path or what is described, key set or value)."""

THRESHOLD = 0.9
"""The share of a column's authored shapes that must be seen in real traffic or cited."""

OPAQUE_KEYS = frozenset({"input", "args", "arguments", "partialArgs", "parameters", "properties", "schema", "metadata"})
"""Keys whose object value is the caller's (tool arguments, JSON schemas, request metadata)."""

RETRY_HEADERS = ("retry-after", "retry-after-ms", "x-should-retry")
"""The headers of an error response a client reads to decide whether and when to retry."""

_LIFECYCLE = ("created", "queued", "in_progress", "completed", "failed", "incomplete")

SAME_OBJECT: dict[str, tuple[tuple[str, str, str], ...]] = {
    "gemini": (("json", "$", "$"), ("sse:message", "$", "$"), ("error", "$", "$")),
    "openai_responses": (
        ("json", "$", "$"),
        *((f"sse:response.{event}", "$.response", "$") for event in _LIFECYCLE),
        ("sse:response.output_item.done", "$.item", "$.output[]"),
        ("sse:response.content_part.done", "$.part", "$.output[].content[]"),
    ),
    "ollama": (("json", "$", "$"), ("ndjson", "$", "$"), ("error", "$", "$")),
    "openai_chat": (
        ("json", "$.choices[].message.tool_calls[]", "$.tool_call"),
        ("sse:message", "$.choices[].delta.tool_calls[]", "$.tool_call"),
        ("json", "$.usage", "$.usage"),
        ("sse:message", "$.usage", "$.usage"),
        ("error", "$", "$"),
        ("sse:message", "$", "$"),
    ),
}
"""Per dialect, where one object type appears in several contexts: (context, the path it sits at,
the path it has in the whole object). Each event of a Gemini stream is a `GenerateContentResponse`
(or the `{error}` status an error body is); every lifecycle event of a Responses stream carries the
Response object a non-streamed call returns, and a finished output item or content part is the one
the Response lists; in Chat Completions a tool call a chunk carries whole is the one a whole
message lists, the last chunk's usage is the usage a whole completion has, and an error event is
the body an error response has; an Ollama stream line is the chat response a whole call returns
(or the `{error}` body of an error). An authored object is seen when real traffic shows the same
object type with the same keys at the same place, in whichever context."""


def same_object(dialect: str, shape: Shape) -> tuple[str, str] | None:
    """The (path in the whole object, key set) of a shape inside one of `dialect`'s shared object
    types; None for a shape of an event or stream of its own."""
    context, path, keys = shape
    for where, prefix, whole in SAME_OBJECT.get(dialect, ()):
        if context == where and (path == prefix or path.startswith((prefix + ".", prefix + "[", prefix + '["'))):
            return whole + path[len(prefix) :], keys
    return None


CUT_FEATURES = frozenset({"stream_truncated", "stream_cancel"})
"""Scenario features whose wire ends mid-stream on purpose: the end of the stream, a last frame cut
in half and a JSON body cut in half are the fault being replayed, not a shape of the provider's."""

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def show(shape: Shape) -> str:
    return " ".join(part for part in shape if part)


def _keys(obj: dict[str, Any]) -> str:
    return "{" + ",".join(sorted(obj)) + "}"


def json_shapes(value: Any, context: str, path: str = "$") -> Iterator[Shape]:
    """The (context, path, key set) of every object in `value`."""
    if isinstance(value, dict):
        yield (context, path, _keys(value))
        for key, item in value.items():
            if key in OPAQUE_KEYS and isinstance(item, dict):
                continue
            sub = f"{path}.{key}" if _IDENT.match(key) else f'{path}["{key}"]'
            yield from json_shapes(item, context, sub)
    elif isinstance(value, list):
        for item in value:
            yield from json_shapes(item, context, path + "[]")


def _loads(data: bytes | str) -> tuple[bool, Any]:
    try:
        return True, orjson.loads(data)
    except orjson.JSONDecodeError:
        return False, None


def _text(data: str) -> str:
    text = data.strip()
    return text if len(text) <= 16 else "<text>"


def _is_sse(headers: dict[str, str], body: bytes) -> bool:
    kind = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
    head = body.lstrip()[:6]
    return "event-stream" in kind or head.startswith((b"data:", b"event:", b":"))


def _is_ndjson(headers: dict[str, str], body: bytes) -> bool:
    kind = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
    return "ndjson" in kind or ("json" not in kind and body.strip().count(b"\n") > 0 and body.lstrip()[:1] == b"{")


def response_shapes(status: int, headers: dict[str, str], body: bytes, *, cut: bool = False) -> set[Shape]:
    """Every shape of one response (`cut`: the stream ends mid-answer on purpose)."""
    out: set[Shape] = set()
    if status >= 400:
        lower = {k.lower() for k in headers}
        out.add(("error", "status", str(status)))
        out.add(("error", "headers", "{" + ",".join(h for h in RETRY_HEADERS if h in lower) + "}"))
    if status >= 400 and not _is_sse(headers, body):
        ok, value = _loads(body)
        out |= set(json_shapes(value, "error")) if ok else {("error", "$", _text(body.decode(errors="replace")))}
        return out
    if _is_sse(headers, body):
        return out | sse_shapes(body, cut=cut)
    ok, value = _loads(body)
    if ok:
        return out | set(json_shapes(value, "json"))
    if _is_ndjson(headers, body):
        for record in parse_ndjson(body):
            out |= set(json_shapes(record.value, "ndjson")) if record.error is None else {("ndjson", "$", "<text>")}
        return out
    if cut:
        return out  # the JSON body the fault cuts in half
    return out | {("json", "$", _text(body.decode(errors="replace")))}


def sse_shapes(body: bytes, *, cut: bool = False) -> set[Shape]:
    decoder = SSEDecoder()
    try:
        events = decoder.feed(body) + decoder.finish()
    except WireFormatError:  # a body that is not UTF-8 text has one shape: that
        return {("sse", "$", "<not text>")}
    out: set[Shape] = set()
    if decoder.comments:
        out.add(("sse", "comment", ""))
    order = ["^"]
    for n, event in enumerate(events):
        ok, value = _loads(event.data)
        if cut and n == len(events) - 1 and not ok:
            break  # the frame the fault cuts in half
        kind = event.event
        if kind == "message" and isinstance(value, dict) and isinstance(value.get("type"), str):
            kind = value["type"]
        context = f"sse:{kind}"
        out |= set(json_shapes(value, context)) if ok else {(context, "$", _text(event.data))}
        step = kind if ok else f"{kind}:{_text(event.data)}"
        if step != order[-1]:
            order.append(step)
    if not cut:
        order.append("$")
    out |= {("sse-order", f"{a} > {b}", "") for a, b in itertools.pairwise(order)}
    return out


# the real side --------------------------------------------------------------------------------


def column_of(provider: str, api: str) -> str | None:
    """The column whose profile reads `provider`'s real recordings of `api` (None: no dialect, or a
    provider that is a column of another dialect, whose recordings would stand for another column)."""
    dialect = API_DIALECTS.get(api)
    if dialect is None:
        return None
    name = profile_for(provider, dialect).name
    if provider in provider_names() and provider != name and (provider, dialect) not in DIALECT_PROFILES:
        return None
    return name


@dataclass
class RealShapes:
    """Per column: each shape real traffic shows, with one recording that shows it."""

    shapes: dict[str, dict[Shape, str]] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)


def real_shapes(corpora: Iterable[Path], columns: Collection[str] | None = None) -> RealShapes:
    """The shapes of the real traffic in `corpora`, per column (only those of `columns` when given:
    the other columns' recordings are not read)."""
    return _shapes(corpora, columns, _columns_of_entries)


def _columns_of_entries(corpus: Path) -> tuple[tuple[str, dict[str, Any]], ...]:
    """(column, catalog entry) for each entry of `corpus`'s catalog that some column reads; none
    without a catalog."""
    if not (corpus / "catalog.json").is_file():
        return ()
    entries = ((column_of(entry["provider"], entry["api"]), entry) for entry in read_catalog(corpus))
    return tuple((column, entry) for column, entry in entries if column is not None)


def _shapes(
    corpora: Iterable[Path],
    columns: Collection[str] | None,
    catalog: Callable[[Path], tuple[tuple[str, dict[str, Any]], ...]],
) -> RealShapes:
    real = RealShapes()
    for corpus in corpora:
        for column, entry in catalog(corpus):
            if columns is not None and column not in columns:
                continue
            if not (corpus / entry["path"]).is_file():
                continue
            calls, _ = read_entry(corpus, entry)
            seen = real.shapes.setdefault(column, {})
            for call in calls:
                real.calls[column] = real.calls.get(column, 0) + 1
                for shape in response_shapes(call.status, call.headers, call.body):
                    seen.setdefault(shape, call.where)
    return real


# the authored side ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    url: str
    quote: str
    shapes: tuple[str, ...] = ()

    def covers(self, shape: Shape) -> bool:
        text = show(shape)
        return not self.shapes or any(text.startswith(prefix) for prefix in self.shapes)


def sources_of(meta: dict[str, Any], where: str) -> list[Source]:
    """`meta.sources`, each with an http(s) `url` and a non-empty `quote`; `CassetteError` naming
    the entry otherwise."""
    raw = meta.get("sources") or []
    if not isinstance(raw, list):
        raise CassetteError("'meta.sources' must be a list of {url, quote, shapes}", where=f"{where}: meta.sources")
    out: list[Source] = []
    for i, item in enumerate(raw):
        at = f"{where}: meta.sources[{i}]"
        if not isinstance(item, dict):
            raise CassetteError("a source is a mapping {url, quote, shapes}", where=at)
        url, quote, shapes = item.get("url"), item.get("quote"), item.get("shapes") or []
        if not isinstance(url, str) or not url.startswith(("https://", "http://")):
            raise CassetteError("'url' must be an http(s) address", where=f"{at}.url")
        if not isinstance(quote, str) or not quote.strip():
            raise CassetteError("'quote' must be the quoted sentence or example", where=f"{at}.quote")
        if not isinstance(shapes, list) or not all(isinstance(s, str) for s in shapes):
            raise CassetteError("'shapes' must be a list of shape prefixes", where=f"{at}.shapes")
        out.append(Source(url, quote, tuple(shapes)))
    return out


@dataclass
class Occurrence:
    """An authored shape and the cassettes that replay it (those that cite a source for it apart)."""

    shape: Shape
    cassettes: list[str] = field(default_factory=list)
    cited: list[str] = field(default_factory=list)
    seen_in: str | None = None

    @property
    def status(self) -> str:
        if self.seen_in is not None:
            return "seen"
        return "cited" if len(self.cited) == len(self.cassettes) else "unseen"


@dataclass
class Column:
    name: str
    real_calls: int
    shapes: dict[Shape, Occurrence] = field(default_factory=dict)
    cassettes: int = 0

    def count(self, status: str) -> int:
        return sum(1 for o in self.shapes.values() if o.status == status)

    @property
    def share(self) -> float | None:
        """Seen or cited, over all authored shapes; None for a column without real recordings."""
        if not self.real_calls or not self.shapes:
            return None
        return (self.count("seen") + self.count("cited")) / len(self.shapes)

    @property
    def passes(self) -> bool:
        return self.share is None or self.share >= THRESHOLD


def authored_files(paths: Iterable[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        files += sorted(path.rglob("*.yaml")) if path.is_dir() else [path]
    return [f for f in files if f.parent.name in provider_names()]


def _objects_seen(dialect: str, seen: dict[Shape, str]) -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], str] = {}
    for shape, where in seen.items():
        whole = same_object(dialect, shape)
        if whole is not None:
            out.setdefault(whole, where)
    return out


def compare(
    files: Iterable[Path],
    real: RealShapes,
    cut_scenarios: frozenset[str] = frozenset(),
    interrupted: frozenset[str] = frozenset(),
) -> list[Column]:
    """Per column, the authored cassettes' shapes against the real ones (`cut_scenarios`: every
    answer is cut on purpose; `interrupted`: every answer but the last, the one the retry gets)."""
    columns: dict[str, Column] = {}
    for path in files:
        cassette = load_cassette(path)
        if cassette_evidence(cassette.meta) != "authored":
            continue
        name = path.parent.name
        column = columns.setdefault(name, Column(name, real.calls.get(name, 0)))
        column.cassettes += 1
        sources = sources_of(cassette.meta, str(path))
        dialect = get_profile(name).dialect
        seen = real.shapes.get(name, {})
        objects = _objects_seen(dialect, seen)
        shapes: set[Shape] = set()
        last = len(cassette.interactions) - 1
        for n, item in enumerate(cassette.interactions):
            if skip_reason(dialect, item.request.method, item.request.uri) is not None:
                continue
            response = item.response
            cut = path.stem in cut_scenarios or (path.stem in interrupted and n < last)
            shapes |= response_shapes(response.status, response.flat_headers(), response.body, cut=cut)
        for shape in shapes:
            whole = same_object(dialect, shape)
            found = seen.get(shape) or (objects.get(whole) if whole else None)
            occurrence = column.shapes.setdefault(shape, Occurrence(shape, seen_in=found))
            occurrence.cassettes.append(str(path))
            if any(source.covers(shape) for source in sources):
                occurrence.cited.append(str(path))
    return sorted(columns.values(), key=lambda c: c.name)


def to_json(columns: list[Column]) -> dict[str, Any]:
    out: dict[str, Any] = {"threshold": THRESHOLD, "columns": {}}
    for column in columns:
        out["columns"][column.name] = {
            "real_calls": column.real_calls,
            "authored_cassettes": column.cassettes,
            "shapes": len(column.shapes),
            "seen": column.count("seen"),
            "cited": column.count("cited"),
            "unseen": column.count("unseen"),
            "share": None if column.share is None else round(column.share, 4),
            "authored_only": column.real_calls == 0,
            "passes": column.passes,
            "unseen_shapes": [
                {"shape": show(o.shape), "cassettes": sorted(set(o.cassettes) - set(o.cited))}
                for o in sorted(column.shapes.values(), key=lambda o: o.shape)
                if o.status == "unseen"
            ],
        }
    return out


def cut_scenarios(root: Path, layers: tuple[Path, ...] = ()) -> frozenset[str]:
    """The ids of the scenarios whose cassettes cut the stream on purpose (`CUT_FEATURES`)."""
    from conformance.scenarios import load_layered

    if not (root / "scenarios").is_dir():
        return frozenset()
    return frozenset(s.id for s in load_layered(layers or (root,)) if s.feature in CUT_FEATURES)


def interrupted_scenarios(root: Path, layers: tuple[Path, ...] = ()) -> frozenset[str]:
    """The ids of the scenarios whose expected trace waits after an interrupted stream and sends
    again: the answers before the retried one are cut on purpose."""
    from conformance.scenarios import load_layered

    if not (root / "scenarios").is_dir():
        return frozenset()
    return frozenset(s.id for s in load_layered(layers or (root,)) if _waits_on_interruption(s.spec.expected))


def _waits_on_interruption(expected: Any) -> bool:
    trace = expected.get("trace") if isinstance(expected, dict) else None
    return isinstance(trace, list) and any(
        isinstance(step, dict) and step.get("action") == "wait" and step.get("kind") == "stream_interrupted"
        for step in trace
    )


@functools.lru_cache(maxsize=64)
def _real_of(corpora: tuple[Path, ...], column: str) -> RealShapes:
    return _shapes(corpora, {column}, _catalog_once)


@functools.lru_cache(maxsize=8)
def _catalog_once(corpus: Path) -> tuple[tuple[str, dict[str, Any]], ...]:
    """`_columns_of_entries`, read once per process like the real side it leads to (`_real_of`):
    each column read after the first reads only its own recordings."""
    return _columns_of_entries(corpus)


@functools.lru_cache(maxsize=4)
def _ends_cut(root: Path) -> tuple[frozenset[str], frozenset[str]]:
    return cut_scenarios(root), interrupted_scenarios(root)


def matches_real(path: Path, root: Path) -> Column | None:
    """The authored cassette `path` held alone to the real traffic of its column (the bundled corpus
    and `root`'s own `corpus/`): its `Column` when every shape it replays is seen there or cited, None
    when one is not, when its column has no real recording, or when it is no authored cassette of a
    known column. The real side is read once per process and column."""
    from conformance.evidence.expected import bundled_corpus

    if path.parent.name not in provider_names() or not path.is_file():
        return None
    corpora = tuple(dict.fromkeys(c.resolve() for c in (bundled_corpus(), root / "corpus") if c.is_dir()))
    try:
        cut, interrupted = _ends_cut(root.resolve())
        columns = compare([path], _real_of(corpora, path.parent.name), cut, interrupted)
    except (CassetteError, WireFormatError, ValueError):
        return None
    if len(columns) != 1 or not columns[0].real_calls or not columns[0].shapes:
        return None
    column = columns[0]
    return column if column.count("unseen") == 0 else None


def report_lines(columns: list[Column]) -> list[str]:
    """The terminal report: one line per column, then each unseen shape with its cassettes."""
    lines: list[str] = []
    for column in columns:
        total = len(column.shapes)
        if column.share is None:
            lines.append(f"{column.name}: authored only ({total} shapes, no real recording)")
            continue
        seen, cited = column.count("seen"), column.count("cited")
        mark = "ok" if column.passes else f"below {THRESHOLD:.0%}"
        lines.append(
            f"{column.name}: {math.floor(column.share * 100)}% of {total} shapes seen in real traffic or cited "
            f"({seen} seen, {cited} cited, {column.real_calls} real calls) {mark}"
        )
    for column in columns:
        if column.share is None:
            continue
        for o in sorted(column.shapes.values(), key=lambda o: o.shape):
            if o.status == "unseen":
                where = sorted(set(o.cassettes) - set(o.cited))
                more = f" (+{len(where) - 1} more)" if len(where) > 1 else ""
                lines.append(f"{where[0]}: unseen: {column.name}: {show(o.shape)}{more}")
    return lines
