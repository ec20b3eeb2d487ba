"""The provider rule book against real traffic and against the validators.

Real acceptance beats any document: every 2xx request of the real corpus (the bundled `corpus/`,
and `$CONFORMANCE_CORPUS` when set) reads with no failing finding under the profile that reads it,
and the 4xx whose cause is the request's structure are caught by a sourced rule. Every rule id a
validator emits is an entry of its dialect's book.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.capabilities import get_profile
from conformance.codecs.endpoints import skip_reason
from conformance.codecs.reading import read_request
from conformance.codecs.request_form import failing
from conformance.codecs.rulebook import rule_book
from conformance.evidence.corpus import API_DIALECTS, profile_for, read_catalog

ROOT = Path(__file__).resolve().parents[2]
CORPORA = [ROOT / "corpus", *([Path(os.environ["CONFORMANCE_CORPUS"])] if os.environ.get("CONFORMANCE_CORPUS") else [])]

STRUCTURAL_4XX = {
    "openai/chat_completions/crewai--test_custom_llm_within_crew.yaml#0": "content_part_type",
    "openai/chat_completions/crewai--test_llm_call_when_stop_is_unsupported.yaml#0": "field.stop",
    "openai/chat_completions/pydantic-ai--test_openai_o1_mini_system_role_developer_.yaml#0": "system_message",
    "openai/chat_completions/pydantic-ai--test_openai_o1_mini_system_role_system_.yaml#0": "system_message",
    "openai/responses/pydantic-ai--test_openai_responses_model_http_error.yaml#0": "temperature_range",
    "deepseek/responses/pydantic-ai--test_deepseek_responses_rejects_interleaved_function_calls.yaml#0": (
        "call_unanswered"
    ),
}
"""The real 4xx judged structural (the request's shape or values, not a key, quota, overflow, model
access, an unreachable URL or a model's generation), with the rule that catches each. The others
seen: keys (401, 400 API_KEY_INVALID), quotas (429), context overflow, model not found (404),
unfetchable URLs (Vertex), Groq's tool_use_failed (the model's generation), a model without audio
input (OpenAI chat input_audio), an unsupported file type and effort level (model capability)."""


@cache
def _interactions() -> list[tuple[str, int, Any, str, dict[str, Any], str]]:
    """Every JSON request of the real corpora: read on first use, not while the tests are collected."""
    out = []
    for corpus in CORPORA:
        for entry in read_catalog(corpus):
            dialect = API_DIALECTS.get(entry["api"])
            if dialect is None:
                continue
            if entry.get("test_request"):
                # the source kept the answer alone: the request stored beside it is the one its test
                # sends, not bytes the provider received, so it is no evidence of what it accepts
                continue
            profile = profile_for(entry["provider"], dialect)
            doc = yaml.load((corpus / entry["path"]).read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
            for i, it in enumerate(doc.get("interactions") or []):
                request = it["request"]
                uri = request.get("uri") or ""
                if skip_reason(dialect, request.get("method") or "POST", uri):
                    continue
                raw = request.get("body")
                raw = raw.get("string") if isinstance(raw, dict) else raw
                try:
                    body = json.loads(raw)
                except (TypeError, ValueError):
                    continue
                if isinstance(body, dict):
                    out.append((f"{entry['path']}#{i}", it["response"]["status"]["code"], profile, uri, body, dialect))
    return out


def test_every_real_2xx_request_reads_clean() -> None:
    accepted = [x for x in _interactions() if x[1] < 300]
    assert len(accepted) > 700
    flagged = {
        where: [f"{f.path}: {f.fact}" for f in failing(read_request(body, profile, url=uri))]
        for where, _status, profile, uri, body, _dialect in accepted
    }
    flagged = {k: v for k, v in flagged.items() if v}
    assert not flagged, json.dumps(flagged, indent=1)


@pytest.mark.parametrize("where", sorted(STRUCTURAL_4XX))
def test_structural_real_4xx_is_caught_by_a_sourced_rule(where: str) -> None:
    found = [x for x in _interactions() if x[0] == where]
    assert found, f"{where} is not in the corpus"
    _where, status, profile, uri, body, _dialect = found[0]
    assert status >= 400
    facts = [f.fact for f in failing(read_request(body, profile, url=uri))]
    rule = rule_book(profile.dialect).rule(STRUCTURAL_4XX[where])
    assert rule is not None and rule.sourced
    assert any(rule.id in fact or rule.does in fact for fact in facts), facts


def _emitted_ids(dialect: str) -> set[str]:
    """Every rule id the dialect's validator source names (string literals passed to Violation)."""
    import ast

    from conformance.codecs import validation

    path = ROOT / "src" / "conformance" / "codecs" / dialect / "validate.py"
    ids: set[str] = set()
    for source in (path, Path(validation.__file__)):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Violation" and len(node.args) >= 2:
                arg = node.args[1]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    ids.add(arg.value)
    return ids


@pytest.mark.parametrize("dialect", ["anthropic", "gemini", "ollama", "openai_chat", "openai_responses"])
def test_every_rule_a_validator_emits_is_in_the_book(dialect: str) -> None:
    book = rule_book(dialect)
    shared = {"model_required", "temperature_range", "pending_call"}
    missing = sorted(i for i in _emitted_ids(dialect) - shared if book.rule(i) is None)
    assert not missing, f"{dialect}: rule ids outside the book: {missing}"
    for rule in book.rules:
        assert rule.sourced or rule.effect != "rejects" or not rule.checked, f"{rule.id}: checked but unsourced"


def test_an_unsourced_rule_is_a_note_never_a_fail() -> None:
    gemini = get_profile("gemini")
    body = {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "tools": [{"functionDeclarations": [{"name": "f", "parameters": {"type": "object", "$comment": "x"}}]}],
    }
    findings = read_request(body, gemini)
    assert [f.verdict for f in findings] == ["note"]
    assert rule_book("gemini").rule("schema_keyword.$comment") is not None


def test_rejected_fields_live_in_the_book_with_their_source() -> None:
    mistral = get_profile("mistral")
    body = {
        "model": "mistral-large-latest",
        "messages": [{"role": "user", "content": "hi"}],
        "max_completion_tokens": 9,
    }
    [finding] = failing(read_request(body, mistral))
    assert finding.path == "max_completion_tokens" and "eca/issues/231" in finding.source


def test_gemini_reads_snake_case_field_names_alike() -> None:
    gemini = get_profile("gemini")
    snake = {
        "contents": [{"role": "model", "parts": [{"function_call": {"name": "f", "args": {"my_arg": 1}}}]}],
        "system_instruction": {"parts": [{"text": "x"}]},
        "generation_config": {"max_output_tokens": 10},
    }
    camel = {
        "contents": [{"role": "model", "parts": [{"functionCall": {"name": "f", "args": {"my_arg": 1}}}]}],
        "systemInstruction": {"parts": [{"text": "x"}]},
        "generationConfig": {"maxOutputTokens": 10},
    }
    from conformance.codecs.request_form import request_findings

    assert request_findings(gemini, camel, snake) == []
    assert {f.fact for f in read_request(snake, gemini)} == {f.fact for f in read_request(camel, gemini)}


@pytest.mark.parametrize("dialect", ["anthropic", "gemini", "ollama", "openai_chat", "openai_responses"])
def test_every_equivalence_of_the_request_table_cites_its_source(dialect: str) -> None:
    from conformance.codecs.request_form import request_table

    unsourced = [(kind, what) for kind, what, source in request_table(dialect).rules() if not source.strip()]
    assert not unsourced


def test_profiles_hold_no_rejected_fields_of_their_own() -> None:
    """Which fields a provider refuses is the rule book's (`field.*` entries, with sources)."""
    from conformance.capabilities import ModelInfo, ProviderProfile

    assert "rejected_request_fields" not in ProviderProfile.model_fields
    assert "rejected_request_fields" not in ModelInfo.model_fields
