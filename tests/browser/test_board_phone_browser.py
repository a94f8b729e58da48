"""A board read on a phone and on a desktop, in real Chromium: the controls folded
behind one button on a phone, the first rows on the first screen, the agent column in
place while the figures scroll, a row's details under the row, the page title following
the board tab, and tap targets and contrast a phone needs (in both themes)."""

from __future__ import annotations

import pytest

from tests.browser.conftest import DESKTOP, PHONE, opened
from tests.browser.test_board_browser import site  # noqa: F401 (the fixture)

pytestmark = pytest.mark.browser

TAP_TARGETS = ("#sort-n", ".compare-link", "table.board details.row-more summary", "th .term-link")
# Text colours on their own background, the contrast each text has to reach.
CONTRASTED = (".badge-warn", ".chip-warn", "table.board .model", ".muted")
CONTRAST = """selector => [...document.querySelectorAll(selector)].slice(0, 8).map(el => {
  const parse = c => c.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => {
    const f = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  let node = el, bg = [255, 255, 255];
  while (node) {
    const v = parse(getComputedStyle(node).backgroundColor);
    if ((v[3] ?? 1) > 0) { bg = v; break; }
    node = node.parentElement;
  }
  const [hi, lo] = [lum(parse(getComputedStyle(el).color)), lum(bg)].sort((a, b) => b - a);
  return (hi + 0.05) / (lo + 0.05);
})"""


def test_it_folds_the_controls_and_starts_the_table_on_a_phones_first_screen(browser, site):  # noqa: F811
    from playwright.sync_api import expect

    context, page = opened(browser, PHONE)
    try:
        page.goto(site.url + "/boards/overall/")
        expect(page.locator("#board-filters input[name=model]")).to_be_hidden()
        expect(page.locator("#board-downloads")).to_be_hidden()
        first_row = page.locator("#board-table tbody tr").first.bounding_box()
        assert first_row["y"] + first_row["height"] <= PHONE["height"], first_row
        page.locator("details.board-controls > summary").tap()
        expect(page.locator("#board-filters input[name=model]")).to_be_visible()
        expect(page.locator("#board-downloads")).to_be_visible()
    finally:
        context.close()


def test_it_shows_the_controls_unfolded_on_a_desktop(browser, site):  # noqa: F811
    from playwright.sync_api import expect

    context, page = opened(browser, DESKTOP)
    try:
        page.goto(site.url + "/boards/overall/")
        expect(page.locator("details.board-controls > summary")).to_be_hidden()
        expect(page.locator("#board-filters input[name=model]")).to_be_visible()
        expect(page.locator("#board-downloads")).to_be_visible()
    finally:
        context.close()


def test_it_keeps_the_agent_column_in_place_while_the_figures_scroll(browser, site):  # noqa: F811
    context, page = opened(browser, PHONE)
    try:
        page.goto(site.url + "/boards/overall/?col=cost&col=tokens&col=passk&col=latency")
        frame = page.locator("#board-table .table-scroll")
        agent = page.locator("#board-table tbody th.agent").first
        figure = page.locator("#board-table tbody td.pass").first
        before = (agent.bounding_box()["x"], figure.bounding_box()["x"])
        frame.evaluate("box => { box.scrollLeft = 200; }")
        page.wait_for_function("() => document.querySelector('.table-scroll').scrollLeft > 0")
        scrolled = frame.evaluate("box => box.scrollLeft")
        after = (agent.bounding_box()["x"], figure.bounding_box()["x"])
        assert after[1] == pytest.approx(before[1] - scrolled, abs=1)  # the figures moved
        assert after[0] == pytest.approx(frame.bounding_box()["x"], abs=1)  # the agent did not
    finally:
        context.close()


def test_it_opens_a_rows_details_below_the_row_not_over_its_figures(browser, site):  # noqa: F811
    from playwright.sync_api import expect

    context, page = opened(browser, PHONE)
    try:
        page.goto(site.url + "/boards/overall/")
        row = page.locator("#board-table tbody tr").first
        row.locator("details.row-more summary").tap()
        panel = page.locator("#board-table tr.row-more-row").first
        expect(panel).to_be_visible()
        row_box, panel_box = row.bounding_box(), panel.bounding_box()
        assert panel_box["y"] >= row_box["y"] + row_box["height"] - 1
        assert "95% CI" in panel.inner_text()
        row.locator("details.row-more summary").tap()
        expect(page.locator("#board-table tr.row-more-row")).to_have_count(0)
    finally:
        context.close()


def test_it_names_the_page_after_the_board_its_tab_shows(browser, site):  # noqa: F811
    context, page = opened(browser, DESKTOP)
    try:
        page.goto(site.url + "/boards/overall/")
        assert page.title() == "Overall · Arena"
        page.locator("nav.tabs a", has_text="Coding").click()
        page.wait_for_function("() => location.pathname === '/boards/coding/'")
        page.wait_for_function("() => document.title === 'Coding · Arena'")
        page.go_back()
        page.wait_for_function("() => document.title === 'Overall · Arena'")
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_it_gives_a_phone_targets_of_24_px_and_text_of_4_5_to_1(browser, site, scheme):  # noqa: F811
    context, page = opened(browser, PHONE, color_scheme=scheme)
    try:
        page.goto(site.url + "/boards/overall/")
        for selector in TAP_TARGETS:
            boxes = [box for box in (t.bounding_box() for t in page.locator(selector).all()) if box]
            assert boxes, selector
            small = [b for b in boxes if b["width"] < 24 or b["height"] < 24]
            assert small == [], f"{selector}: {small[:2]}"
        for selector in CONTRASTED:
            ratios = page.evaluate(CONTRAST, selector)
            assert ratios, selector
            assert min(ratios) >= 4.5, f"{selector} in the {scheme} theme: {min(ratios):.2f}:1"
    finally:
        context.close()
