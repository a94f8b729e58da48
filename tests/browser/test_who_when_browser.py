"""Who and when, the after-cutoff pass rate, and the list and reported costs, in a real browser at 1440 and 390 px:
the row lines, the "cost disagrees" flag, the open-weights and released-after
filters swapped in by htmx, no page wider than the window, and an empty console."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

import pytest

from leaderboard.methodology import stats
from tests.browser.conftest import show_board_controls
from tests.browser.test_layout_browser import open_at, wait_for_location
from tests.leaderboard.boards.builders import agent_figures, build_snapshot

pytestmark = pytest.mark.browser


@pytest.fixture
def site(db, live_server) -> SimpleNamespace:
    quill = agent_figures(
        "Quill", "2.1.0", "open-large", passes=60, cost=0.40, model_organisation="Meta",
        open_weights=True, model_release_date=dt.date(2026, 4, 5),
        knowledge_cutoff=dt.date(2025, 12, 1), harness_organisation="Quill Labs",
        harness_open_source=True,
        latest_submission_at=dt.datetime(2026, 11, 3, 9, 0, tzinfo=dt.UTC),
        reported_cost_per_success=0.90, reported_cost_per_success_status="ok",
        cost_disagrees=True, after_cutoff_tasks=120, after_cutoff_n=480,
        after_cutoff_passes=197, after_cutoff_pass_rate=197 / 480,
        after_cutoff_low=stats.wilson_interval(197, 480)[0],
        after_cutoff_high=stats.wilson_interval(197, 480)[1],
    )  # fmt: skip
    tern = agent_figures(
        "Tern", "1.0", "frontier-large", passes=80, model_organisation="Anthropic",
        open_weights=False, model_release_date=dt.date(2026, 9, 1),
        reported_cost_per_success=0.33, reported_cost_per_success_status="ok",
    )  # fmt: skip
    wren = agent_figures(
        "Wren", "0.3", "open-small", passes=40, open_weights=True,
        model_release_date=dt.date(2025, 1, 10), cost=None, cost_status="missing_tokens",
    )  # fmt: skip
    build_snapshot({"overall": [quill, tern, wren]})
    return SimpleNamespace(url=live_server.url)


def agents(page) -> list[str]:
    cells = page.locator("#board-table table.board tbody th.agent").all_inner_texts()
    return [cell.split()[0] for cell in cells]


@pytest.mark.parametrize("width", [1440, 390])
def test_it_shows_who_and_when_and_filters_in_place(browser, site, width, screenshots):
    from playwright.sync_api import expect

    context, page = open_at(browser, width)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(site.url + "/boards/overall/")
        row = page.locator("#board-table tbody tr", has_text="Quill")
        expect(row.locator(".who-when")).to_contain_text(
            "Meta · open weights · released 2026-04-05"
        )
        expect(row.locator(".who-when")).to_contain_text("submitted 2026-11-03")
        expect(row.locator(".cost-reported")).to_contain_text("reported $0.90")
        expect(row.locator(".cost-flag")).to_be_visible()
        expect(row.locator(".after-cutoff")).to_have_text("after cutoff: 41.0% [37–45], 120 tasks")
        assert agents(page) == ["Tern", "Quill", "Wren"]
        page.screenshot(path=screenshots / f"who-when-{width}.png", full_page=True)

        show_board_controls(page)
        page.locator('input[type="checkbox"][name="open_weights"]').check()
        wait_for_location(page, "/boards/overall/?open_weights=1")
        page.wait_for_function(
            "() => !document.querySelector('#board-table tbody').textContent.includes('Tern')"
        )
        assert agents(page) == ["Quill", "Wren"]

        page.locator('input[name="released_after"]').fill("2026-01-01")
        page.wait_for_function("() => location.search.includes('released_after=2026-01-01')")
        page.wait_for_function(
            "() => !document.querySelector('#board-table tbody').textContent.includes('Wren')"
        )
        assert agents(page) == ["Quill"]
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= page.evaluate("window.innerWidth"), f"the board is {wide}px wide"
        assert errors == []
    finally:
        context.close()
