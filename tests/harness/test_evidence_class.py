"""The evidence under a result (wire source, rule source) and the class that follows from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.compare import DiffEntry, ScenarioResult
from conformance.harness.classify import NO_SOURCE, evidence_class, wire_source, wire_sourced
from conformance.report.matrix import Cell, Matrix
from conformance.report.terminal import class_summary

ROOT = Path(__file__).resolve().parents[2]


def _cassette(tmp_path: Path, meta: str) -> str:
    path = tmp_path / "c.yaml"
    path.write_text(f"version: 1\nmeta:\n{meta}\ninteractions: []\n", encoding="utf-8")
    return str(path)


def test_wire_sources(tmp_path: Path) -> None:
    assert wire_source(None, ROOT) is None
    assert wire_source("corpus/openai/chat/x.yaml", ROOT) == "recorded: corpus/openai/chat/x.yaml"
    assert wire_source(_cassette(tmp_path, "  recorded: '2026-11-01'\n  source: recorded"), ROOT).startswith(
        "recorded: "
    )
    assert wire_source(_cassette(tmp_path, "  recorded: '2026-11-01'"), ROOT) == NO_SOURCE  # a date alone: by hand
    assert wire_source(_cassette(tmp_path, "  authored: '2026-11-01'\n  source: by hand"), ROOT) == NO_SOURCE
    cited = _cassette(
        tmp_path,
        "  authored: '2026-11-01'\n  doc: https://platform.openai.com/docs/api-reference/chat\n"
        "  quote: the last chunk carries finish_reason",
    )
    assert wire_source(cited, ROOT) == (
        'authored: https://platform.openai.com/docs/api-reference/chat — "the last chunk carries finish_reason"'
    )
    # an authored cassette whose every response shape real OpenAI traffic shows matches it
    assert (
        wire_source(str(ROOT / "cassettes/openai/text_basic.yaml"), ROOT)
        == (
            "authored: matches real openai traffic (all 6 shapes seen)"  # envelope, choice, message, usage and its two details
        )
    )
    # one with a shape no real recording shows, citing nothing, is unsourced (a 413 and its body)
    assert wire_source(str(ROOT / "cassettes/openai/retry_compress_json.yaml"), ROOT) == NO_SOURCE


def test_a_provider_entry_source_wins_for_its_provider(tmp_path: Path) -> None:
    from conformance.harness.classify import rule_source
    from conformance.scenarios import load_scenario

    path = tmp_path / "s.yaml"
    path.write_text(
        "title: t\nfeature: text\ncheck: decode\nsource: https://doc — 'all'\n"
        "providers:\n  openai: {source: \"https://openai-doc — 'theirs'\"}\n  groq: {}\n"
        "expected: {message: {role: assistant, content: []}}\n"
    )
    scenario = load_scenario(path)
    assert rule_source(_res("fail", "wrong"), scenario) == "https://openai-doc — 'theirs'"
    groq = _res("fail", "wrong").model_copy(update={"provider": "groq"})
    assert rule_source(groq, scenario) == "https://doc — 'all'"


def _res(verdict: str, kind: str | None = None, **kw: object) -> ScenarioResult:
    diff = [DiffEntry(path="message.stop_reason", change="changed", kind=kind)] if kind else []  # type: ignore[arg-type]
    return ScenarioResult(
        scenario="s", title="t", feature="text", check="decode", provider="openai", verdict=verdict, diff=diff, **kw
    )  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("res", "wire", "rule", "cls"),
    [
        (_res("fail", "wrong"), "recorded: corpus/x.yaml", "https://doc — 'quote'", "defect"),
        (_res("fail", "wrong"), NO_SOURCE, "https://doc — 'quote'", "unverified"),
        (_res("fail", "wrong"), "recorded: corpus/x.yaml", None, "unverified"),
        (_res("fail", "missing"), "authored: https://doc", "a real 400", "limitation"),
        (_res("fail", "missing"), NO_SOURCE, "a real 400", "unverified"),
        (_res("not_offered"), None, "https://doc", "limitation"),
        (_res("policy"), NO_SOURCE, "policy: max_wait_s", "policy"),
        (_res("not_offered", basis="policy"), None, "policy: max_wait_s", "policy"),
        (_res("error", fail_kind="crash"), "recorded: corpus/x.yaml", "https://doc", "defect"),
        (_res("error"), "recorded: corpus/x.yaml", "https://doc", "unverified"),
        (_res("pass"), NO_SOURCE, None, None),
    ],
)
def test_the_class_follows_from_the_evidence(res: ScenarioResult, wire: str | None, rule: str | None, cls: str) -> None:
    assert evidence_class(res, wire, rule) == cls


def test_the_matrix_counts_classes_apart_and_the_terminal_says_so() -> None:
    results = [
        _res("fail", "wrong", evidence_class="unverified"),
        _res("policy", evidence_class="policy"),
        _res("not_offered", evidence_class="limitation"),
    ]
    cell = Cell(provider="openai", feature="text", verdict="fail", counts={"fail": 1}, results=results)
    m = Matrix(
        harness_version="0",
        runtime="r",
        generated_at="",
        cassette_dir="",
        scenario_dir="",
        providers=["openai"],
        features=[],
        cells=[cell],
        counts={"fail": 1},
    )
    assert m.class_counts == {"defect": 0, "limitation": 1, "policy": 1, "unverified": 1}
    assert class_summary(m).startswith("evidence classes: 0 defects, 1 limitations, 1 policy differences, 1 unverified")
    # a policy difference alone never turns a cell red
    from conformance.report.matrix import cell_verdict

    assert cell_verdict([_res("policy"), _res("pass")]) == "policy"


def test_a_cassette_citing_sources_for_its_shapes_is_a_sourced_wire(tmp_path: Path) -> None:
    """The `meta.sources` citations `lint --realism` reads source the wire as `doc` does."""
    cassette = tmp_path / "cassettes" / "openai" / "x.yaml"
    cassette.parent.mkdir(parents=True)
    cassette.write_text(
        "meta:\n  source: authored\n  sources:\n"
        "  - url: https://platform.openai.com/docs/guides/error-codes\n    quote: 429 - Rate limit reached\n"
        "interactions: []\nversion: 1\n"
    )
    source = wire_source("cassettes/openai/x.yaml", tmp_path)
    assert source == 'authored: https://platform.openai.com/docs/guides/error-codes — "429 - Rate limit reached"'
    assert wire_sourced(source)
    cassette.write_text("meta:\n  source: authored\n  sources: []\ninteractions: []\nversion: 1\n")
    assert not wire_sourced(wire_source("cassettes/openai/x.yaml", tmp_path))
