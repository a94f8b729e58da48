"""Agent search and the boards' version toggle in a real browser, at a
desktop and a phone size: live results as one types, the box and the table following
the back button, and no page wider than the window."""

from __future__ import annotations

import pytest

from tests.browser.conftest import show_board_controls
from tests.leaderboard.boards.builders import agent_figures, build_snapshot

pytestmark = pytest.mark.browser

SIZES = ((1440, 900), (390, 844))


@pytest.fixture
def site(live_server, transactional_db) -> str:
    build_snapshot({
        "overall": [
            agent_figures("Quill", "0.9.2", "frontier-large", passes=90, n=100),
            agent_figures("Quill", "0.10.0", "frontier-large", passes=60, n=100),
            agent_figures("OpenHarness", "1.2.0", "mid-small", passes=70, n=100),
            agent_figures("Relay Agent", "1.0", "frontier-large", passes=50, n=100),
        ]
    })  # fmt: skip
    return live_server.url


def fits(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_it_searches_live_and_restores_the_box_on_back(page, site, width, height, screenshots):
    from playwright.sync_api import expect

    page.set_viewport_size({"width": width, "height": height})
    page.goto(site + "/")
    # The header's box is a plain form: Enter goes to /agents/?q=.
    page.fill("#site-search-q", "quil")
    page.press("#site-search-q", "Enter")
    page.wait_for_url("**/agents/?q=quil")
    rows = page.locator("#agent-results tbody tr")
    expect(rows).to_have_count(2)
    assert fits(page)

    # Typing replaces the results in place and pushes the address.
    page.fill("#agent-q", "opnharness")
    page.wait_for_url("**/agents/?q=opnharness")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("OpenHarness 1.2.0")
    page.screenshot(path=screenshots / f"agents-search-{width}.png", full_page=True)
    assert fits(page)

    page.go_back()
    page.wait_for_url("**/agents/?q=quil")
    expect(rows).to_have_count(2)
    expect(page.locator("#agent-q")).to_have_value("quil")

    rows.first.locator("a").first.click()
    page.wait_for_url("**/agents/Quill/**")
    assert fits(page)


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_it_toggles_all_versions_and_back(page, site, width, height, screenshots):
    from playwright.sync_api import expect

    page.set_viewport_size({"width": width, "height": height})
    page.goto(site + "/boards/overall/")
    rows = page.locator("#board-table table.board tbody tr:not(.details-row)")
    table = page.locator("#board-table")
    expect(table).not_to_contain_text("Quill 0.9.2")
    toggle = page.get_by_label("All versions")
    expect(toggle).not_to_be_checked()
    assert fits(page)

    show_board_controls(page)
    toggle.check()
    page.wait_for_url("**/boards/overall/?versions=all")
    expect(table).to_contain_text("Quill 0.9.2")
    page.screenshot(path=screenshots / f"board-all-versions-{width}.png", full_page=True)
    assert fits(page)

    page.go_back()
    page.wait_for_url("**/boards/overall/")
    expect(table).not_to_contain_text("Quill 0.9.2")
    expect(page.get_by_label("All versions")).not_to_be_checked()
    assert rows.count() >= 3
