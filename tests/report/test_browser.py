"""The report in a real browser: headless Chromium (Debian's) driven by Playwright.

Loads the generated page from disk, checks the counts, opens a failed cell's diff, uses the
filters and the search box, and proves that no canary script runs and that nothing is fetched.
Saves a screenshot to reports/report-screenshot.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.report.html import write_html
from tests.report.sample import sample_matrix

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
REPORTS = Path(__file__).resolve().parents[2] / "reports"

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not CHROMIUM.exists():
    pytest.skip(f"no Chromium at {CHROMIUM} (Debian package `chromium`)", allow_module_level=True)


@pytest.fixture
def page(tmp_path: Path) -> Iterator[tuple[Any, list[str], list[str]]]:
    path = write_html(sample_matrix(stream_text_openai="fail"), tmp_path)
    dialogs: list[str] = []
    requests: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        pg = browser.new_page(viewport={"width": 1400, "height": 900})
        pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        pg.on("request", lambda r: requests.append(r.url))
        pg.goto(path.as_uri())
        yield pg, dialogs, requests
        browser.close()


def visible_rows(pg: Any) -> list[str]:
    return pg.eval_on_selector_all(
        "#matrix tr[data-feature]", "rows => rows.filter(r => !r.hidden).map(r => r.dataset.feature)"
    )


def test_report_in_chromium(page: tuple[Any, list[str], list[str]]) -> None:
    pg, dialogs, requests = page
    assert pg.text_content('[data-count="pass"]') == "5"
    assert pg.text_content('[data-count="fail"]') == "1"
    assert pg.locator("button.cell").count() == 9

    # a failed cell opens its scenarios with the diff and both forms
    pg.click('button[data-open="openai/stream_text"]')
    assert pg.is_visible("#detail")
    failed = pg.locator('#detail article[data-verdict="fail"]')
    assert "stream_multibyte" in failed.locator(".sid").text_content()
    assert "message.content[0].text" in failed.locator(".diff li").first.text_content()
    assert "café ☕" in failed.locator("pre.expected").text_content()
    assert "<script>" in failed.locator("pre.actual").text_content()  # shown as text, not run
    REPORTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(REPORTS / "report-screenshot.png"))
    pg.keyboard.press("Escape")
    assert not pg.is_visible("#detail")

    # unsupported cells show the declared reason
    pg.click('button[data-open="openai/thinking_signature"]')
    assert "Chat Completions returns no reasoning text" in pg.text_content("#detail-body")
    pg.click("#detail-close")

    # filters: provider, status, search
    pg.select_option("#filter-provider", "gemini")
    assert pg.eval_on_selector_all(
        "#matrix th[data-provider]", "ths => ths.filter(t => !t.hidden).map(t => t.dataset.provider)"
    ) == ["gemini"]
    pg.select_option("#filter-provider", "")
    pg.select_option("#filter-status", "fail")
    assert visible_rows(pg) == ["stream_text"]
    pg.select_option("#filter-status", "")
    pg.fill("#search", "thinking_sig")
    assert visible_rows(pg) == ["thinking_signature"]
    pg.fill("#search", "no-such-scenario")
    assert visible_rows(pg) == []
    assert pg.is_visible("#no-match")
    pg.fill("#search", "")
    assert len(visible_rows(pg)) == 3

    # no canary ran, nothing was fetched
    assert dialogs == []
    assert pg.evaluate("window.__pwned") is None
    assert [u for u in requests if not u.startswith("file://")] == []
