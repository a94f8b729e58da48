"""History in a real browser: the agent page's chart and table, a board's change log, at
a desktop and a phone width, never wider than the window."""

from __future__ import annotations

import pytest
from django.urls import reverse

from leaderboard.models import BoardEntry
from leaderboard.recompute.services import boards_recompute_pending
from tests.builders import outcomes, submit

pytestmark = pytest.mark.browser

WIDTHS = (1440, 390)


@pytest.fixture
def site(registry, submitter, live_server) -> str:
    submit(submitter, outcomes("pass", "fail"))
    boards_recompute_pending()
    submit(submitter, outcomes("pass", "pass", prefix="b"))
    boards_recompute_pending()
    return live_server.url


@pytest.mark.parametrize("width", WIDTHS)
def test_it_draws_the_agent_history_and_lists_the_changes(page, site, width, screenshots):
    from playwright.sync_api import expect

    page.set_viewport_size({"width": width, "height": 900})
    page.goto(site + reverse("agent", args=["H", "1.0.0", "m"]) + "#history")
    chart = page.locator("#history-section .plot")
    expect(chart.locator("svg.main-svg").first).to_be_visible()  # Plotly drew it
    table = page.locator("#history-section table.history-table")
    expect(table).to_be_visible()
    # Every board the agent stands on (Overall, Coding, the suite, its category), twice.
    boards = BoardEntry.objects.filter(board__snapshot__is_current=True, harness_name="H").count()
    assert boards >= 3
    expect(table.locator("tbody tr")).to_have_count(2 * boards)
    page.screenshot(path=screenshots / f"history-agent-{width}.png", full_page=True)
    # The section fits the window (its table scrolls inside its own region).
    for part in ("#history-section", "#history-section .plot", "#history-section .table-scroll"):
        assert page.locator(part).bounding_box()["width"] <= width
        assert (
            page.evaluate(f"document.querySelector('{part}').getBoundingClientRect().right")
            <= width
        )

    page.goto(site + reverse("board-changes", args=["overall"]))
    expect(page.locator(".change-causes a").first).to_contain_text("New submission")
    expect(page.locator("table.change-table tbody tr").first).to_contain_text("75.0%")
    page.screenshot(path=screenshots / f"history-changes-{width}.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
