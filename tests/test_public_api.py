"""The public API is pinned: what third parties import, and that every piece of it is documented.

Changing an `__all__` below is a deliberate API change: a name removed breaks someone's import.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from types import ModuleType
from typing import Any

import pytest
from pydantic import BaseModel

from conformance.capabilities import ModelInfo, ProviderProfile

PUBLIC_API: dict[str, list[str]] = {
    "conformance.adapters": [
        "ChunkStream",
        "DecodeOnly",
        "Httpx2Transport",
        "ReplayMismatch",
        "Reproduction",
        "Served",
        "arguments_json",
        "conversation_parts",
        "failed",
        "httpx_transport",
        "mock_transport",
        "recorded_response",
        "reraise_replay_mismatch",
        "sdk_sleeps_on",
        "serve_response",
        "text_of",
    ],
    "conformance.capabilities": [
        "AuthStyle",
        "BuiltinDialect",
        "KeyShape",
        "ModelInfo",
        "ProviderProfile",
        "default_columns",
        "get_profile",
        "listed_only",
        "matrix_providers",
        "provider_names",
        "register",
    ],
    "conformance.runtime.protocol": [
        "CAPABILITIES",
        "DECODE_KEYWORDS",
        "OPTIONAL_FIELDS",
        "AgentCapable",
        "AgentRequest",
        "CancelSignal",
        "Declaration",
        "DecodeCapable",
        "EncodeCapable",
        "POLICY_SETTINGS",
        "REFUSED",
        "PolicyValue",
        "RepairCapable",
        "Runtime",
        "SETTABLE",
        "UNAVAILABLE",
        "TurnCapable",
        "TurnClock",
        "TurnRequest",
        "capabilities_of",
        "declaration_of",
        "decode_response",
        "missing_capabilities",
        "refusal_of",
    ],
    "conformance.codecs": [
        "Codec",
        "MessageBuilder",
        "StreamAccumulator",
        "WireRequest",
        "codec_for",
        "decode_response",
        "header",
        "register_codec",
    ],
    "conformance.harness": [
        "CHECK_REGISTRY",
        "HarnessContext",
        "build_matrix",
        "judge",
        "register_check",
        "result",
        "run_all",
        "run_check",
    ],
    "conformance.scenarios": [
        "CHECKS",
        "FEATURES",
        "FEATURE_IDS",
        "Feature",
        "GROUPS",
        "ProviderEntry",
        "Scenario",
        "ScenarioFile",
        "MANIFEST",
        "RootManifest",
        "all_features",
        "deep_merge",
        "feature",
        "known_checks",
        "known_feature_ids",
        "load_layered",
        "load_scenario",
        "load_scenarios",
        "read_manifest",
        "register_check_name",
        "register_feature",
        "stack_roots",
    ],
    "conformance.model": [
        "AssistantBlock",
        "AssistantMessage",
        "Conversation",
        "DoneEvent",
        "ERROR_KINDS",
        "ErrorEvent",
        "ErrorKind",
        "ImageBlock",
        "MESSAGES_ADAPTER",
        "MESSAGE_ADAPTER",
        "Message",
        "Options",
        "Outcome",
        "ProviderError",
        "RedactedThinkingBlock",
        "ServerToolBlock",
        "Source",
        "StartEvent",
        "StopReason",
        "StreamEvent",
        "SystemMessage",
        "TextBlock",
        "TextDeltaEvent",
        "ThinkingBlock",
        "ThinkingDeltaEvent",
        "ToolCallBlock",
        "ToolCallDeltaEvent",
        "ToolCallEndEvent",
        "ToolCallStartEvent",
        "ToolResultMessage",
        "ToolSpec",
        "Usage",
        "UserBlock",
        "UserMessageBlock",
        "UserMessage",
        "dump",
        "parse_message",
        "text_of",
    ],
    "conformance.strategies": [
        "CorruptedJsonl",
        "KINDS",
        "MUTATIONS",
        "Pathological",
        "as_scenario_yaml",
        "jsonl_corruptions",
        "jsonl_line",
        "pathological",
        "rechunkings",
        "transcripts",
    ],
    "conformance.compare": [
        "DEFAULT_IGNORE",
        "DiffEntry",
        "ScenarioResult",
        "VERDICTS",
        "Verdict",
        "diff",
        "format_path",
        "is_ignored",
        "render_diff",
    ],
    "conformance.secrets": [
        "CREDENTIAL_HEADER",
        "ID_HEADER",
        "KEY_HEADERS",
        "Secret",
        "MIN_SUBSTRING",
        "QUERY_KEYS",
        "REDACTED",
        "REQUEST_HEADERS",
        "RESPONSE_HEADERS",
        "RESPONSE_HEADER_PREFIXES",
        "SAFE_HEADER_VALUE",
        "contains_secret",
        "entropy",
        "find_key",
        "fingerprint_headers",
        "fingerprint_query",
        "header_credential",
        "is_secret_header_value",
        "keep_response_header",
        "key_fingerprint",
        "key_shapes",
        "redact",
        "redact_line",
        "reveal",
        "scrub_exact",
        "scrub_headers",
        "scrub_url",
        "unescape_ascii",
    ],
    "conformance.exceptions": [
        "CassetteError",
        "ConformanceError",
        "ContextBudgetError",
        "InputError",
        "MissingKeyError",
        "ScenarioError",
        "SchemaError",
        "TranscriptError",
        "UnknownProviderError",
        "UnsupportedFeatureError",
        "WireFormatError",
        "WorkerCrashedError",
    ],
    "conformance.report.matrix": [
        "Cell",
        "DiffEntry",
        "FeatureRow",
        "Matrix",
        "Provenance",
        "REAL_VERDICTS",
        "RealBacking",
        "RealCall",
        "RealColumn",
        "RealTraffic",
        "RealVerdict",
        "SCHEMA_VERSION",
        "ScenarioResult",
        "VERDICTS",
        "Verdict",
        "cell_verdict",
    ],
}


def _module(name: str) -> ModuleType:
    return importlib.import_module(name)


def _own_doc(obj: Any) -> str:
    """The docstring `obj` itself carries: not one inherited, not one a decorator made up."""
    if not inspect.isclass(obj):
        return (getattr(obj, "__doc__", None) or "").strip()
    doc = (vars(obj).get("__doc__") or "").strip()
    if dataclasses.is_dataclass(obj) and doc.startswith(f"{obj.__name__}("):
        return ""  # the signature `dataclass` writes when the class has no docstring
    return doc


def _undocumented(name: str, obj: Any) -> list[str]:
    """`name` and its public methods, wherever one lacks its own docstring."""
    if inspect.isroutine(obj):
        return [] if _own_doc(obj) else [name]
    if not inspect.isclass(obj):
        return []  # constants, type aliases and adapters are documented where they are defined
    missing = [] if _own_doc(obj) else [name]
    for attr, value in vars(obj).items():
        if attr.startswith("_"):
            continue
        func = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
        if inspect.isfunction(func) and not (func.__doc__ or "").strip():
            missing.append(f"{name}.{attr}")
    return missing


@pytest.mark.parametrize("module_name", sorted(PUBLIC_API))
def test_all_is_pinned(module_name: str) -> None:
    exported = getattr(_module(module_name), "__all__", None)
    assert exported is not None, f"{module_name} has no __all__"
    assert len(set(exported)) == len(exported), f"{module_name}.__all__ repeats a name"
    assert sorted(exported) == sorted(PUBLIC_API[module_name])


@pytest.mark.parametrize("module_name", sorted(PUBLIC_API))
def test_every_exported_name_exists(module_name: str) -> None:
    module = _module(module_name)
    assert [name for name in module.__all__ if not hasattr(module, name)] == []


@pytest.mark.parametrize("module_name", sorted(PUBLIC_API))
def test_public_classes_and_callables_are_documented(module_name: str) -> None:
    module = _module(module_name)
    assert (module.__doc__ or "").strip(), f"{module_name} has no module docstring"
    missing = [m for name in module.__all__ for m in _undocumented(name, getattr(module, name))]
    assert missing == [], f"undocumented in {module_name}: {', '.join(missing)}"


@pytest.mark.parametrize("model", [ProviderProfile, ModelInfo])
def test_every_profile_field_is_described(model: type[BaseModel]) -> None:
    """A new flag cannot be added without saying what it means: its attribute docstring."""
    undescribed = [name for name, info in model.model_fields.items() if not (info.description or "").strip()]
    assert undescribed == []


def test_field_description_is_the_attribute_docstring() -> None:
    assert ProviderProfile.model_fields["send_reasoning_back"].description == (
        "Send earlier reasoning back in history (DeepSeek R1 rejected it; see the rule book)."
    )
    schema = ModelInfo.model_json_schema()
    assert schema["properties"]["context_window"]["description"] == "Prompt + completion tokens the model accepts."


def test_the_checker_sees_a_missing_docstring() -> None:
    @dataclasses.dataclass
    class Bare:
        value: int

        def method(self) -> int:
            return self.value

    class Documented:
        """Has one."""

        @property
        def size(self) -> int:
            return 1

    def bare_function() -> None:
        pass

    assert _undocumented("Bare", Bare) == ["Bare", "Bare.method"]
    assert _undocumented("Documented", Documented) == ["Documented.size"]
    assert _undocumented("bare_function", bare_function) == ["bare_function"]
    assert _undocumented("CONSTANT", 3) == []
