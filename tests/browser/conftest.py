"""Headless Chromium (Debian's /usr/bin/chromium) driven by Playwright against live_server.

Tests here skip, with a message saying why, only when no Chromium binary exists; CI
installs one. Screenshots go to var/screenshots/ for a human to look at.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS_DIR = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def chromium_path() -> str | None:
    explicit = os.environ.get("ARENA_CHROMIUM")
    if explicit:
        return explicit if Path(explicit).exists() else None
    for candidate in CHROMIUM_CANDIDATES:
        if Path(candidate).exists():
            return candidate
    return shutil.which("chromium")


@pytest.fixture(scope="session")
def chromium() -> str:
    path = chromium_path()
    if path is None:
        pytest.skip("no Chromium binary (apt-get install chromium, or set ARENA_CHROMIUM)")
    return path


@pytest.fixture(scope="module")
def browser(chromium: str) -> Iterator:
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an asyncio loop in this thread, and Django refuses ORM
    # calls next to a running loop. The tests build their data synchronously, so the
    # guard is lifted only while Playwright is alive.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            launched = playwright.chromium.launch(executable_path=chromium, args=LAUNCH_ARGS)
            yield launched
            launched.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def page(browser, transactional_db) -> Iterator:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    yield opened
    context.close()


@pytest.fixture
def page_without_js(browser, transactional_db) -> Iterator:
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1280, "height": 900}
    )
    opened = context.new_page()
    yield opened
    context.close()


@pytest.fixture
def screenshots() -> Path:
    SCREENSHOTS_DIR.mkdir(parents=True, exist_ok=True)
    print(f"screenshots in {SCREENSHOTS_DIR}")
    return SCREENSHOTS_DIR


# The two screens the layout tests read a page on.
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}


def opened(browser, viewport: dict, **options):
    """A context and page at `viewport`, with touch on a phone-sized one."""
    context = browser.new_context(viewport=viewport, has_touch=viewport["width"] < 700, **options)
    return context, context.new_page()


def draw_charts(page) -> None:
    """Scroll each chart into view: static/js/charts.js draws one (and fetches Plotly)
    only once it nears the screen."""
    for holder in page.locator("[data-figure]").all():
        holder.scroll_into_view_if_needed()


def show_board_controls(page) -> None:
    """Unfold the board's controls where a phone folds them behind one button."""
    summary = page.locator("details.board-controls:not([open]) > summary")
    if summary.count() and summary.is_visible():
        summary.click()
