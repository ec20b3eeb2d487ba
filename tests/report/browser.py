"""What the browser tests share: Debian's headless Chromium driven by Playwright, and a page's
visible matrix rows. Importing this module skips the importing test module when either is missing."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.lazy import require

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

require("playwright.sync_api", reason="playwright (python) is not installed")
if not CHROMIUM.exists():
    pytest.skip(f"no Chromium at {CHROMIUM}: install Debian's `chromium` package", allow_module_level=True)


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium, closed afterwards. Playwright's sync API leaves its event loop set as the
    thread's running loop while it is open: a test module shares one browser among its tests (a
    module-scoped fixture, closed before another module's tests run), never the session."""
    from playwright import sync_api  # here: a test process that opens no page never imports playwright

    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def fresh_page(browser: Any, width: int, height: int) -> Iterator[Any]:
    """A page in a browser context of its own (no cookie, storage or route shared with another
    test's page), closed afterwards."""
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        yield context.new_page()
    finally:
        context.close()


@dataclass
class MatrixPage:
    page: Any

    def visible_rows(self) -> list[str]:
        rows: list[str] = self.page.eval_on_selector_all(
            "#matrix tr[data-feature]", "rows => rows.filter(r => !r.hidden).map(r => r.dataset.feature)"
        )
        return rows
