"""Bytes to frames, provider-agnostic and incremental (`feed(bytes)` / `finish()`)."""

from conformance.wire.ndjson import NDJSONDecoder, NDJSONRecord, parse_ndjson
from conformance.wire.sse import SSEDecoder, SSEEvent, SSEFrame, parse_sse

__all__ = ["NDJSONDecoder", "NDJSONRecord", "SSEDecoder", "SSEEvent", "SSEFrame", "parse_ndjson", "parse_sse"]
