"""Ollama errors: `{"error": "<string>"}`, classified by message pattern, then HTTP status.

A missing model (`404 model 'x' not found`) gets a hint to pull it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from conformance import jsonvalue
from conformance.capabilities import ProviderProfile
from conformance.codecs.errorkit import kind_for_status, make_error, retry_after_from_headers
from conformance.codecs.ollama.tables import MESSAGE_KINDS, MIDSTREAM_ERROR_KIND, MODEL_NOT_FOUND
from conformance.model import ErrorKind, ProviderError

_MAX_MESSAGE = 500


def error_message(data: Any) -> str | None:
    """The message of an `{"error": …}` value (a string, or an object with `message`)."""
    if not isinstance(data, dict) or "error" not in data:
        return None
    error = data["error"]
    if isinstance(error, str):
        return error
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return orjson.dumps(error).decode()


def error_from_message(message: str, *, status: int | None, headers: Mapping[str, str] | None = None) -> ProviderError:
    kind: ErrorKind | None = next((k for pattern, k in MESSAGE_KINDS if pattern.search(message)), None)
    if kind is None:
        kind = kind_for_status(status) if status is not None and status >= 400 else MIDSTREAM_ERROR_KIND
    if (missing := MODEL_NOT_FOUND.search(message)) is not None:
        message = f"{message} — run `ollama pull {missing['model']}`"
    retry = retry_after_from_headers(headers) if headers else None
    return make_error(kind, status=status, message=message, retry_after_s=retry)


def classify(status: int, headers: Mapping[str, str], body: bytes, profile: ProviderProfile) -> ProviderError:
    del profile  # one Ollama vocabulary for every profile of this dialect
    try:
        data = jsonvalue.loads(body) if body.strip() else None
    except orjson.JSONDecodeError:
        data = None
    message = error_message(data)
    if message is None:
        message = body.decode("utf-8", errors="replace").strip()[:_MAX_MESSAGE]
    return error_from_message(message, status=status, headers=headers)
