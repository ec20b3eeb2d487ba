"""The stored records and the message rules every backend shares.

A node holds one canonical message (`conformance.model`): the root node holds the conversation's
system message, every other node one user, assistant or tool-result message. Messages are stored
in their contract JSON form (null fields left out).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from conformance.model import parse_message
from conformance.store.errors import BadArgumentError, InvalidMessageError

SOURCE_APPEND: dict[str, Any] = {"type": "append"}
SOURCE_USER: dict[str, Any] = {"type": "user"}
SOURCE_SYSTEM: dict[str, Any] = {"type": "system"}


@dataclass
class Node:
    id: str
    root: str
    parent: str | None
    seq: int
    """Creation order within the conversation: children are listed in this order."""
    message: dict[str, Any]
    source_info: dict[str, Any] = field(default_factory=dict)
    created: float = 0.0
    updated: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "root": self.root,
            "parent": self.parent,
            "seq": self.seq,
            "message": self.message,
            "source_info": self.source_info,
            "created": self.created,
            "updated": self.updated,
        }

    @classmethod
    def from_json(cls, data: Any) -> Node:
        """Raises KeyError/TypeError/ValueError on a malformed record (callers name the file)."""
        if not isinstance(data, dict):
            raise TypeError("a node record is a JSON object")
        parent = data["parent"]
        if parent is not None and not isinstance(parent, str):
            raise TypeError("parent must be a string or null")
        message, source = data["message"], data.get("source_info", {})
        if not isinstance(message, dict) or not isinstance(source, dict):
            raise TypeError("message and source_info are objects")
        return cls(
            id=str(data["id"]),
            root=str(data["root"]),
            parent=parent,
            seq=int(data["seq"]),
            message=message,
            source_info=source,
            created=float(data.get("created", 0.0)),
            updated=float(data.get("updated", 0.0)),
        )

    @property
    def role(self) -> str:
        return str(self.message.get("role"))


def _blank(block: dict[str, Any]) -> bool:
    return block.get("type") == "text" and not str(block.get("text", "")).strip()


def normalize_message(data: Any, where: str) -> dict[str, Any]:
    """A well-formed canonical message: known blocks, a non-empty `content` that is not all blank text."""
    if not isinstance(data, dict):
        raise BadArgumentError("message must be an object", where=where)
    try:
        message = parse_message(data).model_dump(mode="json", exclude_none=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise InvalidMessageError("invalid_message", f"{loc}: {first['msg']}", where=where) from None
    check_content(message["content"], where, kind="invalid_message")
    return message


def check_content(content: list[dict[str, Any]], where: str, *, kind: str) -> None:
    if not content:
        raise InvalidMessageError(kind, "content must be a non-empty list of blocks", where=where)
    if all(_blank(b) for b in content):
        raise InvalidMessageError(kind, "every block of content is empty text", where=where)


def with_content(message: dict[str, Any], content: Any, where: str) -> dict[str, Any]:
    """`message` with its content replaced (role and tool-result fields kept), validated."""
    if content is None:
        raise BadArgumentError("content is required", where=where)
    if (isinstance(content, list) and not content) or (isinstance(content, str) and not content.strip()):
        raise InvalidMessageError("empty_edit", "an edit must not leave the message empty", where=where)
    updated = {k: v for k, v in message.items() if k not in ("content", "usage", "stop_reason", "raw_stop_reason")}
    updated["content"] = content
    try:
        result = normalize_message(updated, where)
    except InvalidMessageError as exc:
        if "empty" in str(exc):
            raise InvalidMessageError("empty_edit", "an edit must not leave the message empty", where=where) from None
        raise
    return result


def tool_call_ids(message: dict[str, Any]) -> list[str]:
    if message.get("role") != "assistant":
        return []
    return [str(b["id"]) for b in message.get("content", []) if b.get("type") == "tool_call"]


def text_only(message: dict[str, Any]) -> bool:
    return all(b.get("type") == "text" for b in message.get("content", []))


def split_content(
    message: dict[str, Any], block: Any, offset: Any, where: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(head, tail) of a message cut before `content[block]`, or inside that text block at `offset`.

    The tail keeps every tool call (its results follow it) and, for an assistant message, the head
    is text only: thinking and its signature stay with the turn they sign."""
    from conformance.store.errors import SplitError

    if message.get("role") in ("tool_result",):
        raise SplitError("split_tool", "a tool result message cannot be split", where=where)
    if not isinstance(block, int) or isinstance(block, bool) or (offset is not None and not isinstance(offset, int)):
        raise BadArgumentError("block (and offset) must be integers", where=where)
    content: list[dict[str, Any]] = message["content"]
    if not 0 <= block < len(content):
        raise SplitError("split_boundary", f"block {block} is outside content[0:{len(content)}]", where=where)
    if offset is None:
        if block == 0:
            raise SplitError("split_boundary", "a split before the first block leaves nothing before it", where=where)
        head, tail = content[:block], content[block:]
    else:
        target = content[block]
        if target.get("type") != "text":
            raise SplitError("split_boundary", f"content[{block}] is not a text block", where=where)
        text = str(target["text"])
        if not 0 < offset < len(text):
            raise SplitError(
                "split_boundary", f"offset {offset} is not inside the text (1..{len(text) - 1})", where=where
            )
        head = [*content[:block], {**target, "text": text[:offset]}]
        tail = [{**target, "text": text[offset:]}, *content[block + 1 :]]
        head[-1].pop("signature", None)
        tail[0].pop("signature", None)
    if message.get("role") == "assistant" and not all(b.get("type") == "text" for b in head):
        raise SplitError("split_boundary", "the first part of an assistant message must be text only", where=where)
    for part in (head, tail):
        if all(_blank(b) for b in part):
            raise SplitError("split_too_small", "each part of a split needs non-blank content", where=where)
    base = {k: v for k, v in message.items() if k != "content"}
    head_message = {"role": message["role"], "content": head}
    return head_message, {**base, "content": tail}
