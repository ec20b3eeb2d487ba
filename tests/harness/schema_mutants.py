"""Mutant runtimes for the tool-schema rows: the reference with one realistic sanitizer bug each,
planted for the length of one encode call."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from conformance.capabilities import ProviderProfile
from conformance.runtime import schema
from conformance.runtime.reference import ReferenceRuntime

PREPARE = importlib.import_module("conformance.runtime.prepare")  # the package re-exports the function `prepare`


def _drop_format_keys(node: Any, allowed: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_drop_format_keys(v, allowed) for v in node]
    if not isinstance(node, dict):
        return node
    return {k: _drop_format_keys(v, allowed) for k, v in node.items() if k != "format" or v in allowed}


class StripsFormatByName(ReferenceRuntime):
    """Removes every key called `format` that a provider's format list does not accept, the parameter named `format` too."""

    name = "mutant-strips-format-by-name"

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        def sanitize(tool_schema: dict[str, Any], profile: ProviderProfile) -> schema.SanitizedSchema:
            out = schema.sanitize_schema(tool_schema, profile)
            if profile.schema_string_formats is None:
                return out
            kept = _drop_format_keys(out.schema, profile.schema_string_formats)
            return schema.SanitizedSchema(kept, out.removed, out.defaults, out.warnings)

        with mock.patch.object(PREPARE, "sanitize_schema", sanitize):
            return super().encode(conversation, provider)


@contextmanager
def _keeping_one_of() -> Iterator[None]:
    flatten = schema._Sanitizer.flatten

    def flatten_but_one_of(self: Any, node: dict[str, Any], path: str, refs: tuple[str, ...]) -> dict[str, Any]:
        one_of = node.pop("oneOf", None)
        out = flatten(self, node, path, refs)
        return out if one_of is None else {**out, "oneOf": one_of}

    with mock.patch.object(schema._Sanitizer, "flatten", flatten_but_one_of):
        yield


class KeepsOneOf(ReferenceRuntime):
    """Flattens `allOf` for a provider without combinators but sends `oneOf` as it is."""

    name = "mutant-keeps-one-of"

    def encode(self, conversation: dict[str, Any], provider: str) -> dict[str, Any]:
        with _keeping_one_of():
            return super().encode(conversation, provider)
