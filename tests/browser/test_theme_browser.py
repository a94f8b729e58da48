"""In real Chromium: the partial Plotly bundle draws the charts, the page
follows the system's dark setting (page, table and charts), and an empty chart says so."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import draw_charts
from tests.leaderboard.boards.builders import agent_figures, build_snapshot, standard_boards

pytestmark = pytest.mark.browser

SIZES = [(1440, 900), (390, 844)]


def luminance(css_colour: str) -> float:
    """Relative luminance (WCAG) of an "rgb(r, g, b)" colour."""
    red, green, blue = (int(part) / 255 for part in re.findall(r"\d+", css_colour)[:3])

    def linear(channel: float) -> float:
        return channel / 12.92 if channel <= 0.03928 else ((channel + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)


def contrast(first: str, second: str) -> float:
    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.fixture
def themed_page(browser, transactional_db, request):
    scheme, (width, height) = request.param
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    opened = context.new_page()
    yield opened, scheme, width
    context.close()


@pytest.mark.parametrize(
    "themed_page",
    [("dark", size) for size in SIZES] + [("light", SIZES[0])],
    indirect=True,
    ids=["dark-1440", "dark-390", "light-1440"],
)
def test_it_follows_the_system_theme_with_readable_text_and_themed_charts(
    themed_page, live_server, screenshots
):
    page, scheme, width = themed_page
    build_snapshot(standard_boards())
    page.goto(live_server.url + "/boards/overall/")
    draw_charts(page)
    page.wait_for_selector("[data-figure='forest-figure'] .main-svg")
    body = page.evaluate(
        "() => { const s = getComputedStyle(document.body); return [s.backgroundColor, s.color]; }"
    )
    background, text = body
    if scheme == "dark":
        assert luminance(background) < 0.05, background
    else:
        assert luminance(background) > 0.8, background
    # WCAG AA for body text, and for the muted text and table header on the same page.
    assert contrast(background, text) >= 7
    muted = page.evaluate("getComputedStyle(document.querySelector('.attribution')).color")
    assert contrast(background, muted) >= 4.5
    header = page.evaluate("getComputedStyle(document.querySelector('table.board thead th')).color")
    assert contrast(background, header) >= 4.5
    # Plotly's tick labels take the theme's text colour, not its default dark grey.
    tick = page.evaluate(
        "getComputedStyle(document.querySelector(\"[data-figure='forest-figure'] .xtick text\")).fill"
    )
    assert contrast(background, tick) >= 4.5
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length === 2")
    page.screenshot(path=str(screenshots / f"board-{scheme}-{width}.png"), full_page=True)


def test_it_loads_the_partial_bundle_and_draws_every_board_chart(page, live_server):
    build_snapshot(standard_boards())
    loaded = []
    page.on("response", lambda response: loaded.append(response.url))
    page.goto(live_server.url + "/boards/overall/")
    draw_charts(page)
    page.wait_for_selector("[data-figure='cost-figure'] .main-svg")
    assert any(url.endswith("/vendor/plotly-basic.min.js") for url in loaded)
    assert not any("plotly.min.js" in url for url in loaded)
    # The forest plot's error bars and the cost chart's log axis both need the bundle.
    assert page.locator("[data-figure='forest-figure'] .errorbar").count() > 0
    assert page.evaluate("window.Plotly.version").startswith("3.")


def test_it_shows_a_message_not_bare_axes_for_an_empty_cost_chart(page, live_server):
    build_snapshot({"overall": [agent_figures("Quill", "2.1.0", cost=None)]})
    page.goto(live_server.url + "/boards/overall/")
    draw_charts(page)
    page.wait_for_selector("[data-figure='forest-figure'] .main-svg")
    empty = page.locator(".charts .chart-empty")
    assert empty.count() == 1
    assert "no entry on this board has a cost per success" in empty.inner_text()
    assert page.locator("[data-figure='cost-figure']").count() == 0
