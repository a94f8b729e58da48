"""The board in a real browser: htmx swaps, history, charts, and the same links without JS."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.browser.conftest import draw_charts
from tests.leaderboard.boards.builders import (
    build_agent,
    build_snapshot,
    standard_boards,
    trajectory,
)

pytestmark = pytest.mark.browser

DEFAULT_ORDER = ["OpenHarness", "Quill", "TermPilot", "Minimal", "Relay", "Broken", "Empty"]
BY_COST = ["Minimal", "OpenHarness", "TermPilot", "Quill", "Relay", "Broken", "Empty"]


@pytest.fixture
def site(registry, submitter, live_server) -> SimpleNamespace:
    _, _, runs = build_agent(submitter)
    build_snapshot(standard_boards())
    run = runs["fail"]
    run.trajectory = trajectory()
    run.verifier = {"name": "tb-verifier", "version": "4.0.0"}
    run.save()
    return SimpleNamespace(url=live_server.url, run=run)


def harness_order(page) -> list[str]:
    cells = page.locator("#board-table table.board tbody th.agent").all_inner_texts()
    return [cell.split()[0] for cell in cells]


def wait_for_location(page, path_and_query: str) -> None:
    """Wait until the address bar shows this path (htmx pushes it without a page load)."""
    page.wait_for_function(
        "expected => location.pathname + location.search === expected", arg=path_and_query
    )


def wait_for_order(page, expected: list[str]) -> None:
    from playwright.sync_api import expect

    expect(page.locator("#board-table table.board tbody th.agent").first).to_contain_text(
        expected[0]
    )
    page.wait_for_function(
        "first => document.querySelector('#board-table tbody th.agent').textContent.includes(first)",
        arg=expected[0],
    )
    assert harness_order(page) == expected


def test_it_sorts_in_place_updates_the_url_and_goes_back(page, site):
    page.goto(site.url + "/boards/overall/")
    assert harness_order(page) == DEFAULT_ORDER
    page.evaluate("window.__marker = 1")

    page.click("#sort-cost_per_success")
    wait_for_location(page, "/boards/overall/?sort=cost_per_success")
    wait_for_order(page, BY_COST)
    assert page.evaluate("window.__marker") == 1, "the sort reloaded the whole page"
    # The header now offers the other direction, and keyboard focus stays on it.
    assert page.get_attribute("#sort-cost_per_success", "href").endswith("?sort=-cost_per_success")

    page.go_back()
    wait_for_location(page, "/boards/overall/")
    wait_for_order(page, DEFAULT_ORDER)
    assert page.evaluate("window.__marker") == 1


def test_it_draws_the_charts_and_draws_them_again_after_a_swap(page, site):
    page.goto(site.url + "/boards/overall/")
    draw_charts(page)
    page.wait_for_selector("#board-table .plot-container svg", timeout=15_000)
    assert page.locator("#board-table .plot-container").count() == 2
    page.click("#sort-n")
    wait_for_location(page, "/boards/overall/?sort=-n")
    # A function, not an expression string: the page's CSP forbids eval in its polling.
    page.wait_for_function(
        "() => document.querySelectorAll('#board-table .plot-container').length === 2"
    )
    # The cost chart lists the agents it cannot place on a log axis.
    assert "Quill 2.1.0 · frontier-large" in page.inner_text(".not-plotted")


def test_it_filters_in_place_and_links_the_filtered_view(page, site):
    page.goto(site.url + "/boards/overall/")
    page.evaluate("window.__marker = 1")
    page.fill("input[name=model]", "mid-small")
    wait_for_location(page, "/boards/overall/?model=mid-small")
    wait_for_order(page, ["Relay", "Empty"])
    assert page.evaluate("window.__marker") == 1
    # The filtered view is a link: loading it afresh shows the same rows.
    page.goto(page.url)
    assert harness_order(page) == ["Relay", "Empty"]


def test_it_switches_boards_in_place_keeping_the_sort(page, site):
    page.goto(site.url + "/boards/overall/?sort=cost_per_success")
    page.evaluate("window.__marker = 1")
    page.click("nav.tabs >> text=Coding")
    wait_for_location(page, "/boards/coding/?sort=cost_per_success")
    page.wait_for_function(
        "() => document.querySelector('#board-page h1').textContent === 'Coding'"
    )
    assert harness_order(page) == ["OpenHarness", "TermPilot", "Quill"]
    assert page.evaluate("window.__marker") == 1


def test_it_sorts_with_javascript_off_as_a_full_page_load(page_without_js, site):
    page = page_without_js
    page.goto(site.url + "/boards/overall/")
    assert harness_order(page) == DEFAULT_ORDER
    assert "This chart needs JavaScript" in page.inner_text("#board-table")
    with page.expect_navigation():
        page.click("#sort-cost_per_success")
    assert page.url == site.url + "/boards/overall/?sort=cost_per_success"
    assert harness_order(page) == BY_COST
    # The filter form is a plain GET form; its Apply button shows only without JS.
    page.fill("input[name=model]", "mid-small")
    with page.expect_navigation():
        page.click("button[type=submit]")
    assert "model=mid-small" in page.url and "sort=cost_per_success" in page.url
    assert harness_order(page) == ["Relay", "Empty"]


def test_it_saves_screenshots_of_the_board_agent_and_run_pages(page, site, screenshots):
    page.goto(site.url + "/boards/overall/")
    draw_charts(page)
    page.wait_for_selector("#board-table .plot-container svg", timeout=15_000)
    page.screenshot(path=str(screenshots / "board.png"), full_page=True)

    page.click("table.board tbody th.agent >> text=OpenHarness")
    page.wait_for_url("**/agents/OpenHarness/0.9.2/frontier-large/")
    draw_charts(page)
    page.wait_for_selector(".plot-container svg", timeout=15_000)
    assert page.locator("a.cell").count() == 4
    page.screenshot(path=str(screenshots / "agent.png"), full_page=True)

    page.click("a.cell-fail")
    page.wait_for_url(f"**/runs/{site.run.pk}/")
    assert page.locator(".exit-bad").first.inner_text() == "✗ exit 2"
    assert page.evaluate("window.__alerted === undefined")
    page.screenshot(path=str(screenshots / "run.png"), full_page=True)

    page.set_viewport_size({"width": 360, "height": 800})
    page.goto(site.url + "/boards/overall/")
    draw_charts(page)
    page.wait_for_selector("#board-table .plot-container svg", timeout=15_000)
    # Narrow screen: the table scrolls inside its region, not the page.
    assert page.evaluate("document.documentElement.scrollWidth") <= 360 + 1
    page.screenshot(path=str(screenshots / "board-360.png"), full_page=True)


def test_it_runs_no_script_from_bundle_text(page, site):
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f"{site.url}/runs/{site.run.pk}/")
    page.wait_for_selector("ol.conversation")
    assert "<script>alert(1)</script>" in page.inner_text("ol.conversation")
    assert dialogs == []
