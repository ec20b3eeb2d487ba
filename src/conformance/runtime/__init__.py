"""The reference runtime: prepare (repair, schemas, budget), the turn loop with its retry policy,
auth profiles and tool execution, and JSONL transcripts.

The pieces most users reach for are re-exported here; each module documents its own rules.
"""

from conformance.runtime.auth import AuthPool, apply_auth, resolve_key
from conformance.runtime.clock import Clock, FakeClock, SystemClock
from conformance.runtime.compress import compress_tool_results
from conformance.runtime.entry import validate_entry
from conformance.runtime.prepare import Prepared, prepare
from conformance.runtime.protocol import Runtime
from conformance.runtime.reference import ReferenceRuntime
from conformance.runtime.repair import RepairOptions, RepairResult, repair
from conformance.runtime.retry import RetryPolicy, decide
from conformance.runtime.tools import ToolRegistry, run_tool_calls
from conformance.runtime.transcripts import append_message, load_transcript, save_transcript
from conformance.runtime.turn import TraceStep, TurnResult, run_turn

__all__ = [
    "AuthPool",
    "Clock",
    "FakeClock",
    "Prepared",
    "ReferenceRuntime",
    "RepairOptions",
    "RepairResult",
    "RetryPolicy",
    "Runtime",
    "SystemClock",
    "ToolRegistry",
    "TraceStep",
    "TurnResult",
    "append_message",
    "apply_auth",
    "compress_tool_results",
    "decide",
    "load_transcript",
    "prepare",
    "repair",
    "resolve_key",
    "run_tool_calls",
    "run_turn",
    "save_transcript",
    "validate_entry",
]
