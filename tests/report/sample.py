"""A realistic matrix for report tests, with untrusted-text canaries in every field a scenario or a
cassette can fill (titles, reasons, cassette paths, expected and actual forms, diff values,
provider error messages, models)."""

from __future__ import annotations

from typing import Any

from conformance.report.matrix import Cell, DiffEntry, FeatureRow, Matrix, Provenance, ScenarioResult, cell_verdict

SCRIPT = "<script>window.__pwned = 1; alert(1)</script>"
IMG = '"><img src=x onerror="window.__pwned=1">'
SEPARATORS = "line\u2028paragraph\u2029end"
PROVIDERS = ["openai", "anthropic", "gemini", "ollama"]


def result(provider: str, feature: str, scenario: str, verdict: str, **extra: Any) -> ScenarioResult:
    fields: dict[str, Any] = {
        "scenario": scenario,
        "title": f"{scenario} title",
        "feature": feature,
        "check": "decode",
        "provider": provider,
        "verdict": verdict,
        "reason": "matches the expected normalized form",
        "scenario_path": f"scenarios/{feature}/{scenario}.yaml",
        "cassette": f"cassettes/{provider}/{scenario}.yaml",
    }
    return ScenarioResult.model_validate(fields | extra)


def cell(provider: str, feature: str, *results: ScenarioResult) -> Cell:
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    return Cell(
        provider=provider, feature=feature, verdict=cell_verdict(list(results)), counts=counts, results=list(results)
    )


def _text(text: str) -> dict[str, Any]:
    return {"message": {"role": "assistant", "content": [{"type": "text", "text": text}], "stop_reason": "stop"}}


def _stream_text(provider: str, verdict: str, bad: str) -> Cell:
    expected = _text("café ☕ naïve")
    if verdict == "fail":
        multibyte = result(
            provider,
            "stream_text",
            "stream_multibyte",
            "fail",
            title="Multibyte characters split across chunks " + bad,
            reason="2 differences from the expected normalized form " + bad,
            expected=expected | {"note": bad},
            actual=_text("caf\ufffd\ufffd " + bad) | {"usage": {"output": 7}},
            diff=[
                DiffEntry(path="message.content[0].text", change="changed", expected="café ☕ naïve", actual=bad),
                DiffEntry(path="note", change="removed", expected=bad),
                DiffEntry(path="usage", change="added", actual={"output": 7}),
            ],
        )
    else:
        multibyte = result(provider, "stream_text", "stream_multibyte", verdict, expected=expected, actual=expected)
    return cell(provider, "stream_text", multibyte, result(provider, "stream_text", "stream_ascii", "pass"))


def sample_matrix(*, canaries: bool = True, stream_text_openai: str = "pass") -> Matrix:
    """Four providers over five features in four groups; openai's stream_text is `stream_text_openai`
    (set it to `fail` for a cell with a diff, or compare two of these for a regression)."""
    bad = SCRIPT + IMG + SEPARATORS if canaries else "hostile text"
    overloaded = {
        "error": {"kind": "overloaded", "status": 529, "message": "Overloaded " + bad, "provider_code": "overloaded"}
    }
    cells = [
        *(
            cell(p, "text", result(p, "text", "text_basic", "pass", expected=_text("Hi"), actual=_text("Hi")))
            for p in PROVIDERS[:3]
        ),
        cell(
            "ollama",
            "text",
            result("ollama", "text", "text_basic", "missing", reason="no cassette at cassettes/ollama/text_basic.yaml"),
        ),
        _stream_text("openai", stream_text_openai, bad),
        *(_stream_text(p, "pass", bad) for p in PROVIDERS[1:]),
        cell(
            "openai",
            "thinking_signature",
            result(
                "openai",
                "thinking_signature",
                "thinking_sig",
                "unsupported",
                reason="Chat Completions returns no reasoning text " + bad,
                cassette=None,
            ),
        ),
        cell("anthropic", "thinking_signature", result("anthropic", "thinking_signature", "thinking_sig", "pass")),
        cell(
            "gemini",
            "thinking_signature",
            result(
                "gemini",
                "thinking_signature",
                "thinking_sig",
                "error",
                reason="CassetteError: " + bad,
                cassette="cassettes/gemini/" + bad + ".yaml",
            ),
        ),
        *(
            cell(
                p,
                "error_overloaded",
                result(p, "error_overloaded", "overloaded_529", "pass", expected=overloaded, actual=overloaded),
            )
            for p in PROVIDERS[:2]
        ),
        cell(
            "gemini",
            "error_overloaded",
            result("gemini", "error_overloaded", "overloaded_529", "pass", expected=overloaded, actual=overloaded),
            result("gemini", "error_overloaded", "gemini_503_unavailable", "missing", reason="no cassette yet"),
        ),
    ]
    counts: dict[str, int] = {}
    for c in cells:
        counts[c.verdict] = counts.get(c.verdict, 0) + 1
    return Matrix(
        harness_version="0.1.0",
        runtime="reference",
        generated_at="2026-11-22T12:00:00+00:00" if stream_text_openai == "pass" else "2026-11-23T09:30:00+00:00",
        cassette_dir="cassettes",
        scenario_dir="scenarios",
        providers=PROVIDERS,
        features=[
            FeatureRow(id="text", group="responses", title="Plain text response"),
            FeatureRow(id="stream_text", group="streaming", title="Streamed text " + bad),
            FeatureRow(id="thinking_signature", group="thinking", title="Thinking with its signature kept byte-exact"),
            FeatureRow(id="error_overloaded", group="errors & retries", title="Overloaded and server errors"),
        ],
        cells=cells,
        counts=counts,
        provenance=[
            Provenance(
                provider="openai",
                cassettes=4,
                recorded=["2026-11-20", "2026-11-22"],
                evidence={"recorded": 4},
                models=["gpt-4.1-mini" + bad],
            ),
            Provenance(
                provider="anthropic",
                cassettes=4,
                recorded=["2026-11-22"],
                authored=["2026-11-21"],
                evidence={"recorded": 3, "authored": 1},
                models=["claude-sonnet-4-5"],
            ),
        ],
    )
