"""The comparable-rows chips and filters in a real browser, wide and on a 390 px phone:
the incomplete and non-standard chips visible, the filters ticking re-ranks, the page no
wider than the screen, and nothing in the console."""

from __future__ import annotations

import pytest

from tests.browser.conftest import SCREENSHOTS_DIR, show_board_controls
from tests.leaderboard.boards.builders import agent_figures, build_snapshot

pytestmark = pytest.mark.browser


def comparable_board() -> None:
    build_snapshot({
        "overall": [
            agent_figures("Quick", passes=92, n=100, run_config_status="non_standard",
                          run_config_summary="non-standard: 3 trials (standard 5)",
                          run_configs=[{"trials": 3}]),
            agent_figures("Second", passes=80, n=100, run_config_status="standard"),
            agent_figures("Partial", passes=99, n=100, coverage_tasks=7,
                          run_config_status="unstated", run_config_unstated="not stated: hints"),
        ]
    })  # fmt: skip


@pytest.mark.parametrize("width", [1440, 390])
def test_it_shows_the_chips_and_re_ranks_with_the_standard_filter(
    browser, transactional_db, live_server, width
):
    comparable_board()
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    messages: list[str] = []
    page.on("console", lambda message: messages.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: messages.append(f"error: {error}"))
    try:
        page.goto(live_server.url + "/boards/overall/")
        partial = page.locator("table.board tbody tr", has_text="Partial")
        chip = partial.locator(".chip-warn", has_text="incomplete: 7/10 tasks")
        chip.scroll_into_view_if_needed()
        assert chip.is_visible()
        assert partial.locator(".chip-config", has_text="not stated: hints").is_visible()
        lead = page.locator("table.board tbody tr", has_text="Quick")
        assert lead.locator(".chip-config", has_text="non-standard: 3 trials").is_visible()
        second_rank = page.locator("table.board tbody tr", has_text="Second").locator("td.rank")
        assert second_rank.inner_text().split()[0] == "2"
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        SCREENSHOTS_DIR.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS_DIR / f"comparable-{width}.png"), full_page=True)

        show_board_controls(page)
        box = page.get_by_label("Standard configuration only")
        box.scroll_into_view_if_needed()
        box.check()
        page.locator("table.board tbody tr", has_text="Quick").wait_for(state="detached")
        assert "standard=1" in page.url  # htmx pushed the filtered address
        second_rank = page.locator("table.board tbody tr", has_text="Second").locator("td.rank")
        assert second_rank.inner_text().split()[0] == "1"
        assert page.locator(".rerank-note").is_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(
            path=str(SCREENSHOTS_DIR / f"comparable-standard-{width}.png"), full_page=True
        )
        assert messages == []
    finally:
        context.close()
