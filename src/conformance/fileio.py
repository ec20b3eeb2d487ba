"""Files in and out: YAML parsed once per run with libyaml, and atomic writes with unique temp names.

- `read_yaml(path)` parses with libyaml's `CSafeLoader` when PyYAML was built with it (ten times
  faster than the pure-Python loader, which stays the fallback) and memoizes the parsed document by
  path, modification time and size, so a run that reads a scenario or cassette from several checks
  parses it once. Callers treat the returned data as read-only.
- `dump_yaml(data)` writes YAML that both loaders read the same way (libyaml's and the
  pure-Python one accept slightly different documents: a plain `?` in a flow mapping is one), and
  refuses data it cannot write so.
- `atomic_write(path, data)` writes a temp file beside the target (a unique name, so concurrent
  writers never share one), optionally fsyncs, and `os.replace`s it over the target: readers see
  the old file or the new one, never half of either.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, TypeVar

import orjson
import yaml

from conformance import jsonvalue
from conformance.exceptions import InputError

SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's loader when available, else the pure-Python one; both build the same data from every
file the project writes or bundles (`dump_yaml`, tests/test_yaml_dialect.py)."""
LOADERS: tuple[type[yaml.SafeLoader], ...] = tuple(dict.fromkeys((SafeLoader, yaml.SafeLoader)))
"""Every safe loader a reader of the project's files may have: libyaml's (when built) and the pure-Python one."""

T = TypeVar("T")

_Key = tuple[str, int, int, int, int]
_CACHE: OrderedDict[tuple[str, _Key], Any] = OrderedDict()
_CACHE_LIMIT = 32_768
"""Entries kept, least recently used dropped first: a project of thousands of files stays parsed."""


def file_key(path: Path) -> _Key:
    """(absolute path, device, inode, mtime in ns, size): changes whenever the file is rewritten
    or the path comes to name another file. The inode stands in for resolving symlinks, which
    costs a system call per path component."""
    st = path.stat()
    return (os.path.abspath(path), st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)


def memoized(kind: str, path: Path, build: Callable[[Path], T]) -> T:
    """`build(path)`, computed once per file version and kind (e.g. parsed YAML, a loaded scenario).

    Errors are not cached: a file that failed to load is read again next time."""
    try:
        key = (kind, file_key(path))
    except OSError:
        return build(path)  # let the builder raise its own typed error
    try:
        value = _CACHE[key]
    except KeyError:
        pass
    else:
        _CACHE.move_to_end(key)
        return value  # type: ignore[no-any-return]
    value = build(path)
    _CACHE[key] = value
    if len(_CACHE) > _CACHE_LIMIT:
        _CACHE.popitem(last=False)
    return value


def prime(kind: str, path: Path, value: Any) -> None:
    """Remember `value` as what `memoized(kind, path, …)` would build for the file as it is now
    (work done in another process, e.g. a worker of a parallel run)."""
    try:
        _CACHE[(kind, file_key(path))] = value
    except OSError:
        return


def clear_cache() -> None:
    """Forget every memoized value (files are read again on next use)."""
    _CACHE.clear()


class YAMLValueError(yaml.YAMLError):
    """A YAML document that cannot be used (malformed, nested too deep, a lone surrogate), with a
    one-line `problem`."""

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(problem)


def parse_yaml(text: str) -> Any:
    """One YAML document with the safe loader (libyaml when present). A document nested deeper
    than `jsonvalue.MAX_DEPTH` or holding a lone surrogate (``"\\ud800"``, which no file can
    store) raises `YAMLValueError`, a `yaml.YAMLError` like any malformed document."""
    try:
        data = yaml.load(text, Loader=SafeLoader)
    except RecursionError:
        raise YAMLValueError(f"nested deeper than {jsonvalue.MAX_DEPTH} levels") from None
    except yaml.YAMLError as exc:  # one line, with the mark kept for the caller's line number
        problem = getattr(exc, "problem", None) or getattr(exc, "reason", None) or str(exc)
        error = YAMLValueError(" ".join(str(problem).split()))
        error.problem_mark = getattr(exc, "problem_mark", None)  # type: ignore[attr-defined]
        raise error from None
    _check_value(data)
    return data


def _check_value(data: Any) -> None:
    stack = [(data, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise YAMLValueError(f"lone surrogate in {item[:20]!r}") from None
            continue
        if isinstance(item, dict | list):
            if level >= jsonvalue.MAX_DEPTH:
                raise YAMLValueError(f"nested deeper than {jsonvalue.MAX_DEPTH} levels")
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)


def dump_yaml(data: Any, **options: Any) -> str:
    """`data` as YAML in block style (`options` go to `yaml.safe_dump`), checked to load back as
    `data` with every loader in `LOADERS`; a `ValueError` when one of them reads it otherwise."""
    text: str = yaml.safe_dump(
        data, **{"sort_keys": False, "allow_unicode": True, "default_flow_style": False, **options}
    )
    for loader in LOADERS:
        try:
            back = yaml.load(text, Loader=loader)
        except yaml.YAMLError as exc:
            raise ValueError(f"the YAML written is not read by {loader.__name__}: {exc}") from None
        if back != data:
            raise ValueError(f"the YAML written reads back differently with {loader.__name__}")
    return text


def atomic_write(path: Path, data: str | bytes, *, fsync: bool = False, mode: int = 0o644) -> Path:
    """Replace `path` with `data` in one step; the directory is created when missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        os.chmod(tmp, mode)  # mkstemp creates 0600; these files are meant to be shared
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_regular(path: Path, *, limit: int | None = None) -> bytes:
    """The bytes of a regular file. A FIFO, socket or device is an `InputError` naming it, found
    without blocking (a FIFO is opened non-blocking, so a read never waits for a writer); a missing
    file and a directory raise `FileNotFoundError` and `IsADirectoryError` as `read_bytes` does.
    With `limit`, a file of more bytes is an `InputError` too, found before reading (and read in
    chunks, so one that grows meanwhile is never held past the limit)."""
    with _opened_regular(path) as handle:
        if limit is None:
            return handle.read()
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise InputError(f"{size:,} bytes, over the limit of {size_text(limit)}", where=str(path))
        data = bytearray()
        while chunk := handle.read(min(CHUNK, limit + 1 - len(data))):
            data += chunk
            if len(data) > limit:
                raise InputError(f"more than {size_text(limit)}, the limit", where=str(path))
        return bytes(data)


CHUNK = 1 << 20
"""Bytes read at a time where a file is read in chunks."""


def sha256_regular(path: Path) -> str:
    """The sha256 of a regular file (as `read_regular` finds it), read in chunks: never held whole."""
    import hashlib

    digest = hashlib.sha256()
    with _opened_regular(path) as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def inside(path: Path, root: Path) -> bool:
    """Whether `path`, its symlinks resolved, lies inside `root` (resolved too)."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a symlink loop
        return False


@contextlib.contextmanager
def _opened_regular(path: Path) -> Iterator[IO[bytes]]:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
        if not stat.S_ISREG(mode):
            raise InputError("not a regular file (a FIFO, socket or device)", where=str(path))
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            yield handle
    finally:
        os.close(fd)


def size_text(n: int) -> str:
    """`16 MiB`, `64 KiB`, or `1,234 bytes`: a size as a limit is named."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n:,} bytes"


def read_text(path: Path) -> str:
    """`read_regular` decoded as UTF-8 (a `UnicodeDecodeError` when it is not)."""
    return read_regular(path).decode("utf-8")


def read_json(path: Path) -> Any:
    """A JSON file the user named; a missing or malformed one is an `InputError` naming it."""
    return _read_json(path)


def read_json_mended(path: Path, *, mend: Callable[[str], tuple[str, int]]) -> tuple[Any, int]:
    """`read_json` of the text `mend` rewrote, and how many places it changed. Text that is not
    UTF-8 is an `InputError` naming the file."""
    try:
        text = read_regular(path).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", where=str(path)) from None
    except FileNotFoundError:
        raise InputError("no such file", where=str(path)) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a JSON file", where=str(path)) from None
    text, count = mend(text)
    try:
        return jsonvalue.loads(text), count
    except orjson.JSONDecodeError as exc:
        raise InputError(f"not valid JSON ({exc})", where=str(path)) from None


def _read_json(path: Path) -> Any:
    try:
        return jsonvalue.loads(read_regular(path))
    except FileNotFoundError:
        raise InputError("no such file", where=str(path)) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a JSON file", where=str(path)) from None
    except orjson.JSONDecodeError as exc:
        raise InputError(f"not valid JSON ({exc})", where=str(path)) from None
