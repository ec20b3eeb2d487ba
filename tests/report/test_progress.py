"""The progress bar shows on a terminal and nowhere else."""

from __future__ import annotations

import io

from rich.console import Console

from conformance.report.progress import progress, wanted


def _terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=120), out


def test_shown_on_a_terminal_only() -> None:
    console, _ = _terminal()
    assert wanted(console, env={})
    assert not wanted(console, env={"CI": "true"})
    assert not wanted(console, disabled=True, env={})
    assert not wanted(Console(file=io.StringIO()), env={})  # piped or logged


def test_the_bar_shows_counts_and_the_current_item_then_goes_away() -> None:
    console, out = _terminal()
    with progress(console, 3, "replaying", enabled=True) as bar:
        bar.start("text_basic[openai]")
        bar.advance()
    live = out.getvalue()  # everything drawn, including the final frame before the bar is cleared
    assert "replaying" in live
    assert "1/3" in live
    assert "text_basic[openai]" in live


def test_quiet_when_disabled() -> None:
    console, out = _terminal()
    with progress(console, 3, "replaying", enabled=False) as bar:
        bar.start("x")
        bar.advance()
    assert out.getvalue() == ""


def test_without_a_refresh_thread_the_bar_redraws_as_items_finish() -> None:
    import threading

    console, out = _terminal()
    before = threading.active_count()
    with progress(console, 2, "replaying", enabled=True, thread=False) as bar:
        assert threading.active_count() == before  # nothing running beside a fork
        bar.advance("text_basic[gemini]")  # finished in a worker: named as it finishes
    assert "1/2" in out.getvalue()
    assert "text_basic[gemini]" in out.getvalue()
