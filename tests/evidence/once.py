"""An official SDK's reading of one response, done once per process.

The corpus comparison (`test_corpus.py`), the review of the stored forms (`test_expected.py`), the
manifest's SDK facts (`test_manifest.py`) and the Responses corpus tests read the same recorded
bytes with the same SDK. A reading is a function of the response alone (status, headers in their
order, body, whether a stream was asked for) and of the installed SDK, so it is kept under those
four values: the same bytes give the same object, other bytes are read afresh. An exception the
reader raises for the response itself (`cached`, e.g. `SDKCannotRead`) is kept and raised again;
any other propagates and is not kept.

The object returned is shared: callers read it, never change it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import TypeVar

T = TypeVar("T")

Reader = Callable[[int, Mapping[str, str], bytes, bool], T]
_Key = tuple[int, tuple[tuple[str, str], ...], bytes, bool]


def once_per_response(*cached: type[Exception]) -> Callable[[Reader[T]], Reader[T]]:
    """A decorator: the reading of each distinct response computed once (`cached`: the exceptions
    that are the reading's answer for that response, kept with it)."""

    def decorate(read: Reader[T]) -> Reader[T]:
        results: dict[_Key, T] = {}
        raised: dict[_Key, Exception] = {}

        @functools.wraps(read)
        def reading(status: int, headers: Mapping[str, str], body: bytes, stream: bool) -> T:
            key = (status, tuple(headers.items()), bytes(body), bool(stream))
            if key in results:
                return results[key]
            if key in raised:
                raise raised[key]
            try:
                value = read(status, headers, body, stream)
            except cached as exc:
                raised[key] = exc
                raise
            results[key] = value
            return value

        return reading

    return decorate
