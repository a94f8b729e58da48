"""Provenance chips on the Signals page and the cross-validation view, in a real browser
at 1440 and 390 px: the chips and charts shown, no page wider than the window, and an
empty console."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from ingestion.models import LanguageModel, Organisation
from leaderboard.recompute.services import boards_recompute
from tests.browser.test_layout_browser import CLIPPED_TABLES, open_at
from tests.builders import outcomes, submit
from tests.leaderboard.signalboard.helpers import ingest_sessions, session

pytestmark = pytest.mark.browser

RESULTS = {"alpha": ["pass", "fail"], "beta": ["fail", "pass", "pass"], "gamma": ["pass"]}
RESULTS["delta"] = ["fail", "fail", "pass"]


def sessions(prefix: str, counts: dict[str, int]) -> list[dict]:
    return [
        session(f"{prefix}-{model}-{i}", model, confirmation="yes" if i % 2 else "no")
        for model, count in counts.items()
        for i in range(count)
    ]


@pytest.fixture
def site(registry, submitter, other_submitter, live_server) -> SimpleNamespace:
    """Four models on both layers; `submitter` works for the lab that serves delta."""
    for model, results in RESULTS.items():
        submit(submitter, outcomes(*results, model=model, prefix=model))
    ingest_sessions(submitter, sessions("s", {"alpha": 3, "beta": 3, "gamma": 4, "delta": 2}))
    ingest_sessions(other_submitter, sessions("o", {"alpha": 1, "delta": 4}))
    lab = Organisation.objects.create(name="Example Lab")
    lab.members.add(submitter)
    LanguageModel.objects.filter(name="delta").update(provider="Example Lab")
    boards_recompute()
    return SimpleNamespace(url=live_server.url)


def watch_console(page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


def assert_fits(page, width: int, name: str) -> None:
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= page.evaluate("window.innerWidth"), f"{name} is {wide}px wide"
    if width == 1440:
        assert page.evaluate(CLIPPED_TABLES) == [], f"{name} clips a table column"


@pytest.mark.parametrize("width", [1440, 390])
def test_it_shows_the_provenance_chips_on_the_signals_page(browser, site, width, screenshots):
    from playwright.sync_api import expect

    context, page = open_at(browser, width)
    errors = watch_console(page)
    try:
        page.goto(site.url + "/signals/")
        alpha = page.locator("table.signal-board tbody tr", has_text="alpha")
        expect(alpha.locator(".chip-concentrated")).to_be_visible()
        expect(alpha.locator(".sig-without").first).to_contain_text("without top account:")
        delta = page.locator("table.signal-board tbody tr", has_text="delta")
        expect(delta.locator(".chip-conflict")).to_have_text("Conflict-excluded: 2 sessions")
        page.screenshot(path=screenshots / f"signal-provenance-{width}.png", full_page=True)
        assert_fits(page, width, "the signals page")
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("width", [1440, 390])
def test_it_draws_the_cross_validation_view(browser, site, width, screenshots):
    from playwright.sync_api import expect

    context, page = open_at(browser, width)
    errors = watch_console(page)
    try:
        page.goto(site.url + "/signals/validation/")
        expect(page.locator(".validation-chart .plot .main-svg").first).to_be_visible()
        assert page.locator(".validation-chart .plot .main-svg").count() >= 2
        # Both axes carry error bars: Plotly draws them as .errorbar groups.
        assert page.locator(".validation-chart .errorbar").count() > 0
        expect(page.locator("#validation-net-improvement-rho")).to_contain_text("ρ =")
        expect(page.locator("#label-agreement-figure")).to_be_visible()
        expect(page.locator("table.validation-table tbody tr")).to_have_count(4)
        page.screenshot(path=screenshots / f"signal-validation-{width}.png", full_page=True)
        assert_fits(page, width, "the cross-validation page")
        assert errors == []
    finally:
        context.close()
