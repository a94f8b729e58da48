"""The harness × model page in a real browser, on a desktop and on a phone."""

from __future__ import annotations

import pytest

from ingestion.models import Task
from leaderboard.recompute.services import boards_recompute
from tests.browser.conftest import draw_charts
from tests.leaderboard.effects.builders import BOARD, grid_tasks, harness_model_grid

pytestmark = pytest.mark.browser

GRID = {
    "Minimal": ["model-a", "model-b"],
    "Alpha": ["model-a", "model-b", "model-c"],
    "Beta": ["model-b", "model-c"],
    "Solo": ["solo-model"],
}


@pytest.mark.parametrize("width", [1440, 390])
def test_it_shows_the_tables_and_the_thin_design_message_within_the_viewport(
    page, registry, staff, live_server, screenshots, width
) -> None:
    from playwright.sync_api import expect

    harness_model_grid(staff, GRID, tasks=grid_tasks())
    # Core has four tasks: too few to separate anything on its own board.
    core = list(Task.objects.approved_official().filter(suite__slug="core").order_by("pk"))
    harness_model_grid(staff, {"Minimal": ["model-a", "model-b"], "Alpha": ["model-b"]}, tasks=core)
    boards_recompute()
    page.set_viewport_size({"width": width, "height": 900})

    page.goto(f"{live_server.url}/boards/{BOARD}/harnesses/")
    expect(page.locator("#harness-effects-caption")).to_be_visible()
    expect(page.locator("table.effects").first.locator("svg.ci").first).to_be_visible()
    expect(page.get_by_text("only one model", exact=False).first).to_be_visible()
    draw_charts(page)
    page.wait_for_selector("[data-figure='harness-effects-figure'] .main-svg")
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    page.screenshot(path=screenshots / f"harness-effects-{width}.png", full_page=True)

    page.goto(f"{live_server.url}/boards/core-1.0.0/harnesses/")
    expect(page.locator(".thin-design")).to_be_visible()
    expect(page.locator(".thin-design")).to_contain_text("informative task")
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
