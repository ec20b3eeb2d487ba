"""The file backend: a data directory as `conformance.store.layout` draws it.

The structure cache (parent, children, creation order of every node) is built once per
conversation from `structure.json` when its generation matches the conversation's `generation`
file, else from the node files; it is checked against `generation` at the start of every
operation, so another writer's change is seen, and written back by `close()`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from conformance.store import ids
from conformance.store.backend import Changes
from conformance.store.errors import CorruptStoreError, NotFoundError, StoreError, StoreIOError, os_error
from conformance.store.layout import (
    BOOKMARKS,
    GENERATION,
    INTENT,
    LOCK,
    NODES,
    REGISTRY,
    REGISTRY_LOCK,
    STRUCTURE,
    IntentError,
    WriteLayer,
    apply_atomically,
    dumps,
    recover,
)
from conformance.store.model import Node


@dataclass
class Structure:
    generation: int
    parent: dict[str, str | None] = field(default_factory=dict)
    seq: dict[str, int] = field(default_factory=dict)
    children: dict[str, list[str]] = field(default_factory=dict)
    dirty: bool = False

    def add(self, node_id: str, parent: str | None, seq: int) -> None:
        """Insert a node, or move it (its own children stay with it)."""
        old = self.parent.get(node_id)
        if node_id in self.parent and old is not None and node_id in self.children.get(old, []):
            self.children[old].remove(node_id)
        self.parent[node_id] = parent
        self.seq[node_id] = seq
        self.children.setdefault(node_id, [])
        if parent is not None:
            siblings = self.children.setdefault(parent, [])
            siblings.append(node_id)
            if len(siblings) > 1 and self.seq.get(siblings[-2], -1) > seq:
                siblings.sort(key=lambda n: self.seq.get(n, 0))

    def remove(self, node_id: str) -> None:
        parent = self.parent.pop(node_id, None)
        self.seq.pop(node_id, None)
        self.children.pop(node_id, None)
        if parent is not None and node_id in self.children.get(parent, []):
            self.children[parent].remove(node_id)

    def max_seq(self) -> int:
        return max(self.seq.values(), default=-1)


def read_json(path: Path, kind: str) -> Any:
    """Parsed JSON; a typed error naming the file when it is unreadable or not JSON."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise os_error(exc, str(path)) from None
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CorruptStoreError(kind, f"not valid JSON ({exc})", where=str(path)) from None


def parse_node(path: Path, root: str) -> Node:
    data = read_json(path, "corrupt_node")
    try:
        node = Node.from_json(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise CorruptStoreError("corrupt_node", f"not a node record ({exc!r})", where=str(path)) from None
    if node.id != path.stem or node.root != root:
        raise CorruptStoreError(
            "corrupt_node", f"record says id {node.id} in {node.root}, the file says {path.stem}", where=str(path)
        )
    return node


def read_registry(data_dir: Path) -> list[str]:
    """Root ids of `roots.json` in order. A missing registry is empty only when no conversation exists."""
    path = data_dir / REGISTRY
    try:
        data = read_json(path, "corrupt_registry")
    except FileNotFoundError:
        if any(ids.is_root_id(p.name) for p in _dirs(data_dir)):
            raise CorruptStoreError(
                "corrupt_registry", "missing while conversation directories exist", where=str(path)
            ) from None
        return []
    entries = data.get("roots") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "id" in e for e in entries):
        raise CorruptStoreError("corrupt_registry", "expected {version, roots: [{id, created}]}", where=str(path))
    out = [str(e["id"]) for e in entries]
    for rid in out:
        if not ids.is_root_id(rid):
            raise CorruptStoreError("corrupt_registry", f"malformed root id {rid!r}", where=str(path))
    return out


def _dirs(data_dir: Path) -> list[Path]:
    try:
        return sorted(p for p in data_dir.iterdir() if p.is_dir())
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise os_error(exc, str(data_dir)) from None


class FileBackend:
    name = "files"

    def __init__(self, data_dir: Path | str, *, layer: WriteLayer | None = None, lock_timeout: float = 10.0) -> None:
        self.dir = Path(data_dir)
        self.layer = layer or WriteLayer()
        self.lock_timeout = lock_timeout
        self._registry: tuple[tuple[int, int, int], list[str]] | None = None
        self._structures: dict[str, Structure] = {}
        self._home: dict[str, str] = {}
        self._copies: dict[str, set[str]] = {}
        """Node ids found in more than one conversation, with each conversation holding one."""
        self._checked: set[str] = set()
        """Conversations whose generation was checked since the last `refresh()`."""
        self._held: set[str] = set()
        """Conversations whose lock this backend holds now (a read inside a write takes no second lock)."""
        if self.dir.exists() and not self.dir.is_dir():
            raise StoreIOError("not a directory", where=str(self.dir))

    # registry --------------------------------------------------------------------------------

    def roots(self) -> list[str]:
        path = self.dir / REGISTRY
        try:
            st = path.stat()
            key = (st.st_ino, st.st_mtime_ns, st.st_size)  # os.replace gives a new inode
        except FileNotFoundError:
            key = (0, 0, -1)
        except OSError as exc:
            raise os_error(exc, str(path)) from None
        if self._registry is None or self._registry[0] != key:
            self._registry = (key, read_registry(self.dir))
        return list(self._registry[1])

    def _registry_entries(self) -> list[dict[str, Any]]:
        known = self.roots()  # validates the file
        if not known:
            return []
        data = read_json(self.dir / REGISTRY, "corrupt_registry")
        return [dict(e) for e in data["roots"]]

    def conversation_dir(self, root: str) -> Path:
        return self.dir / root

    # structure cache -------------------------------------------------------------------------

    def _generation(self, root: str) -> int:
        path = self.dir / root / GENERATION
        try:
            return int(path.read_text(encoding="ascii").strip() or 0)
        except FileNotFoundError:
            return 0
        except ValueError:
            raise CorruptStoreError("corrupt_generation", "generation is not an integer", where=str(path)) from None
        except OSError as exc:
            raise os_error(exc, str(path)) from None

    def refresh(self) -> None:
        """Start of an operation: each conversation's generation is checked again when next used."""
        self._checked.clear()

    def structure(self, root: str) -> Structure:
        """The conversation's cached structure, rebuilt when its generation moved."""
        cached = self._structures.get(root)
        if cached is not None and root in self._checked:
            return cached
        conv = self.dir / root
        if not conv.is_dir():
            raise CorruptStoreError("missing_directory", f"conversation {root} has no directory", where=str(conv))
        gen = self._generation(root)
        self._checked.add(root)
        if cached is not None and cached.generation == gen:
            return cached
        if cached is not None:
            for nid in cached.parent:
                if self._home.get(nid) == root:
                    self._home.pop(nid)
                self._copies.get(nid, set()).discard(root)
        built = self._from_cache_file(root, gen) or self.scan(root, gen)
        self._structures[root] = built
        for nid in built.parent:
            other = self._home.get(nid)
            if other is not None and other != root and nid in self._structures.get(other, Structure(0)).parent:
                self._copies.setdefault(nid, {other}).add(root)
            else:
                self._home[nid] = root
        return built

    def _from_cache_file(self, root: str, gen: int) -> Structure | None:
        try:
            data = json.loads((self.dir / root / STRUCTURE).read_bytes())
            if data["generation"] != gen:
                return None
            out = Structure(gen)
            for nid, (parent, seq) in sorted(data["nodes"].items(), key=lambda kv: kv[1][1]):
                out.add(nid, parent, int(seq))
            return out
        except (OSError, ValueError, KeyError, TypeError):
            return None  # a cache is only a cache: rebuild from the node files

    def scan(self, root: str, gen: int) -> Structure:
        """The structure from the node files. A file a writer removed between the listing and the
        read starts the scan again (a few times, then a typed error): never a raw FileNotFoundError."""
        for _ in range(_SCAN_ATTEMPTS):
            try:
                return self._scan_once(root, gen)
            except FileNotFoundError:
                gen = self._generation(root)
        raise StoreIOError("the conversation kept changing while it was read", where=str(self.dir / root))

    def _scan_once(self, root: str, gen: int) -> Structure:
        nodes_dir = self.dir / root / NODES
        out = Structure(gen, dirty=True)
        records: list[tuple[int, str, str | None]] = []
        try:
            files = sorted(nodes_dir.glob("*.json"))
        except OSError as exc:
            raise os_error(exc, str(nodes_dir)) from None
        for path in files:
            node = parse_node(path, root)
            records.append((node.seq, node.id, node.parent))
        for seq, nid, parent in sorted(records):
            out.add(nid, parent, seq)
        return out

    def _refresh_all(self) -> None:
        self._checked.clear()
        for rid in self.roots():
            if (self.dir / rid).is_dir():
                self.structure(rid)

    def _locate(self, node_id: str) -> str:
        if ids.is_root_id(node_id):
            if node_id in self.roots():
                return node_id
            self._unregistered(node_id, node_id)
            raise NotFoundError("missing_root", f"no conversation {node_id}", where=node_id)
        root = self._home.get(node_id)
        if root is not None and root in self.roots() and node_id in self.structure(root).parent:
            return self._one_copy(node_id, root)
        self._refresh_all()
        root = self._home.get(node_id)
        if root is None or root not in self.roots():
            for conv in sorted(p.parent.parent.name for p in self.dir.glob(f"*/{NODES}/{node_id}.json")):
                self._unregistered(conv, node_id)
            raise NotFoundError("missing_node", f"no node {node_id}", where=node_id)
        return self._one_copy(node_id, root)

    def _one_copy(self, node_id: str, root: str) -> str:
        """`root`, unless `node_id` is stored in several conversations: then no path through it can
        be trusted, and the read fails loudly (fsck names the copy to set aside, repair does it)."""
        holders = sorted(r for r in list(self._copies.get(node_id, ())) if node_id in self.structure(r).parent)
        if len(holders) > 1:
            raise CorruptStoreError(
                "duplicate_node", f"{node_id} is stored in conversations {', '.join(holders)}", where=node_id
            )
        return root

    def _unregistered(self, root: str, node_id: str) -> None:
        """A conversation directory roots.json does not name holds `node_id`: the registry is
        corrupt (fsck: unregistered_root), which "no such node" would hide."""
        conv = self.dir / root
        if ids.is_root_id(root) and root not in self.roots() and (conv / NODES).is_dir():
            why = f"{node_id} is in conversation {root}, which roots.json does not register"
            raise CorruptStoreError("unregistered_root", why, where=str(conv))

    # reads -----------------------------------------------------------------------------------

    def node_path(self, root: str, node_id: str) -> Path:
        return self.dir / root / NODES / f"{node_id}.json"

    def get(self, node_id: str) -> Node:
        root = self._locate(node_id)
        self.structure(root)  # a missing conversation directory is named as such
        path = self.node_path(root, node_id)
        try:
            return parse_node(path, root)
        except FileNotFoundError:
            if ids.is_root_id(node_id):
                raise CorruptStoreError("missing_root_node", "the root node file is missing", where=str(path)) from None
            raise NotFoundError("missing_node", f"node file {path.name} is gone", where=node_id) from None

    def parent_of(self, node_id: str) -> str | None:
        return self.structure(self._locate(node_id)).parent[node_id]

    def children(self, node_id: str) -> list[str]:
        return list(self.structure(self._locate(node_id)).children.get(node_id, []))

    def next_seq(self, root: str) -> int:
        return self.structure(root).max_seq() + 1

    def bookmarks(self, root: str) -> dict[str, str]:
        path = self.dir / root / BOOKMARKS
        try:
            data = read_json(path, "corrupt_bookmarks")
        except FileNotFoundError:
            return {}
        marks = data.get("bookmarks") if isinstance(data, dict) else None
        if not isinstance(marks, dict) or not all(isinstance(v, str) for v in marks.values()):
            raise CorruptStoreError("corrupt_bookmarks", "expected {version, bookmarks: {name: node}}", where=str(path))
        return {str(k): v for k, v in marks.items()}

    def root_of(self, node_id: str) -> str:
        """The conversation a node belongs to (NotFoundError when none has it)."""
        return self._locate(node_id)

    def reading(self, root: str) -> AbstractContextManager[None]:
        """A consistent read of one conversation: under its lock (unless this backend holds it already),
        after rolling back an interrupted operation, with the generation checked again."""
        if root in self._held or not (self.dir / root).is_dir():
            return nullcontext()
        return self._locked(root)

    @contextmanager
    def _locked(self, root: str) -> Iterator[None]:
        conv = self.dir / root
        with self._lock(conv / LOCK):
            self._held.add(root)
            try:
                self._recover(root)
                self._checked.discard(root)
                yield
            finally:
                self._held.discard(root)

    def _recover(self, root: str) -> None:
        intent = self.dir / root / INTENT
        try:
            if recover(intent, self.dir):
                self._checked.discard(root)
                self._registry = None
        except IntentError as exc:
            raise CorruptStoreError("interrupted_operation", str(exc), where=str(intent)) from None
        except OSError as exc:
            raise os_error(exc, str(intent)) from None

    # writes ----------------------------------------------------------------------------------

    @contextmanager
    def _lock(self, path: Path) -> Iterator[None]:
        try:
            with FileLock(path, timeout=self.lock_timeout):
                yield
        except Timeout:
            raise StoreIOError("another writer holds the lock", where=str(path)) from None

    @contextmanager
    def transaction(self, root: str | None) -> Iterator[Changes]:
        changes = Changes()
        if root is None:
            raise StoreError("bad_argument", "a transaction needs a root", where="transaction")
        if root not in self.roots():
            conv = self.dir / root
            self.layer.mkdir(self.dir)
            with self._lock(self.dir / REGISTRY_LOCK):
                yield changes
                if changes.empty():
                    return
                created = not conv.exists()
                try:
                    self.layer.mkdir(conv / NODES)
                    self._commit(root, changes, Structure(0))
                except BaseException:
                    if created:
                        _remove_empty_tree(conv)
                    raise
            return
        conv = self.dir / root
        if not conv.is_dir():
            raise CorruptStoreError("missing_directory", f"conversation {root} has no directory", where=str(conv))
        with self._locked(root):
            structure = self.structure(root)  # another writer's change is seen here
            yield changes
            if not changes.empty():
                self._commit(root, changes, structure)

    def _commit(self, root: str, changes: Changes, structure: Structure) -> None:
        conv = self.dir / root
        gen = structure.generation + 1
        writes: list[tuple[Path, bytes]] = [(conv / GENERATION, str(gen).encode("ascii"))]
        writes += [(self.node_path(root, n.id), dumps(n.to_json())) for n in changes.put.values()]
        for rid, marks in changes.bookmarks.items():
            writes.append((self.dir / rid / BOOKMARKS, dumps({"version": 1, "bookmarks": marks})))
        deletes = [self.node_path(root, n.id) for n in changes.delete]
        if changes.new_root is not None:
            registry = self._registry_entries()
            registry.append({"id": changes.new_root, "created": changes.put[changes.new_root].created})
            writes.append((self.dir / REGISTRY, dumps({"version": 1, "roots": registry})))
        apply_atomically(self.layer, writes, deletes, tag=uuid.uuid4().hex[:8], barrier=True, intent=conv / INTENT)
        # the cache follows the files it describes
        for node in changes.delete:
            structure.remove(node.id)
            self._home.pop(node.id, None)
        for node in changes.put.values():
            structure.add(node.id, node.parent, node.seq)
            self._home[node.id] = root
        structure.generation = gen
        structure.dirty = True
        self._structures[root] = structure
        if changes.new_root is not None:
            self._registry = None

    def flush(self) -> None:
        """Write `structure.json` for every conversation whose cache changed."""
        for root, structure in self._structures.items():
            if not structure.dirty or not (self.dir / root).is_dir():
                continue
            data = {
                "generation": structure.generation,
                "nodes": {n: [p, structure.seq[n]] for n, p in structure.parent.items()},
            }
            apply_atomically(self.layer, [(self.dir / root / STRUCTURE, dumps(data))], [], tag="flush")
            structure.dirty = False

    def close(self) -> None:
        self.flush()


_SCAN_ATTEMPTS = 5


def _remove_empty_tree(path: Path) -> None:
    for sub in sorted(path.rglob("*"), reverse=True):
        if sub.is_dir():
            sub.rmdir()
        else:
            sub.unlink()
    path.rmdir()
