"""JUnit XML from a run, for CI systems that show test results from it (GitLab, Jenkins, GitHub
test reporters): one `<testcase>` per scenario × provider, named `scenario[provider]` as the
`pytest -m provider` item is; `fail`/`error` results are failures/errors, and the results that
judged nothing (`unsupported`, `missing`, `skipped`, `not_offered`) are skipped with their reason."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree as ET

from conformance.report.matrix import Matrix

SKIPPED = ("unsupported", "missing", "skipped", "not_offered")


def junit_xml(matrix: Matrix) -> str:
    """The document, one `<testsuite>` per provider."""
    suites = ET.Element("testsuites", name=f"conformance ({matrix.runtime})")
    by_provider: dict[str, list[ET.Element]] = {}
    counts: dict[str, dict[str, int]] = {}
    for cell in matrix.cells:
        for res in cell.results:
            case = ET.Element("testcase", classname=f"{res.feature}", name=f"{res.scenario}[{res.provider}]")
            if res.scenario_path:
                case.set("file", res.scenario_path)
            tally = counts.setdefault(res.provider, {"tests": 0, "failures": 0, "errors": 0, "skipped": 0})
            tally["tests"] += 1
            message = (res.reason or res.verdict).splitlines()[0] if (res.reason or res.verdict) else res.verdict
            if res.verdict == "fail":
                tally["failures"] += 1
                ET.SubElement(case, "failure", message=message).text = res.reason
            elif res.verdict == "error":
                tally["errors"] += 1
                ET.SubElement(case, "error", message=message).text = res.traceback or res.reason
            elif res.verdict in SKIPPED:
                tally["skipped"] += 1
                ET.SubElement(case, "skipped", message=f"{res.verdict}: {message}")
            by_provider.setdefault(res.provider, []).append(case)
    for provider, cases in by_provider.items():
        attrib = {"name": provider, **{k: str(v) for k, v in counts[provider].items()}}
        suite = ET.SubElement(suites, "testsuite", attrib)
        suite.extend(cases)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def write_junit(matrix: Matrix, path: Path) -> Path:
    """Write `junit_xml(matrix)` to `path` (its folder made); the path."""
    from conformance.fileio import atomic_write

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, junit_xml(matrix))
    return path
