"""The published site in a real browser (headless Chromium): every page renders from file://, runs
no script, fetches nothing outside the site, and its links lead from the index to the history pages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conformance.cli import main
from tests.report.browser import chromium
from tests.report.test_publish import runs


def test_the_site_renders_and_navigates(tmp_path: Path) -> None:
    site = tmp_path / "site"
    assert main(["publish", str(runs(tmp_path)), "--out", str(site)]) == 0
    blocked: list[str] = []
    errors: list[str] = []
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})

        def route(r: Any) -> None:
            url = r.request.url
            if url.startswith(site.as_uri()):
                r.continue_()
            else:
                blocked.append(url)
                r.abort()

        page.route("**/*", route)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("dialog", lambda d: (errors.append(d.message), d.dismiss()))
        page.goto((site / "index.html").as_uri())
        assert page.locator("section h2").count() == 2  # one latest matrix per runtime
        assert page.locator("table.grid .cell.tone-pass").count() > 0
        assert "<script>" in page.locator("body").inner_text()  # the hostile runtime name shown as text
        page.screenshot(path=str(tmp_path / "index.png"), full_page=True)
        page.locator("table.grid thead a", has_text="openai").first.click()
        assert page.url.endswith("/providers/openai.html")
        assert page.locator("table.grid thead th", has_text="v1.1").count() >= 1
        page.screenshot(path=str(tmp_path / "provider.png"), full_page=True)
        page.locator("table.grid a", has_text="stream_text").first.click()
        assert page.url.endswith("/features/stream_text.html")
        page.locator("nav.crumbs a", has_text="reference").click()
        assert page.url.endswith("/runtimes/reference.html")
        assert page.evaluate("typeof window.__pwned") == "undefined"
    assert blocked == [] and errors == []
    assert (tmp_path / "index.png").stat().st_size > 10_000
