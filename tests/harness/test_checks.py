"""One scenario × provider through the harness: each verdict and its reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.harness import HarnessContext, build_matrix, run_all, run_check
from conformance.replay.cassette import load_cassette, save_cassette
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import load_scenarios
from tests.harness.project import SCENARIO, make_project


def run(root: Path, provider: str = "anthropic") -> object:
    (scenario,) = load_scenarios(root / "scenarios")
    return run_check(scenario, provider, HarnessContext(root=root, runtime=ReferenceRuntime()))


def test_pass(tmp_path: Path) -> None:
    res = run(make_project(tmp_path))
    assert res.verdict == "pass", res.reason  # type: ignore[attr-defined]
    assert res.cassette == "cassettes/anthropic/text_hello.yaml"  # type: ignore[attr-defined]


def test_fail_carries_the_diff(tmp_path: Path) -> None:
    res = run(make_project(tmp_path, scenario=SCENARIO.replace('text: "Hello!"', 'text: "Hi!"')))
    assert res.verdict == "fail"  # type: ignore[attr-defined]
    (entry,) = res.diff  # type: ignore[attr-defined]
    assert (entry.path, entry.expected, entry.actual) == ("message.content[0].text", "Hi!", "Hello!")


def test_unsupported_and_missing(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    assert run(root, "openai").verdict == "unsupported"  # type: ignore[attr-defined]
    (root / "cassettes/anthropic/text_hello.yaml").unlink()
    res = run(root)
    assert res.verdict == "missing"  # type: ignore[attr-defined]
    assert "cassettes/anthropic/text_hello.yaml" in res.reason  # type: ignore[attr-defined]


def test_a_request_the_cassette_does_not_hold_is_reported_and_the_decode_still_judged(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    (root / "scenarios/responses/text_hello.yaml").write_text(SCENARIO.replace("Say hello", "Say bye"))
    res = run(root)
    assert res.verdict == "pass"  # type: ignore[attr-defined]  # the recorded answer is decoded right
    (finding,) = res.requests  # type: ignore[attr-defined]
    assert finding.verdict == "fail"
    assert "Say bye" in str(finding.actual)


def test_unplayed_interactions_fail(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    path = root / "cassettes/anthropic/text_hello.yaml"
    cassette = load_cassette(path)
    cassette.interactions.append(cassette.interactions[0])
    save_cassette(cassette)
    res = run(root)
    assert res.verdict == "fail"  # type: ignore[attr-defined]
    assert "interactions [1]" in res.reason  # type: ignore[attr-defined]


def test_malformed_cassette_is_an_error_naming_the_file(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    (root / "cassettes/anthropic/text_hello.yaml").write_text("interactions: [\n")
    res = run(root)
    assert res.verdict == "error"  # type: ignore[attr-defined]
    assert "text_hello.yaml:2: malformed YAML" in res.reason  # type: ignore[attr-defined]


def test_a_crashing_runtime_is_an_error_verdict(tmp_path: Path) -> None:
    class Broken(ReferenceRuntime):
        def decode(self, *args: object, **kwargs: object) -> dict[str, object]:
            raise KeyError("choices")

    (scenario,) = load_scenarios(make_project(tmp_path) / "scenarios")
    res = run_check(scenario, "anthropic", HarnessContext(root=tmp_path, runtime=Broken()))
    assert (res.verdict, res.reason) == ("error", "KeyError: 'choices'")


def test_matrix_cells_and_provenance(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    ctx = HarnessContext(root=root, runtime=ReferenceRuntime())
    scenarios = load_scenarios(root / "scenarios")
    results = run_all(scenarios, ["openai", "anthropic"], ctx)
    matrix = build_matrix(results, ["openai", "anthropic"], ctx, scenario_dir=root / "scenarios")
    assert [(c.provider, c.verdict) for c in matrix.cells] == [
        ("openai", "unsupported"),
        ("anthropic", "pass"),
    ]
    assert matrix.counts["pass"] == 1 and matrix.counts["unsupported"] == 1
    (anthropic,) = [p for p in matrix.provenance if p.provider == "anthropic"]
    # a cassette whose meta has only a `recorded:` date was not recorded by `conformance record`
    # (which writes where from): its date counts as authored
    assert anthropic.recorded == [] and anthropic.evidence.get("authored") == 1
    assert anthropic.models == ["claude-sonnet-4-5-20250929"]
    assert not matrix.failed()


@pytest.mark.parametrize("chunk", [1, 7])
def test_chunked_replay(tmp_path: Path, chunk: int) -> None:
    root = make_project(tmp_path, scenario=SCENARIO + f"chunk_size: {chunk}\n")
    assert run(root).verdict == "pass"  # type: ignore[attr-defined]


def test_a_run_leaves_the_garbage_collector_as_it_found_it(tmp_path: Path) -> None:
    import gc

    before = gc.get_threshold()
    root = make_project(tmp_path)
    run_all(load_scenarios(root / "scenarios"), ["anthropic"], HarnessContext(root=root, runtime=ReferenceRuntime()))
    assert gc.get_threshold() == before
