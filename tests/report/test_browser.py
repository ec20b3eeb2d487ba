"""The report in a real browser: headless Chromium (Debian's) driven by Playwright.

Loads the generated page from disk, checks the counts, opens a failed cell's diff, uses the
filters and the search box, and proves that no canary script runs and that nothing is fetched.
Saves a screenshot to reports/report-screenshot.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conformance.report.html import write_html
from tests.report.browser import REPORTS, MatrixPage, chromium, fresh_page
from tests.report.sample import sample_matrix


@dataclass
class Session(MatrixPage):
    dialogs: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def visible_providers(self) -> list[str]:
        cols: list[str] = self.page.eval_on_selector_all(
            "#matrix th[data-provider]", "ths => ths.filter(t => !t.hidden).map(t => t.dataset.provider)"
        )
        return cols

    def bright_cells(self) -> list[str]:
        """Keys of the visible cells that match the filters (not dimmed)."""
        keys: list[str] = self.page.eval_on_selector_all(
            "#matrix td[data-provider]:not(.dim) button.cell",
            "bs => bs.filter(b => b.offsetParent !== null).map(b => b.dataset.open)",
        )
        return keys


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.fixture
def session(browser: Any, tmp_path: Path) -> Iterator[Session]:
    path = write_html(sample_matrix(stream_text_openai="fail"), tmp_path, previous=sample_matrix())
    with fresh_page(browser, 1400, 900) as page:
        s = Session(page)

        def route(r: Any) -> None:
            if r.request.url.startswith("file://") and r.request.url.split("#")[0] == path.as_uri():
                r.continue_()
            else:
                s.blocked.append(r.request.url)
                r.abort()

        page.route("**/*", route)
        page.on("dialog", lambda d: (s.dialogs.append(d.message), d.dismiss()))
        page.on("pageerror", lambda e: s.errors.append(str(e)))
        page.goto(path.as_uri())
        yield s


def test_report_in_chromium(session: Session) -> None:
    pg = session.page
    assert pg.text_content('[data-count="pass"]') == "10"
    assert pg.text_content('[data-count="fail"]') == "1"
    assert pg.locator("button.cell").count() == 14
    assert pg.locator("#regressions li").count() == 1
    assert "▼ was pass" in pg.text_content('button.cell[data-open="openai/stream_text"]')

    # a failed cell opens its scenarios: the change list and both forms
    pg.click('button.cell[data-open="openai/stream_text"]')
    assert pg.is_visible("#detail")
    assert pg.evaluate("document.activeElement.id") == "detail-close"
    failed = pg.locator('#detail article[data-verdict="fail"]')
    assert failed.locator(".sid").text_content() == "stream_multibyte"
    changes = failed.locator(".diff li")
    assert changes.count() == 3
    assert changes.nth(0).locator(".path").text_content() == "message.content[0].text"
    assert changes.nth(0).locator("del").text_content() == '"café ☕ naïve"'
    assert "<script>" in changes.nth(0).locator("ins").text_content()  # shown as text, not run
    assert "(absent)" in changes.nth(1).text_content()
    assert "café ☕ naïve" in failed.locator("pre.expected").text_content()
    assert "cassettes/openai/stream_multibyte.yaml" in failed.locator(".facts").text_content()
    REPORTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(REPORTS / "report-screenshot.png"))
    pg.keyboard.press("Escape")
    assert not pg.is_visible("#detail")
    assert pg.evaluate("document.activeElement.dataset.open") == "openai/stream_text"

    # unsupported cells show the declared reason; the keyboard opens cells too
    pg.focus('button.cell[data-open="openai/thinking_signature"]')
    pg.keyboard.press("Enter")
    assert "Declared unsupported: Chat Completions returns no reasoning text" in pg.text_content("#detail-body")
    pg.click("#detail-close")
    assert not pg.is_visible("#detail")

    # the regression list opens its cell
    pg.click('#regressions button[data-open="openai/stream_text"]')
    assert "stream_multibyte" in pg.text_content("#detail-body")
    pg.click("#detail-close")

    # filters: provider, status, search
    pg.select_option("#filter-provider", "gemini")
    assert session.visible_providers() == ["gemini"]
    assert session.visible_rows() == ["text", "stream_text", "thinking_signature", "error_overloaded"]
    pg.select_option("#filter-provider", "")
    pg.select_option("#filter-status", "fail")
    assert session.visible_rows() == ["stream_text"]
    assert session.bright_cells() == ["openai/stream_text"]
    pg.select_option("#filter-status", "regressed")
    assert session.bright_cells() == ["openai/stream_text"]
    pg.select_option("#filter-status", "missing")
    assert session.visible_rows() == ["text"]
    pg.select_option("#filter-status", "")
    pg.fill("#search", "THINKING_SIG")
    assert session.visible_rows() == ["thinking_signature"]
    pg.fill("#search", "gemini_503")
    assert session.bright_cells() == ["gemini/error_overloaded"]
    pg.fill("#search", "no-such-scenario")
    assert session.visible_rows() == []
    assert pg.is_visible("#no-match")
    pg.fill("#search", "")
    assert len(session.visible_rows()) == 4
    assert not pg.is_visible("#no-match")

    # no canary ran, nothing was fetched, no script error
    assert session.dialogs == []
    assert pg.evaluate("window.__pwned") is None
    assert session.blocked == []
    assert session.errors == []


def test_cell_link_opens_from_the_address(session: Session) -> None:
    pg = session.page
    pg.goto(pg.url.split("#")[0] + "#" + "gemini%2Fthinking_signature")
    assert pg.is_visible("#detail")
    assert "CassetteError" in pg.text_content("#detail-body")
    assert pg.evaluate("window.__pwned") is None
    assert session.dialogs == [] and session.blocked == [] and session.errors == []
