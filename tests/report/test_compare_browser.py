"""The comparison page in a real browser: headless Chromium (Debian's) driven by Playwright.

Loads the page from disk, checks each runtime's counts, uses the "disagreements only" filter and
the others, opens a disagreeing cell (both runtimes' scenarios, the failing one's reason and
diff), and proves that no canary script runs and that nothing but the page itself is requested.
Saves a screenshot of a canary-free comparison to reports/compare-screenshot.png (the source of
docs/compare.png).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conformance.report.compare import merge
from conformance.report.compare_html import write_compare_html
from tests.report.browser import REPORTS, MatrixPage, chromium, fresh_page
from tests.report.compare_sample import other, reference
from tests.report.sample import sample_matrix


@dataclass
class Session(MatrixPage):
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def bright_spots(self) -> list[str]:
        """`provider/feature` of the visible cells that match the filters (not dimmed), once each."""
        keys: list[str] = self.page.eval_on_selector_all(
            "#matrix td[data-provider]:not(.dim) button.cell",
            "bs => [...new Set(bs.filter(b => b.offsetParent !== null).map(b => b.dataset.open))]",
        )
        return keys


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


def open_page(page: Any, path: Path) -> Session:
    s = Session(page)

    def route(r: Any) -> None:
        s.requests.append(r.request.url)
        if r.request.url.split("#")[0] == path.as_uri():
            r.continue_()
        else:
            r.abort()

    page.route("**/*", route)
    page.on("dialog", lambda d: (s.dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: s.errors.append(str(e)))
    page.goto(path.as_uri())
    return s


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    with fresh_page(browser, 1400, 900) as page:
        yield page


@pytest.fixture
def session(page: Any, tmp_path: Path) -> Session:
    cmp = merge([Path("runs/a/matrix.json"), Path("runs/b/matrix.json")], [reference(), other()])
    return open_page(page, write_compare_html(cmp, tmp_path / "compare.html"))


def test_compare_in_chromium(session: Session) -> None:
    pg = session.page
    # summary cards: each runtime's cells by verdict
    assert pg.text_content('.card[data-runtime="0"] .rt-label') == "reference"
    assert pg.text_content('.card[data-runtime="0"] [data-count="pass"]') == "11"
    assert pg.text_content('.card[data-runtime="0"] [data-count="not-run"]') == "1"
    assert pg.text_content('.card[data-runtime="1"] .rt-label') == "mypkg.adapter:make"
    assert pg.text_content('.card[data-runtime="1"] [data-count="pass"]') == "9"
    assert pg.text_content('.card[data-runtime="1"] [data-count="fail"]') == "1"
    assert pg.text_content('.card[data-runtime="1"] [data-count="skipped"]') == "1"
    assert pg.text_content('.card[data-runtime="1"] [data-count="not-run"]') == "2"
    assert pg.text_content("#disagree-count") == "1"  # pass against skipped is not a disagreement
    # one mark per runtime in every cell, with counts
    marks = pg.eval_on_selector_all(
        '#matrix tr[data-feature="stream_text"] td[data-provider="openai"] button.cell',
        "bs => bs.map(b => b.innerText.replace(/\\s+/g, ' ').trim())",
    )
    assert marks == ["✓ 2/2", "✗ 1/2"]
    assert pg.locator("#matrix td.disagree").count() == 2  # one cell × two runtimes

    # disagreements only
    pg.check("#filter-disagree")
    assert session.visible_rows() == ["stream_text"]
    assert session.bright_spots() == ["openai/stream_text"]
    pg.select_option("#filter-provider", "anthropic")
    assert session.visible_rows() == []
    pg.select_option("#filter-provider", "ollama")
    assert session.visible_rows() == []
    assert pg.is_visible("#no-match")
    pg.select_option("#filter-provider", "")
    pg.uncheck("#filter-disagree")
    assert len(session.visible_rows()) == 5
    pg.select_option("#filter-status", "none")
    assert session.bright_spots() == ["ollama/text", "ollama/stream_text", "openai/retry_backoff"]
    assert session.visible_rows() == ["text", "stream_text", "retry_backoff"]
    pg.select_option("#filter-status", "")

    # the drill-down: per runtime, the verdict, the reason and the diff of the failing scenario
    pg.click('#matrix td[data-runtime="1"] button.cell[data-open="openai/stream_text"]')
    assert pg.is_visible("#detail")
    assert pg.evaluate("document.activeElement.id") == "detail-close"
    assert "runtimes disagree" in pg.text_content("#detail-title")
    differs = pg.locator("#detail .side-by-side tr.differs")
    assert differs.count() == 1
    assert differs.get_attribute("data-scenario") == "stream_multibyte"
    assert differs.locator("td").all_text_contents() == ["✓ pass", "✗ fail"]
    ref = pg.locator('#detail .runtime-block[data-runtime="0"]')
    assert ref.locator("h3 .verdict").text_content() == "✓ pass"
    assert ref.locator(".diff").count() == 0
    failed = pg.locator('#detail .runtime-block[data-runtime="1"] article[data-verdict="fail"]')
    assert failed.locator(".sid").text_content() == "stream_multibyte"
    assert "2 differences from the expected normalized form" in failed.locator(".reason").text_content()
    changes = failed.locator(".diff li")
    assert changes.count() == 3
    assert changes.nth(0).locator(".path").text_content() == "message.content[0].text"
    assert changes.nth(0).locator("del").text_content() == '"café ☕ naïve"'
    assert "<script>" in changes.nth(0).locator("ins").text_content()  # shown as text, not run
    pg.keyboard.press("Escape")
    assert not pg.is_visible("#detail")

    # a skipped runtime shows its reason; a runtime that did not run the cell says so
    pg.focus('#matrix td[data-runtime="1"] button.cell[data-open="anthropic/thinking_signature"]')
    pg.keyboard.press("Enter")
    skipped = pg.locator('#detail .runtime-block[data-runtime="1"] article[data-verdict="skipped"] .reason')
    assert "runtime mypkg.adapter:make does not implement `turn`" in skipped.text_content()
    pg.click("#detail-close")
    pg.click('#matrix td[data-runtime="0"] button.cell[data-open="openai/retry_backoff"]')
    assert "× not run" in pg.text_content('#detail .runtime-block[data-runtime="0"] h3')
    assert "has no cell for retry_backoff on openai" in pg.text_content('#detail .runtime-block[data-runtime="0"]')
    pg.click("#detail-close")

    # no canary ran, only the page itself was requested, no script error
    assert session.dialogs == []
    assert pg.evaluate("window.__pwned") is None
    assert session.requests and all(u.startswith("file://") for u in session.requests)
    assert {u.split("#")[0] for u in session.requests} == {pg.url.split("#")[0]}
    assert session.errors == []


def test_compare_link_opens_a_cell(session: Session) -> None:
    pg = session.page
    pg.goto(pg.url.split("#")[0] + "#" + "gemini%2Fthinking_signature")
    assert pg.is_visible("#detail")
    assert "runtimes agree" in pg.text_content("#detail-title")
    assert pg.locator("#detail article[data-verdict='error']").count() == 2
    assert session.dialogs == [] and session.errors == []
    assert pg.evaluate("window.__pwned") is None


def test_screenshot(page: Any, tmp_path: Path) -> None:
    """The page as the docs show it: two runtimes, one failing cell open."""
    cmp = merge(
        [Path("runs/reference/matrix.json"), Path("runs/mypkg/matrix.json")],
        [sample_matrix(canaries=False), other(canaries=False)],
    )
    s = open_page(page, write_compare_html(cmp, tmp_path / "compare.html"))
    s.page.click('#matrix td[data-runtime="1"] button.cell[data-open="openai/stream_text"]')
    assert s.page.is_visible("#detail")
    REPORTS.mkdir(exist_ok=True)
    s.page.screenshot(path=str(REPORTS / "compare-screenshot.png"))
    assert s.errors == [] and s.dialogs == []
