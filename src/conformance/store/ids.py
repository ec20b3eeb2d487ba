"""Node and root ids: `n_` / `r_` + 16 lowercase hex digits, made from an injected random source.

The format is checked at every API boundary, so an id can never name a path outside the store
(`../x`) or collide with a store file (`roots.json`).
"""

from __future__ import annotations

import random
import re

from conformance.store.errors import BadArgumentError, InvalidIdError

NODE_ID = re.compile(r"n_[0-9a-f]{16}")
ROOT_ID = re.compile(r"r_[0-9a-f]{16}")
BOOKMARK_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


class IdFactory:
    """Fresh ids from `rng` (a seeded `random.Random` makes a run reproducible)."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self._rng = rng or random.Random()

    def node(self) -> str:
        return f"n_{self._rng.getrandbits(64):016x}"

    def root(self) -> str:
        return f"r_{self._rng.getrandbits(64):016x}"


def _text(value: object, what: str) -> str:
    if value is None:
        raise BadArgumentError(f"{what} is required", where=what)
    if not isinstance(value, str):
        raise BadArgumentError(f"{what} must be a string, not {type(value).__name__}", where=what)
    return value


def is_root_id(value: str) -> bool:
    return ROOT_ID.fullmatch(value) is not None


def node_id(value: object, what: str = "node") -> str:
    """A node id (a root id is also the id of its root node)."""
    text = _text(value, what)
    if NODE_ID.fullmatch(text) is None and ROOT_ID.fullmatch(text) is None:
        raise InvalidIdError(f"{what} id {text!r} is not n_/r_ + 16 hex digits", where=text)
    return text


def root_id(value: object, what: str = "root") -> str:
    text = _text(value, what)
    if ROOT_ID.fullmatch(text) is None:
        raise InvalidIdError(f"{what} id {text!r} is not r_ + 16 hex digits", where=text)
    return text


def bookmark_name(value: object) -> str:
    text = _text(value, "bookmark")
    if BOOKMARK_NAME.fullmatch(text) is None:
        raise InvalidIdError(f"bookmark name {text!r} is not 1-64 of [A-Za-z0-9_.-]", where=text)
    return text
