"""`conformance repro`: one row as a standalone script a library's maintainer runs with the library alone.

The script serves the row's recorded answer on a loopback socket (status, headers, the body in the
chunks the row replays; a connection the recording cut is closed mid-body), calls the library as
the runtime's adapter does (its `reproduction`, `adapters.Reproduction`: the adapter's own call
and mapping code, copied), and asserts the expected value at every path the row differs at. On a
mismatch it prints the row's difference lines (`path`, expected, got) and exits 1; on agreement 0.
An encode row's script keeps the request the library sends and asserts the provider's rules on it,
each with its source quoted.

The script imports nothing of this project: the definitions the adapter's snippet names are copied
from the adapter's module (with what they name in turn); the few names that reach for the harness
are replaced by stand-ins (`get_profile` returns the provider's flags the copied code reads, baked
in; `reraise_replay_mismatch` does nothing: there is no cassette). No key is written: the library
gets a dummy one.
"""

from __future__ import annotations

import ast
import base64
import builtins
import functools
import importlib
import inspect
import json
import pprint
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.adapters import Reproduction
from conformance.capabilities import get_profile
from conformance.compare import ScenarioResult
from conformance.exceptions import InputError
from conformance.harness.classify import classify
from conformance.harness.context import HarnessContext
from conformance.runtime.dropped import drop_error, received
from conformance.scenarios import Scenario

STAND_INS: dict[str, str] = {
    "InputError": (
        "class InputError(Exception):\n"
        "    def __init__(self, message: str, *, where: str = '') -> None:\n"
        "        super().__init__(f'{where}: {message}' if where else message)\n"
    ),
    "reraise_replay_mismatch": (
        "def reraise_replay_mismatch(exc: BaseException | None, transport: Any = None) -> None:\n"
        '    """The harness\'s "request not in cassette" signal: there is no cassette here."""\n'
    ),
    "get_profile": (
        "def get_profile(name: str) -> Any:\n"
        '    """The provider\'s registry flags the copied code reads (this script serves one provider)."""\n'
        "    return types.SimpleNamespace(**PROFILE)\n"
    ),
}
"""Names of the harness a copied definition may reach for, and what the script has instead."""

_OWN = ("conformance", "examples")
"""Modules whose imports are copied (or stood in for), never imported by the script."""


@dataclass
class _Copier:
    """The definitions a snippet names, gathered from the adapter's module and the kit's."""

    imports: dict[str, str] = field(default_factory=dict)
    """Import line → itself (library imports only), in the order met."""
    blocks: dict[tuple[str, int], str] = field(default_factory=dict)
    """(module, line) → the source of one top-level statement, kept in module order."""
    order: list[str] = field(default_factory=list)
    """Modules in the order their definitions go into the script (helpers first)."""
    stand_ins: set[str] = field(default_factory=set)
    attributes: set[str] = field(default_factory=set)
    """Attribute names the copied code reads (the profile flags among them are baked in)."""
    seen: set[tuple[str, str]] = field(default_factory=set)

    def take(self, module: str, source: str) -> None:
        """Copy what `source` (code of `module`'s namespace) names."""
        for name in _names(ast.parse(source), self.attributes):
            self.name(module, name)

    def name(self, module: str, name: str) -> None:
        if (module, name) in self.seen or hasattr(builtins, name):
            return
        self.seen.add((module, name))
        table = _module_table(module)
        if name in table.definitions:
            if module not in self.order:
                self.order.insert(0, module)  # a module reached later holds helpers of the ones before
            for node in table.definitions[name]:
                key = (module, node.lineno)
                if key in self.blocks:
                    continue
                self.blocks[key] = table.segment(node)
                for inner in _names(node, self.attributes):
                    self.name(module, inner)
            return
        imported = table.imports.get(name)
        if imported is None:
            return  # a local name of a function body, or one the snippet defines itself
        origin, attr, _ = imported[-1]
        if not origin.startswith(_OWN):
            for _, _, each in imported:  # `import a.b` and `import a.c` both bind `a`
                self.imports[each] = each
            return
        if name in STAND_INS:
            self.stand_ins.add(name)
            return
        value = getattr(importlib.import_module(origin), attr)
        home = getattr(value, "__module__", None)
        if inspect.isfunction(value) or inspect.isclass(value):
            if not isinstance(home, str) or not home.startswith(_OWN):
                raise InputError(f"{module}: {name} is from {home}, which the script cannot copy", where="reproduction")
            self.name(home, value.__name__)
            return
        raise InputError(f"{module}: {name} ({origin}) is no function or class to copy", where="reproduction")

    def source(self) -> str:
        parts = []
        for module in self.order:
            keys = sorted(k for k in self.blocks if k[0] == module)
            if keys:
                parts.append(f"# from {module}\n" + "\n\n\n".join(self.blocks[k] for k in keys))
        return "\n\n\n".join(parts)


@dataclass
class _Table:
    text: str
    definitions: dict[str, list[ast.stmt]]
    imports: dict[str, list[tuple[str, str, str]]]

    def segment(self, node: ast.stmt) -> str:
        lines = self.text.splitlines()
        decorators = getattr(node, "decorator_list", [])
        start = min([node.lineno, *(d.lineno for d in decorators)])
        end = node.end_lineno or node.lineno
        return "\n".join(lines[start - 1 : end])


@functools.lru_cache(maxsize=32)
def _module_table(module: str) -> _Table:
    """A module's top-level definitions (by the names they bind) and imports."""
    mod = importlib.import_module(module)
    text = inspect.getsource(mod)
    tree = ast.parse(text)
    definitions: dict[str, list[ast.stmt]] = {}
    imports: dict[str, list[tuple[str, str, str]]] = {}
    for node in tree.body:
        bound: list[str] = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound = [node.name]
        elif isinstance(node, ast.Assign):
            bound = [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and isinstance(node.target, ast.Name):
            bound = [node.target.id]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                line = f"import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
                imports.setdefault(local, []).append((alias.name, "", line))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module != "__future__":
            for alias in node.names:
                local = alias.asname or alias.name
                line = f"from {node.module} import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
                imports.setdefault(local, []).append((node.module, alias.name, line))
        for name in bound:
            definitions.setdefault(name, []).append(node)
    return _Table(text, definitions, imports)


def _names(tree: ast.AST, attributes: set[str]) -> list[str]:
    """The names `tree` reads (annotations left out: the script does not evaluate them)."""
    out: list[str] = []

    def walk(node: ast.AST) -> None:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            out.append(node.id)
        if isinstance(node, ast.Attribute):
            attributes.add(node.attr)
        for name, child in ast.iter_fields(node):
            if name in ("annotation", "returns"):
                continue
            for item in child if isinstance(child, list) else [child]:
                if isinstance(item, ast.AST):
                    walk(item)

    walk(tree)
    return out


# the row --------------------------------------------------------------------------------------


@dataclass
class Row:
    """What the row hands the runtime and what it judged."""

    scenario: Scenario
    provider: str
    result: ScenarioResult
    decode: dict[str, Any] | None = None
    """The decode call's arguments: status, headers, chunks, dropped, stream, model, conversation."""
    conversation: dict[str, Any] | None = None
    """The encode call's conversation."""


def _recording(runtime: Any, row: dict[str, Any]) -> None:
    """Keep the arguments of the runtime's next decode or encode call in `row` (the runtime unchanged)."""
    for capability in ("decode", "encode"):
        method = getattr(runtime, capability, None)
        if not callable(method):
            continue

        def keep(*args: Any, _method: Any = method, _name: str = capability, **kwargs: Any) -> Any:
            row.setdefault(_name, (args, kwargs))
            return _method(*args, **kwargs)

        functools.update_wrapper(keep, method)  # the harness reads the keywords the method takes
        setattr(runtime, capability, keep)


def run_row(ctx: HarnessContext, scenario: Scenario, provider: str) -> Row:
    """Run one row with the runtime's calls recorded."""
    from conformance.harness.checks import run_check

    calls: dict[str, Any] = {}
    _recording(ctx.runtime, calls)
    result = classify(run_check(scenario, provider, ctx), scenario, ctx.root)
    row = Row(scenario, provider, result)
    if "decode" in calls:
        args, kwargs = calls["decode"]
        _, status, headers, chunks, stream = args
        dropped = drop_error(chunks)
        row.decode = {
            "status": status,
            "headers": dict(headers),
            "chunks": received(chunks),
            "dropped": dropped is not None,
            "stream": bool(stream),
            "model": kwargs.get("model"),
            "conversation": kwargs.get("conversation") or scenario.conversation(provider),
        }
    if "encode" in calls:
        args, _ = calls["encode"]
        row.conversation = args[0]
    return row


# the assertions -------------------------------------------------------------------------------

_RANGE = re.compile(r"^(\d+)\.\.(\d+)$")
_PATTERN = re.compile(r"does not match (?P<q>['\"])(?P<pattern>.+?)(?P=q)")


def decode_checks(result: ScenarioResult) -> list[dict[str, Any]]:
    """The row's differences as the script's assertions: the expected value at each path (or none)."""
    out: list[dict[str, Any]] = []
    for entry in result.diff:
        if entry.change == "added":
            out.append({"path": entry.path, "rule": "absent", "line": "added"})
        else:
            out.append({"path": entry.path, "rule": "equals", "expected": entry.expected, "line": entry.change})
    return out


def encode_checks(result: ScenarioResult) -> list[dict[str, Any]]:
    """The request findings that fail the row, as the script's assertions on the request the library
    sends, each with its fact and source."""
    out: list[dict[str, Any]] = []
    for finding in result.requests:
        if finding.verdict != "fail":
            continue
        check: dict[str, Any] = {"path": finding.path, "fact": finding.fact, "source": finding.source}
        pattern = _PATTERN.search(finding.fact)
        span = _RANGE.match(finding.expected) if isinstance(finding.expected, str) else None
        if pattern is not None:
            check |= {"rule": "pattern", "pattern": pattern.group("pattern"), "line": "pattern"}
        elif span is not None:
            check |= {"rule": "range", "low": int(span[1]), "high": int(span[2]), "expected": finding.expected}
            check["line"] = "changed"
        elif finding.expected is None:
            check |= {"rule": "absent", "line": "added" if finding.actual is not None else "changed"}
        else:
            check |= {"rule": "equals", "expected": finding.expected, "line": "changed"}
        out.append(check)
    return out


# the script -----------------------------------------------------------------------------------


def offered(runtime: Any, runtime_name: str) -> Reproduction:
    """The runtime's `reproduction`, or the one-line error that it has none."""
    offer = getattr(runtime, "reproduction", None)
    if not isinstance(offer, Reproduction):
        raise InputError(f"runtime {runtime_name} offers no standalone reproduction", where="--runtime")
    return offer


def _comment(text: str, prefix: str = "# ") -> str:
    return "\n".join(prefix + line for line in text.splitlines() or [""])


def _profile(provider: str, attributes: set[str]) -> dict[str, Any]:
    """The provider's flags named among `attributes`, as plain values."""
    profile = get_profile(provider)
    out: dict[str, Any] = {}
    for name in sorted(attributes & set(type(profile).model_fields)):
        value = getattr(profile, name)
        if isinstance(value, frozenset | set | tuple):
            value = sorted(value) if isinstance(value, frozenset | set) else list(value)
        try:
            json.dumps(value)
        except TypeError:
            continue
        out[name] = value
    return out


def base_path(provider: str) -> str:
    """The path of the provider's base URL (`/v1`), put after the loopback's address."""
    url = get_profile(provider).base_url
    return ("/" + url.split("//", 1)[-1].partition("/")[2]).rstrip("/")


def render(row: Row, offer: Reproduction, *, runtime_spec: str, runtime_name: str, version: str) -> str:
    """The standalone script for `row`."""
    check = row.scenario.check
    snippet = offer.decode if check == "decode" else offer.encode if check == "encode" else None
    if snippet is None:
        raise InputError(
            f"runtime {runtime_name} offers no standalone reproduction of {check} rows", where=row.scenario.id
        )
    if (row.decode if check == "decode" else row.conversation) is None:
        said = (row.result.reason or "").splitlines()[0] if row.result.reason else ""
        raise InputError(
            f"runtime {runtime_name} was not asked to {check} in this row ({row.result.verdict}: {said})",
            where=f"{row.scenario.id}[{row.provider}]",
        )
    copier = _Copier()
    for node in ast.parse(offer.overrides).body:  # replaced: the adapter's own is not copied
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            copier.seen.add((offer.module, node.name))
    copier.take(offer.module, snippet)
    copier.take(offer.module, offer.overrides)
    checks = decode_checks(row.result) if check == "decode" else encode_checks(row.result)
    result = row.result
    lines = _diff_lines(result)
    library = runtime_name.split(" ")[0]
    head = [
        "#!/usr/bin/env python3",
        f'r"""{row.scenario.id}[{row.provider}]: {library} {version}, standalone.',
        "",
        f"Needs only the library the row ran ({library} {version}) and Python 3.10+, nothing of the project"
        " that wrote it.",
        "    python THIS_FILE.py            exit 0: the library gives the expected value; 1: it does not",
        "    python THIS_FILE.py --got      print what the library gives at each checked path (JSON)",
        "",
        f"The row ({row.scenario.check} check), as `conformance run --runtime {runtime_spec} --provider {row.provider}",
        f"--scenario {row.scenario.id} --show-diff` shows it ({result.verdict}):",
        *(f"    {line}" for line in lines),
    ]
    if result.rule_source:
        head += ["", "Rule source:", *(f"    {line}" for line in result.rule_source.splitlines())]
    # a raw docstring: the row's lines quoted as printed (their JSON escapes kept)
    head = [*head[:2], *(line.replace('"""', "'''") for line in head[2:])]
    head.append('"""')
    data: dict[str, Any] = {}
    if row.decode is not None and check == "decode":
        d = row.decode
        data = {
            "status": d["status"],
            "headers": d["headers"],
            "chunks": [base64.b64encode(bytes(c)).decode("ascii") for c in d["chunks"]],
            "dropped": d["dropped"],
        }
        stream, model, conversation = d["stream"], d["model"], d["conversation"]
    else:
        data = {"status": 418, "headers": {"content-type": "application/json"}}
        data["chunks"] = [base64.b64encode(b'{"error": {"message": "captured"}}').decode("ascii")]
        data["dropped"] = False
        conversation = row.conversation or {}
        stream, model = bool((conversation.get("options") or {}).get("stream")), conversation.get("model")
    parts = [
        "\n".join(head),
        _PRELUDE,
        "# the recorded answer the loopback serves (the body in the chunks the row replays, base64)\n"
        f"RECORDED = json.loads(r'''{json.dumps(data)}''')",
        _SERVER,
        "# the row's call\n"
        f"PROVIDER = {json.dumps(row.provider)}\n"
        f"MODEL = {model!r}\n"
        f"STREAM = {stream!r}\n"
        f"PATH = {json.dumps(base_path(row.provider))}\n"
        f"CONVERSATION = json.loads(r'''{json.dumps(conversation, ensure_ascii=False)}''')\n"
        f"PROFILE = {pprint.pformat(_profile(row.provider, copier.attributes), width=100)}",
    ]
    if offer.setup:
        parts.append("# before the library is imported\n" + offer.setup.strip())
    imports = sorted(set(copier.imports.values()) - set(_PRELUDE.splitlines()))
    parts.append("# what the adapter's code imports\n" + "\n".join(imports))
    stand_ins = [STAND_INS[n] for n in sorted(copier.stand_ins)]
    if stand_ins:
        parts.append("# stand-ins for the names of the harness the adapter's code reads\n" + "\n\n".join(stand_ins))
    parts.append("# the adapter's call and mapping, as it is\n" + copier.source())
    if offer.overrides.strip():
        parts.append(
            "# the client built as a user builds it (the adapter's is on the harness's transport)\n"
            + offer.overrides.strip()
        )
    parts.append("# the library called for this row\n" + snippet.strip())
    parts.append(_expected_block(checks, result.rule_source))
    parts.append(_MAIN_DECODE if check == "decode" else _MAIN_ENCODE)
    return "\n\n\n".join(p.strip("\n") for p in parts) + "\n"


def _diff_lines(result: ScenarioResult) -> list[str]:
    from conformance.compare import render_diff

    if result.diff:
        return render_diff(result.diff).splitlines()
    return [line.strip() for line in result.reason.splitlines()]


def _expected_block(checks: list[dict[str, Any]], rule_source: str | None) -> str:
    out = ["# what the row expects at each path it differs at (rules: equals, absent, range, pattern)"]
    if rule_source:
        out += ["# the row's rule, as its source says it:", _comment(rule_source, "#     ")]
    sources = [c for c in checks if c.get("source") or c.get("fact")]
    for c in sources:
        out.append(f"# {c['path']}: {c.get('fact', '')}")
        if c.get("source"):
            out.append(_comment(c["source"], "#     "))
    out.append("EXPECTED = json.loads(r'''")
    out.append(json.dumps([{k: v for k, v in c.items() if k not in ("fact", "source")} for c in checks], indent=1))
    out.append("''')  # EXPECTED end")
    return "\n".join(out)


def write(script: str, out: Path, name: str) -> Path:
    """Write `script` as `out/name` (made executable)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / name
    path.write_text(script, encoding="utf-8")
    path.chmod(0o755)
    return path


def script_name(runtime_name: str, scenario: str, provider: str) -> str:
    """`<library>-<scenario>-<provider>.py` (the runtime's first word, as a file name)."""
    library = re.sub(r"[^A-Za-z0-9_.-]+", "_", runtime_name.split(" ")[0]) or "runtime"
    suffix = "-decode-only" if "decode only" in runtime_name else ""
    return f"{library}{suffix}-{scenario}-{provider}.py"


def module_version(runtime: Any) -> str:
    declared = getattr(runtime, "declaration", None)
    version = getattr(declared, "version", None)
    if isinstance(version, str) and version:
        return version
    module = sys.modules.get(type(runtime).__module__)
    return str(getattr(module, "VERSION", "") or "")


_PRELUDE = """
from __future__ import annotations

import base64
import json
import re
import sys
import threading
import types
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
"""

_SERVER = """
# the loopback server: every request answered with the recorded response, each chunk flushed on its
# own (chunked transfer encoding); a recording whose connection dropped is closed mid-body
HOP = {"content-length", "transfer-encoding", "content-encoding", "connection"}
SENT: list[bytes] = []  # the request bodies the library sent


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        SENT.append(self.rfile.read(length) if length else b"")
        self.send_response(RECORDED["status"])
        for key, value in RECORDED["headers"].items():
            if key.lower() not in HOP:
                self.send_header(key, value)
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for chunk in RECORDED["chunks"]:
            body = base64.b64decode(chunk)
            if body:
                self.wfile.write(b"%x\\r\\n%s\\r\\n" % (len(body), body))
                self.wfile.flush()
        if RECORDED["dropped"]:
            self.close_connection = True
            return
        self.wfile.write(b"0\\r\\n\\r\\n")
        self.wfile.flush()

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = answer

    def log_message(self, format: str, *args: Any) -> None:
        return


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        return  # a client hanging up early is no error here
"""

_COMPARE = '''
MISSING = object()


def at(value: Any, path: str) -> Any:
    """The value at a path such as `message.content[0].text` (MISSING where there is none)."""
    if path == "(root)":
        return value
    for key in re.findall(r"\\[\\d+\\]|[^.\\[\\]]+", path):
        if key.startswith("["):
            index = int(key[1:-1])
            if not isinstance(value, list) or index >= len(value):
                return MISSING
            value = value[index]
        elif isinstance(value, dict) and key in value:
            value = value[key]
        else:
            return MISSING
    return value


def same(a: Any, b: Any) -> bool:
    """Equal as JSON, types included (1, 1.0 and true differ)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "\\u2026"


def difference(check: dict[str, Any], got: Any) -> str | None:
    """The row's difference line where the library's value breaks the check; None where it holds."""
    path, rule = check["path"], check["rule"]
    if rule == "absent":
        if got is MISSING:
            return None
        if check["line"] == "added":
            return f"+ {path}: {short(got)} (unexpected)"
        return f"~ {path}: expected null, got {short(got)}"
    if rule == "pattern":
        if isinstance(got, str) and re.fullmatch(check["pattern"], got):
            return None
        return f"~ {path}: {None if got is MISSING else got!r} does not match {check['pattern']!r}"
    if rule == "range":
        if isinstance(got, int) and check["low"] <= got <= check["high"]:
            return None
        return f"~ {path}: expected {short(check['expected'])}, got {short(None if got is MISSING else got)}"
    if got is not MISSING and same(got, check["expected"]):
        return None
    if got is MISSING:
        return f"- {path}: {short(check['expected'])} (missing)"
    return f"~ {path}: expected {short(check['expected'])}, got {short(got)}"


def judge(value: Any) -> int:
    """Print the differences (exit status 1) or say the library agrees (0); `--got`: the checks with
    the library's values in place of the expected ones (a script that passes on this library)."""
    if "--got" in sys.argv[1:]:
        out = []
        for check in EXPECTED:
            got = at(value, check["path"])
            if got is MISSING:
                out.append({"path": check["path"], "rule": "absent", "line": "added"})
            else:
                out.append({"path": check["path"], "rule": "equals", "expected": got, "line": "changed"})
        print(json.dumps(out, indent=1, ensure_ascii=False))
        return 0
    lines = [line for check in EXPECTED if (line := difference(check, at(value, check["path"]))) is not None]
    if not lines:
        print(f"ok: {len(EXPECTED)} checked path(s) as expected")
        return 0
    print(f"{len(lines)} difference(s) from the expected value:")
    for line in lines:
        print(line)
    return 1
'''

_MAIN_DECODE = (
    _COMPARE
    + """

def main() -> int:
    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        outcome = library_result(f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()
    return judge(outcome)


if __name__ == "__main__":
    sys.exit(main())
"""
)

_MAIN_ENCODE = (
    _COMPARE
    + """

def main() -> int:
    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        library_request(f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()
    if not SENT:
        print("the library sent no request")
        return 1
    return judge(json.loads(SENT[0]))


if __name__ == "__main__":
    sys.exit(main())
"""
)


__all__ = [
    "STAND_INS",
    "Row",
    "base_path",
    "decode_checks",
    "encode_checks",
    "module_version",
    "offered",
    "render",
    "run_row",
    "script_name",
    "write",
]
