"""encode_default_max_tokens: the token limit a runtime sends when the conversation asks for none
is judged on that row alone (present where required, a positive integer at most the model's output
limit). Each mutant turns exactly that row red, on exactly the columns where a limit is required;
a runtime sending the model's own output limit stays green everywhere, as the reference does."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.capabilities import get_profile, matrix_providers
from conformance.compare import ScenarioResult
from conformance.harness import HarnessContext, run_all
from conformance.harness.checks.token_limit import token_limit_findings, window_findings, without_token_limit
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario, load_scenarios
from tests.harness import token_limit_mutants

ROOT = Path(__file__).resolve().parents[2]
ROW = "encode_default_max_tokens"


@pytest.fixture(scope="module")
def encode_rows() -> list[Scenario]:
    return [s for s in load_scenarios(ROOT / "scenarios") if s.check == "encode"]


def _results(runtime: object, rows: list[Scenario]) -> dict[tuple[str, str], ScenarioResult]:
    ctx = HarnessContext(root=ROOT, runtime=runtime, runtime_name=str(getattr(runtime, "name", "")))
    return {(r.scenario, r.provider): r for r in run_all(rows, matrix_providers(), ctx)}


@pytest.fixture(scope="module")
def reference(encode_rows: list[Scenario]) -> dict[tuple[str, str], ScenarioResult]:
    got = _results(ReferenceRuntime(), encode_rows)
    assert {r.verdict for r in got.values()} <= {"pass", "unsupported", "missing"}
    assert {got[(ROW, p)].verdict for p in matrix_providers()} == {"pass"}
    return got


@pytest.mark.parametrize(
    "mutant", [token_limit_mutants.OmitsRequiredLimit, token_limit_mutants.FixedLargeDefault], ids=lambda m: m.__name__
)
def test_each_mutant_turns_exactly_the_row_red_where_a_limit_is_required(
    mutant: type, encode_rows: list[Scenario], reference: dict[tuple[str, str], ScenarioResult]
) -> None:
    got = _results(mutant(), encode_rows)
    changed = {key for key, res in got.items() if res.verdict != reference[key].verdict}
    assert all(got[key].verdict == "fail" for key in changed), {k: got[k].reason for k in changed}
    required = {p for p in matrix_providers() if get_profile(p).max_tokens_required}
    assert required and changed == {(ROW, p) for p in required}


def test_the_models_own_output_limit_is_as_good_as_the_default(
    encode_rows: list[Scenario], reference: dict[tuple[str, str], ScenarioResult]
) -> None:
    got = _results(token_limit_mutants.SendsModelLimit(), encode_rows)
    assert {k: r.verdict for k, r in got.items()} == {k: r.verdict for k, r in reference.items()}


def test_findings_name_the_field_and_the_fact() -> None:
    anthropic, gemini = get_profile("anthropic"), get_profile("gemini")
    (missing,) = token_limit_findings({"model": "claude-sonnet-4-5"}, anthropic, "claude-sonnet-4-5")
    assert missing.path == "max_tokens" and "requires" in missing.fact
    (large,) = token_limit_findings({"max_tokens": 64_001}, anthropic, "claude-sonnet-4-5")
    assert large.actual == 64_001 and "64000" in large.fact
    assert token_limit_findings({"max_tokens": 64_000}, anthropic, "claude-sonnet-4-5") == []
    assert token_limit_findings({}, gemini, None) == []
    (zero,) = token_limit_findings({"generationConfig": {"maxOutputTokens": 0}}, gemini, None)
    assert zero.path == "generationConfig.maxOutputTokens"
    body = {"contents": [], "generationConfig": {"maxOutputTokens": 8}}
    assert without_token_limit(body, gemini) == {"contents": []}


def test_a_limit_must_fit_what_the_window_leaves_after_the_prompt() -> None:
    openai, groq = get_profile("openai"), get_profile("groq")
    # gpt-4: 8,192 tokens for prompt and output together; a prompt of at least 24 tokens
    assert window_findings({"max_completion_tokens": 8_168}, openai, "gpt-4", 24) == []
    assert window_findings({"max_completion_tokens": 4_084}, openai, "gpt-4", 24) == []
    (large,) = window_findings({"max_completion_tokens": 8_192}, openai, "gpt-4", 24)
    assert large.actual == 8_192 and large.expected == "4084..8168" and "8192-token window" in large.fact
    (small,) = window_findings({"max_completion_tokens": 1_000}, openai, "gpt-4", 24)
    assert small.actual == 1_000
    (missing,) = window_findings({"model": "gpt-4"}, openai, "gpt-4", 24)
    assert missing.path == "max_completion_tokens" and missing.actual is None
    # Groq's field is max_tokens, and it reads max_completion_tokens alike: either name is the limit
    assert window_findings({"max_completion_tokens": 131_000}, groq, "llama-3.1-8b-instant", 24) == []
    (over,) = window_findings({"max_completion_tokens": 131_072}, groq, "llama-3.1-8b-instant", 24)
    assert over.path == "max_completion_tokens"
