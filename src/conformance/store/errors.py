"""Typed store errors. Every one names what it is about (`where`: a node id, a root id or a file)
and carries a stable `kind`, the value a scenario expects::

    StoreError (InputError)
    ├── NotFoundError          missing_node | missing_root | missing_bookmark
    ├── InvalidIdError         invalid_id
    ├── BadArgumentError       bad_argument            (a missing or mistyped parameter)
    ├── InvalidMessageError    invalid_message | empty_edit | role_sequence | uncorrelated_tool_result
    ├── RootProtectedError     root_protected
    ├── CycleError             cycle
    ├── DepthLimitError        depth_limit
    ├── SplitError             split_boundary | split_too_small | split_tool
    ├── CorruptStoreError      corrupt_registry | corrupt_node | missing_directory | orphan_parent
    │                          | broken_path | root_has_parent | stored_cycle
    ├── DiskFullError          disk_full
    ├── StorePermissionError   permission
    └── StoreIOError           io
"""

from __future__ import annotations

import errno
from typing import Any

from conformance.exceptions import InputError


class StoreError(InputError):
    kind: str = "store"

    def __init__(self, kind: str, message: str, *, where: str) -> None:
        self.kind = kind
        self.message = message
        super().__init__(message, where=where)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "where": self.where, "message": str(self)}


class NotFoundError(StoreError):
    pass


class InvalidIdError(StoreError):
    def __init__(self, message: str, *, where: str) -> None:
        super().__init__("invalid_id", message, where=where)


class BadArgumentError(StoreError):
    def __init__(self, message: str, *, where: str) -> None:
        super().__init__("bad_argument", message, where=where)


class InvalidMessageError(StoreError):
    pass


class RootProtectedError(StoreError):
    def __init__(self, message: str, *, where: str) -> None:
        super().__init__("root_protected", message, where=where)


class CycleError(StoreError):
    def __init__(self, message: str, *, where: str) -> None:
        super().__init__("cycle", message, where=where)


class DepthLimitError(StoreError):
    def __init__(self, message: str, *, where: str) -> None:
        super().__init__("depth_limit", message, where=where)


class SplitError(StoreError):
    pass


class CorruptStoreError(StoreError):
    pass


class DiskFullError(StoreError):
    def __init__(self, message: str, *, where: str) -> None:
        super().__init__("disk_full", message, where=where)


class StorePermissionError(StoreError):
    def __init__(self, message: str, *, where: str) -> None:
        super().__init__("permission", message, where=where)


class StoreIOError(StoreError):
    def __init__(self, message: str, *, where: str) -> None:
        super().__init__("io", message, where=where)


def os_error(exc: OSError, where: str) -> StoreError:
    """An `OSError` from the write or read layer as a typed store error naming `where`."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return DiskFullError(f"no space left on the device ({exc.strerror})", where=where)
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return StorePermissionError(f"permission denied ({exc.strerror})", where=where)
    return StoreIOError(f"{type(exc).__name__}: {exc.strerror or exc}", where=where)
