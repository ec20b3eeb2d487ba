"""A third-party conversation-tree store under test: an in-memory implementation written from
docs/store.md alone (it shares no code with `conformance.store`), behind the `store` capability.

    conformance run --runtime examples.memory_store:make --scenario store_reparent --provider openai

Only the canonical message parser is borrowed, since messages are compared in the normalized form.
An adapter for your own store has the same shape: `store_session(backend, directory, options)`
returns an object with `apply(op)`, `tree()`, `fsck()` and `close()`, JSON in and JSON out;
`apply` may be called from several threads at once (`store_concurrent_writes`).
"""

from __future__ import annotations

import re
import threading
from typing import Any

from pydantic import ValidationError

from conformance.model import parse_message

_ID = re.compile(r"[nr]_[0-9a-f]{16}")
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


class Failure(Exception):
    def __init__(self, kind: str, where: str) -> None:
        super().__init__(f"{kind} at {where}")
        self.kind, self.where = kind, where


def _blank(content: list[dict[str, Any]]) -> bool:
    return all(b.get("type") == "text" and not str(b.get("text", "")).strip() for b in content)


class MemorySession:
    def __init__(self, options: dict[str, Any] | None = None) -> None:
        self.max_depth = int((options or {}).get("max_depth", 10_000))
        self.nodes: dict[str, dict[str, Any]] = {}
        self.roots: list[str] = []
        self.marks: dict[str, dict[str, str]] = {}
        self.counter = 0
        self.lock = threading.Lock()  # callers on several threads take turns, one operation at a time

    # protocol ------------------------------------------------------------------------------------

    def apply(self, op: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            return self._apply(op)

    def _apply(self, op: dict[str, Any]) -> dict[str, Any]:
        try:
            handler = getattr(self, f"op_{op.get('op')}", None)
            if handler is None:
                raise Failure("bad_argument", "op")
            result: dict[str, Any] = handler(op)
            return result
        except Failure as exc:
            return {"error": {"kind": exc.kind, "where": exc.where, "message": str(exc)}}

    def tree(self) -> dict[str, Any]:
        nodes: list[dict[str, Any]] = []
        marks: list[dict[str, str]] = []
        for root in self.roots:
            for nid in self._subtree(root):
                n = self.nodes[nid]
                nodes.append({k: n[k] for k in ("id", "parent", "message", "source_info")})
            marks += [{"root": root, "name": k, "node": v} for k, v in sorted(self.marks[root].items())]
        return {"roots": list(self.roots), "nodes": nodes, "bookmarks": marks}

    def fsck(self) -> list[dict[str, str]]:
        out = []
        for nid, node in self.nodes.items():
            if node["parent"] is not None and node["parent"] not in self.nodes:
                out.append({"kind": "orphan_parent", "where": nid, "detail": ""})
        for root, marks in self.marks.items():
            out += [
                {"kind": "dangling_bookmark", "where": f"{root}#{k}", "detail": ""}
                for k, v in marks.items()
                if v not in self.nodes
            ]
        return out

    def close(self) -> None:
        pass

    # helpers -------------------------------------------------------------------------------------

    def _arg(self, op: dict[str, Any], key: str) -> Any:
        if key not in op:
            raise Failure("bad_argument", key)
        return op[key]

    def _id(self, op: dict[str, Any], key: str) -> str:
        value = self._arg(op, key)
        if not isinstance(value, str):
            raise Failure("bad_argument", key)
        if not _ID.fullmatch(value):
            raise Failure("invalid_id", value)
        return value

    def _get(self, op: dict[str, Any], key: str) -> dict[str, Any]:
        nid = self._id(op, key)
        if nid not in self.nodes:
            raise Failure("missing_root" if nid.startswith("r_") else "missing_node", nid)
        return self.nodes[nid]

    def _root(self, op: dict[str, Any]) -> str:
        rid = self._id(op, "root")
        if not rid.startswith("r_"):
            raise Failure("invalid_id", rid)
        if rid not in self.roots:
            raise Failure("missing_root", rid)
        return rid

    def _name(self, op: dict[str, Any]) -> str:
        name = self._arg(op, "name")
        if not isinstance(name, str):
            raise Failure("bad_argument", "name")
        if not _NAME.fullmatch(name):
            raise Failure("invalid_id", name)
        return name

    def _message(self, data: Any, where: str, kind: str = "invalid_message") -> dict[str, Any]:
        if not isinstance(data, dict):
            raise Failure("bad_argument", where)
        try:
            message = parse_message(data).model_dump(mode="json", exclude_none=True)
        except ValidationError:
            raise Failure(kind, where) from None
        if not message["content"] or _blank(message["content"]):
            raise Failure(kind, where)
        return message

    def _new(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}_{self.counter:016x}"

    def _children(self, nid: str) -> list[str]:
        kids = [n for n in self.nodes.values() if n["parent"] == nid]
        return [n["id"] for n in sorted(kids, key=lambda n: n["seq"])]

    def _subtree(self, nid: str) -> list[str]:
        out = [nid]
        for child in self._children(nid):
            out += self._subtree(child)
        return out

    def _depth(self, nid: str) -> int:
        depth = 0
        while self.nodes[nid]["parent"] is not None:
            nid = self.nodes[nid]["parent"]
            depth += 1
        return depth

    def _height(self, nid: str) -> int:
        return max((1 + self._height(c) for c in self._children(nid)), default=0)

    def _place(self, message: dict[str, Any], parent: dict[str, Any], where: str) -> None:
        if message["role"] == "system":
            raise Failure("role_sequence", where)
        if message["role"] != "tool_result":
            return
        above: dict[str, Any] | None = parent
        while above is not None and above["message"]["role"] == "tool_result":
            above = self.nodes.get(above["parent"] or "")
        calls = (
            []
            if above is None
            else [b["id"] for b in above["message"]["content"] if b["type"] == "tool_call"]
            if above["message"]["role"] == "assistant"
            else []
        )
        if message["tool_call_id"] not in calls:
            raise Failure("uncorrelated_tool_result", where)

    def _put(self, nid: str, root: str, parent: str | None, message: dict[str, Any], source: dict[str, Any]) -> None:
        seq = 1 + max((n["seq"] for n in self.nodes.values() if n["root"] == root), default=-1)
        self.nodes[nid] = {
            "id": nid,
            "root": root,
            "parent": parent,
            "seq": seq,
            "message": message,
            "source_info": source,
        }

    # operations ----------------------------------------------------------------------------------

    def op_create_root(self, op: dict[str, Any]) -> dict[str, Any]:
        system = self._arg(op, "system")
        if isinstance(system, str):
            system = {"role": "system", "content": system}
        message = self._message(system, "system")
        if message["role"] != "system":
            raise Failure("role_sequence", "system")
        rid = self._new("r")
        self.roots.append(rid)
        self.marks[rid] = {}
        self._put(rid, rid, None, message, {"type": "system"})
        return {"id": rid}

    def op_append(self, op: dict[str, Any]) -> dict[str, Any]:
        parent = self._get(op, "parent")
        message = self._message(self._arg(op, "message"), parent["id"])
        self._place(message, parent, parent["id"])
        if self._depth(parent["id"]) + 1 > self.max_depth:
            raise Failure("depth_limit", parent["id"])
        nid = self._new("n")
        self._put(nid, parent["root"], parent["id"], message, dict(op.get("source_info") or {"type": "append"}))
        return {"id": nid}

    def op_path(self, op: dict[str, Any]) -> dict[str, Any]:
        node: dict[str, Any] | None = self._get(op, "node")
        chain = []
        while node is not None:
            chain.append(node["message"])
            node = self.nodes.get(node["parent"]) if node["parent"] else None
        chain.reverse()
        if not op.get("coalesce"):
            return {"messages": chain}
        out: list[dict[str, Any]] = []
        for m in chain:
            prev = out[-1] if out else None
            if (
                prev is not None
                and prev["role"] == m["role"]
                and m["role"] in ("user", "assistant")
                and all(b["type"] == "text" for b in prev["content"] + m["content"])
            ):
                out[-1] = {"role": m["role"], "content": prev["content"] + m["content"]}
            else:
                out.append(m)
        return {"messages": out}

    def op_children(self, op: dict[str, Any]) -> dict[str, Any]:
        return {"children": self._children(self._get(op, "node")["id"])}

    def op_edit(self, op: dict[str, Any]) -> dict[str, Any]:
        node = self._get(op, "node")
        if node["parent"] is None:
            raise Failure("root_protected", node["id"])
        content = self._arg(op, "content")
        base = {
            k: v for k, v in node["message"].items() if k not in ("content", "usage", "stop_reason", "raw_stop_reason")
        }
        message = self._message({**base, "content": content}, node["id"], kind="empty_edit")
        if message == node["message"]:
            return {"id": node["id"], "branched": False}
        self._place(message, self.nodes[node["parent"]], node["id"])
        if not self._children(node["id"]):
            node["message"], node["source_info"] = message, {"type": "user"}
            return {"id": node["id"], "branched": False}
        nid = self._new("n")
        self._put(nid, node["root"], node["parent"], message, {"type": "user"})
        return {"id": nid, "branched": True}

    def op_split(self, op: dict[str, Any]) -> dict[str, Any]:
        node = self._get(op, "node")
        if node["parent"] is None:
            raise Failure("root_protected", node["id"])
        message, where = node["message"], node["id"]
        if message["role"] == "tool_result":
            raise Failure("split_tool", where)
        block, offset, content = op.get("block"), op.get("offset"), message["content"]
        if not isinstance(block, int) or not 0 <= block < len(content):
            raise Failure("split_boundary", where)
        if offset is None:
            if block == 0:
                raise Failure("split_boundary", where)
            head, tail = content[:block], content[block:]
        else:
            text = content[block].get("text")
            if content[block]["type"] != "text" or not 0 < offset < len(text):
                raise Failure("split_boundary", where)
            plain = {k: v for k, v in content[block].items() if k != "signature"}
            head = [*content[:block], {**plain, "text": text[:offset]}]
            tail = [{**plain, "text": text[offset:]}, *content[block + 1 :]]
        if message["role"] == "assistant" and any(b["type"] != "text" for b in head):
            raise Failure("split_boundary", where)
        if _blank(head) or _blank(tail):
            raise Failure("split_too_small", where)
        if self._depth(where) + self._height(where) + 1 > self.max_depth:
            raise Failure("depth_limit", where)
        hid = self._new("n")
        self._put(
            hid, node["root"], node["parent"], {"role": message["role"], "content": head}, dict(node["source_info"])
        )
        node["parent"], node["message"] = hid, {**message, "content": tail}
        return {"id": where, "head": hid}

    def op_delete(self, op: dict[str, Any]) -> dict[str, Any]:
        node = self._get(op, "node")
        if node["parent"] is None:
            raise Failure("root_protected", node["id"])
        doomed = self._subtree(node["id"])
        moved, removed = {}, []
        marks = self.marks[node["root"]]
        for name, target in list(marks.items()):
            if target in doomed:
                if node["parent"] == node["root"]:
                    removed.append(name)
                    del marks[name]
                else:
                    moved[name] = marks[name] = node["parent"]
        for nid in doomed:
            del self.nodes[nid]
        return {"deleted": doomed, "bookmarks_moved": moved, "bookmarks_removed": sorted(removed)}

    def op_reparent(self, op: dict[str, Any]) -> dict[str, Any]:
        node = self._get(op, "node")
        if node["parent"] is None:
            raise Failure("root_protected", node["id"])
        target = self._get(op, "parent")
        if target["root"] != node["root"]:
            raise Failure("invalid_target", node["id"])
        if target["id"] in self._subtree(node["id"]):
            raise Failure("cycle", node["id"])
        if target["id"] != node["parent"]:
            if self._depth(target["id"]) + 1 + self._height(node["id"]) > self.max_depth:
                raise Failure("depth_limit", node["id"])
            self._place(node["message"], target, node["id"])
            chain = [c for c in self._subtree(node["id"])[1:] if node["message"]["role"] == "tool_result"]
            for child in chain:
                if self.nodes[child]["message"]["role"] == "tool_result":
                    self._place(self.nodes[child]["message"], target, child)
            node["parent"] = target["id"]
        return {"id": node["id"], "parent": target["id"]}

    def op_bookmark(self, op: dict[str, Any]) -> dict[str, Any]:
        root, name = self._root(op), self._name(op)
        node = self._get(op, "node")
        if node["root"] != root:
            raise Failure("invalid_target", node["id"])
        self.marks[root][name] = node["id"]
        return {}

    def op_unbookmark(self, op: dict[str, Any]) -> dict[str, Any]:
        root, name = self._root(op), self._name(op)
        if self.marks[root].pop(name, None) is None:
            raise Failure("missing_bookmark", name)
        return {}

    def op_bookmarks(self, op: dict[str, Any]) -> dict[str, Any]:
        return {"bookmarks": dict(sorted(self.marks[self._root(op)].items()))}

    def op_resolve(self, op: dict[str, Any]) -> dict[str, Any]:
        root, name = self._root(op), self._name(op)
        if name not in self.marks[root]:
            raise Failure("missing_bookmark", name)
        return {"node": self.marks[root][name]}


class MemoryStoreRuntime:
    """A runtime offering the `store` capability alone: the in-memory store above. Every other row is
    `skipped` (the store is all this example implements)."""

    name = "memory-store"
    store_backends = ("memory",)

    def store_session(self, backend: str, directory: str, options: dict[str, Any] | None = None) -> MemorySession:
        return MemorySession(options)


def make() -> MemoryStoreRuntime:
    return MemoryStoreRuntime()
