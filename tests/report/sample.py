"""A realistic matrix for report tests, with untrusted-text canaries in every field a scenario or a
cassette can fill."""

from __future__ import annotations

from conformance.report.matrix import Cell, DiffEntry, FeatureRow, Matrix, Provenance, ScenarioResult, cell_verdict

SCRIPT = "<script>window.__pwned = 1; alert(1)</script>"
IMG = '"><img src=x onerror="window.__pwned=1">'


def result(provider: str, feature: str, scenario: str, verdict: str, **extra: object) -> ScenarioResult:
    return ScenarioResult.model_validate(
        {
            "scenario": scenario,
            "title": f"{scenario} title",
            "feature": feature,
            "check": "decode",
            "provider": provider,
            "verdict": verdict,
            "reason": extra.pop("reason", "matches the expected normalized form"),
            "cassette": f"cassettes/{provider}/{scenario}.yaml",
            **extra,
        }
    )


def cell(provider: str, feature: str, *results: ScenarioResult) -> Cell:
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    return Cell(
        provider=provider, feature=feature, verdict=cell_verdict(list(results)), counts=counts, results=list(results)
    )


def sample_matrix(*, canaries: bool = True, stream_text_openai: str = "pass") -> Matrix:
    bad = SCRIPT + IMG if canaries else "hostile text"
    cells = [
        cell("openai", "text", result("openai", "text", "text_basic", "pass")),
        cell("anthropic", "text", result("anthropic", "text", "text_basic", "pass")),
        cell(
            "gemini",
            "text",
            result("gemini", "text", "text_basic", "missing", reason="no cassette at cassettes/gemini/text_basic.yaml"),
        ),
        cell(
            "openai",
            "stream_text",
            result(
                "openai",
                "stream_text",
                "stream_multibyte",
                stream_text_openai,
                reason="1 difference from the expected normalized form" if stream_text_openai == "fail" else "ok",
                expected={"message": {"content": [{"type": "text", "text": "café ☕"}]}},
                actual={"message": {"content": [{"type": "text", "text": "caf" + bad}]}},
                diff=[
                    DiffEntry(path="message.content[0].text", change="changed", expected="café ☕", actual="caf" + bad)
                ]
                if stream_text_openai == "fail"
                else [],
            ),
            result("openai", "stream_text", "stream_ascii", "pass"),
        ),
        cell("anthropic", "stream_text", result("anthropic", "stream_text", "stream_multibyte", "pass")),
        cell("gemini", "stream_text", result("gemini", "stream_text", "stream_multibyte", "pass")),
        cell(
            "openai",
            "thinking_signature",
            result(
                "openai",
                "thinking_signature",
                "thinking_sig",
                "unsupported",
                reason="Chat Completions returns no reasoning text " + bad,
            ),
        ),
        cell("anthropic", "thinking_signature", result("anthropic", "thinking_signature", "thinking_sig", "pass")),
        cell(
            "gemini",
            "thinking_signature",
            result(
                "gemini",
                "thinking_signature",
                "thinking_sig" + ("_x" if not canaries else ""),
                "error",
                reason="CassetteError: " + bad,
                cassette="cassettes/gemini/" + bad + ".yaml",
            ),
        ),
    ]
    counts: dict[str, int] = {}
    for c in cells:
        counts[c.verdict] = counts.get(c.verdict, 0) + 1
    return Matrix(
        harness_version="0.1.0",
        runtime="reference",
        generated_at="2026-11-22T12:00:00+00:00",
        cassette_dir="cassettes",
        scenario_dir="scenarios",
        providers=["openai", "anthropic", "gemini"],
        features=[
            FeatureRow(id="text", group="responses", title="Plain text response"),
            FeatureRow(id="stream_text", group="streaming", title="Streamed text " + bad),
            FeatureRow(id="thinking_signature", group="thinking", title="Thinking with its signature"),
        ],
        cells=cells,
        counts=counts,
        provenance=[Provenance(provider="openai", cassettes=3, recorded=["2026-11-22"], models=["gpt-4.1-mini" + bad])],
    )
