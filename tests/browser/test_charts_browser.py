"""The board's charts in a real browser: Plotly (a megabyte) is fetched only once a chart
comes near the screen, a tap on a point writes its figures under the chart, and the
back button after an htmx change leaves nothing in the console."""

from __future__ import annotations

import pytest

from tests.browser.conftest import DESKTOP, PHONE, draw_charts, opened
from tests.browser.test_board_browser import site  # noqa: F401 (the fixture)
from tests.browser.test_layout_browser import watch_console

pytestmark = pytest.mark.browser

PLOTLY = "/vendor/plotly-basic.min.js"
# charts.js starts fetching this far before a chart scrolls into view.
NEAR = 150
DETAIL_PROMPT = "Tap or click a point for its figures."


def plotly_requests(page) -> list[str]:
    fetched: list[str] = []
    page.on(
        "request", lambda request: fetched.append(request.url) if PLOTLY in request.url else None
    )
    return fetched


def test_it_fetches_plotly_only_once_a_chart_nears_a_phones_screen(browser, site):  # noqa: F811
    context, page = opened(browser, PHONE)
    try:
        fetched = plotly_requests(page)
        page.goto(site.url + "/boards/overall/")
        page.wait_for_load_state("networkidle")
        # Meaningful only while every chart starts beyond the distance that fetches.
        tops = [box["y"] for box in (h.bounding_box() for h in page.locator("[data-figure]").all())]
        assert tops and min(tops) > PHONE["height"] + NEAR, tops
        assert fetched == []
        assert page.evaluate("typeof window.Plotly") == "undefined"

        page.locator("[data-figure]").first.scroll_into_view_if_needed()
        page.wait_for_selector("[data-figure] .main-svg")
        draw_charts(page)  # the other chart too: the library is fetched once
        page.wait_for_function(
            "() => [...document.querySelectorAll('[data-figure]')].every(h => h.querySelector('.main-svg'))"
        )
        assert len(fetched) == 1, fetched
    finally:
        context.close()


def test_it_writes_a_tapped_points_figures_under_the_chart(browser, site):  # noqa: F811
    from playwright.sync_api import expect

    context, page = opened(browser, PHONE)
    try:
        page.goto(site.url + "/boards/overall/")
        holder = page.locator("[data-figure=forest-figure]")
        holder.scroll_into_view_if_needed()
        detail = page.locator("[data-figure=forest-figure] + .chart-detail")
        expect(detail).to_have_text(DETAIL_PROMPT)
        # The forest plot's first row is the leader, OpenHarness.
        point = holder.locator(".scatterlayer path.point").first
        point.wait_for()
        box = point.bounding_box()
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        expect(detail).to_contain_text("OpenHarness 0.9.2")
        assert "80.0%" in detail.inner_text() and "n = 100" in detail.inner_text()
    finally:
        context.close()


@pytest.mark.parametrize("change", ["sort", "filter"])
def test_it_leaves_the_console_empty_going_back_after_a_control_change(browser, site, change):  # noqa: F811
    context, page = opened(browser, DESKTOP)
    try:
        said = watch_console(page)
        page.goto(site.url + "/boards/overall/")
        # Drawn charts leave Plotly's text-measuring svg in <body>, which htmx saves.
        draw_charts(page)
        page.wait_for_selector("#js-plotly-tester", state="attached")
        if change == "sort":
            page.click("table.board thead >> text=Cost / success")
            page.wait_for_function("() => location.search.includes('sort=')")
        else:
            page.fill("#board-filters input[name=model]", "mid-small")
            page.wait_for_function("() => location.search.includes('model=mid-small')")
        page.wait_for_load_state("networkidle")

        page.go_back()
        page.wait_for_function("() => location.search === ''")
        page.wait_for_load_state("networkidle")
        draw_charts(page)  # the restored page draws its charts again
        page.wait_for_selector("[data-figure] .main-svg")
        page.wait_for_load_state("networkidle")
        assert said == []
    finally:
        context.close()
