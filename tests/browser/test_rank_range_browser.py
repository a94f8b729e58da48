"""Rank ranges and the "tied with the leader" marker in a real browser, wide and on a
390 px phone: visible as text (no hover needed), and the page no wider than the screen."""

from __future__ import annotations

import pytest

from tests.browser.conftest import SCREENSHOTS_DIR
from tests.leaderboard.boards.builders import agent_figures, build_snapshot

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width", [1440, 390])
def test_it_shows_the_rank_range_and_tied_marker_within_the_viewport(
    browser, transactional_db, live_server, width
):
    build_snapshot(
        {
            "overall": [
                agent_figures("Lead", passes=90, n=100),
                agent_figures("Close", passes=85, n=100),
                agent_figures("Far", passes=20, n=100),
            ]
        }
    )
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.goto(live_server.url + "/boards/overall/")
        close_rank = page.locator("table.board tbody tr", has_text="Close").locator("td.rank")
        assert close_rank.locator(".rank-range").inner_text() == "1–2"
        close_rank.locator(".rank-range").scroll_into_view_if_needed()
        assert close_rank.locator(".rank-range").is_visible()
        assert close_rank.locator(".chip-tied").is_visible()
        assert page.locator(".legend-tied").is_visible()
        assert "statistically tied with the leader" in page.locator(".legend-tied").inner_text()
        page_width = page.evaluate("document.documentElement.scrollWidth")
        assert page_width <= width
        SCREENSHOTS_DIR.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS_DIR / f"rank-range-{width}.png"), full_page=True)
    finally:
        context.close()
