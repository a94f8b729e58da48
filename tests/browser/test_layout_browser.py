"""In a real browser: controls that follow the back button, every figure's
details one tap away on a phone, and no page wider than the window, with a clipped
column or with anything in the console, at 1440×900, 390×844 and 360×740: every page a
visitor, a submitter or the staff can reach. Screenshots of each page go to
var/screenshots/ (the `screenshots` fixture prints the folder)."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from django.urls import reverse

from ingestion.aggregate_boards import category_title
from leaderboard.models import Board
from tests.leaderboard.boards.builders import (
    build_agent,
    build_snapshot,
    standard_boards,
    trajectory,
)
from tests.leaderboard.signalboard.helpers import model_scores, publish_board

pytestmark = pytest.mark.browser

SIZES = {1440: 900, 390: 844}
BOUNDS = re.compile(r"95% CI \d+\.\d%–\d+\.\d%")


@pytest.fixture
def site(registry, submitter, live_server) -> SimpleNamespace:
    _, _, runs = build_agent(submitter)
    figures = standard_boards()
    # The task page lists only its suite board's entries with runs of the task: the
    # agent's entry joins that board so the page has a row to lay out; and a category
    # board, a slice of Overall, gets rows of its own.
    figures["terminal-bench-4.0.0"] = [figures["overall"][0], *figures["terminal-bench-4.0.0"]]
    figures["category-terminal"] = figures["overall"][1:4]
    boards = build_snapshot(figures)
    Board.objects.filter(snapshot=boards, slug="category-terminal").update(
        title=category_title("terminal")
    )
    run = runs["fail"]
    task = run.task
    run.trajectory = trajectory()
    run.save()
    signals = publish_board(
        {
            "frontier-large": model_scores(96, success=0.57, nir=0.12, sd=0.039, p=0.002),
            "frontier-mini": model_scores(96, success=0.57, nir=-0.01, sd=0.037),
            "tiny-model": model_scores(12, success=0.9, nir=0.3, sd=0.1),
        }
    )
    # One current snapshot holds both the boards and the signal board.
    Board.objects.filter(snapshot=boards).update(snapshot=signals)
    return SimpleNamespace(
        url=live_server.url,
        run=run,
        task=reverse("task", args=[task.suite.slug, task.suite.version, task.task_id]),
    )


def open_at(browser, width: int):
    context = browser.new_context(
        viewport={"width": width, "height": SIZES[width]}, has_touch=width < 700
    )
    return context, context.new_page()


def wait_for_location(page, path_and_query: str) -> None:
    page.wait_for_function(
        "expected => location.pathname + location.search === expected", arg=path_and_query
    )


def board_controls(page) -> dict:
    return {
        "model": page.input_value("#board-filters input[name=model]"),
        "passk": page.is_checked("#board-filters input[name=col][value=passk]"),
        "passk_column": page.locator("#board-table thead th", has_text="pass^k").count() == 1,
        "rows": page.locator("#board-table tbody th.agent").count(),
    }


def test_it_restores_the_controls_from_the_url_on_back_and_forward(page, site):
    page.goto(site.url + "/boards/overall/")
    start = board_controls(page)
    page.fill("input[name=model]", "mid-small")
    wait_for_location(page, "/boards/overall/?model=mid-small")
    page.wait_for_function(
        "() => document.querySelectorAll('#board-table tbody th.agent').length === 2"
    )
    filtered = board_controls(page)
    passk = page.locator("#board-filters input[name=col][value=passk]")
    was_checked = passk.is_checked()
    passk.click()
    page.wait_for_function(
        "() => location.search.includes('col=') && !document.querySelector('.htmx-request')"
    )
    page.wait_for_function(
        "shown => (document.querySelectorAll('#board-table thead th a[href*=\"pass-k\"]').length === 1) === shown",
        arg=not was_checked,
    )
    both = board_controls(page)
    assert both["passk"] is not was_checked and both["model"] == "mid-small"

    page.go_back()
    wait_for_location(page, "/boards/overall/?model=mid-small")
    page.wait_for_function(
        "() => document.querySelectorAll('#board-table tbody th.agent').length === 2"
    )
    assert (
        board_controls(page) == filtered == {**filtered, "model": "mid-small", "passk": was_checked}
    )

    page.go_back()
    wait_for_location(page, "/boards/overall/")
    assert board_controls(page) == start and start["model"] == ""

    page.go_forward()
    wait_for_location(page, "/boards/overall/?model=mid-small")
    assert board_controls(page) == filtered
    page.go_forward()
    page.wait_for_function("() => location.search.includes('col=')")
    assert board_controls(page) == both


@pytest.mark.parametrize("path", ["/boards/overall/", "/signals/"])
def test_it_shows_a_rows_bounds_as_numbers_on_a_tap_at_phone_size(browser, site, path):
    from playwright.sync_api import expect

    context, page = open_at(browser, 390)
    try:
        page.goto(site.url + path)
        assert "hover a figure" not in page.inner_text("main")
        panel = page.locator("details.row-more").first
        expect(panel.locator(".row-more-body")).to_be_hidden()
        panel.locator("summary").tap()
        # The details open in a row of their own under the row.
        opened = page.locator("tr.row-more-row .row-more-panel").first
        expect(opened).to_be_visible()
        text = opened.inner_text()
        assert BOUNDS.search(text), text
        assert "n" in text and ("runs" in text or "sessions" in text)
    finally:
        context.close()


# Every page a visitor can reach, by name: anonymous ones, then the submitter's and the
# staff's (logged in first).
PUBLIC_PAGES = {
    "home": "/",
    "board": "/boards/overall/",
    "hardest-tasks": "/boards/overall/tasks/",
    "category-board": "/boards/category-terminal/",
    "category-hardest-tasks": "/boards/category-terminal/tasks/",
    "task": "{task}",
    "board-every-column": "/boards/overall/?col=cost&col=tokens&col=passk&col=latency&col=trajectory&col=horizon&k=1",
    "signals": "/signals/",
    "signals-scenario": "/signals/?view=scenario",
    "signals-validation": "/signals/validation/",
    "signal-model": "/signals/models/frontier-large/",
    "run": "/runs/{run}/",
    "methodology": "/methodology/",
    "changes": "/boards/overall/changes/",
    "harnesses": "/boards/overall/harnesses/",
    "search": "/agents/?q=open",
    "signup": "/accounts/signup/",
    "login": "/accounts/login/",
    "password-reset": "/accounts/password/reset/",
    "api-root": "/api/v1/",
}  # fmt: skip
LINKED_PAGES = {"agent": "#board-table th.agent a[href*='/agents/']", "compare": "a.compare-link"}
SUBMITTER_PAGES = {"submit": "/submit/", "submission": "/submissions/{submission}/"}
ADMIN_PAGES = {
    "admin-submissions": "/admin/ingestion/submission/",
    "admin-runs": "/admin/ingestion/run/",
    "admin-tasks": "/admin/ingestion/task/",
    "admin-harnesses": "/admin/ingestion/harness/",
    "admin-snapshots": "/admin/leaderboard/boardsnapshot/",
    "admin-conflicts": "/admin/leaderboard/conflictpair/",
}
WIDTHS = {1440: 900, 390: 844, 360: 740}


def page_url(page, site, name: str) -> str:
    if name in LINKED_PAGES:
        page.goto(site.url + "/boards/overall/")
        return site.url + page.get_attribute(LINKED_PAGES[name], "href")
    path = {**PUBLIC_PAGES, **SUBMITTER_PAGES, **ADMIN_PAGES}[name]
    return site.url + path.format(
        run=site.run.pk, submission=site.run.submission_id, task=site.task
    )


# A table is clipped when it, or the region it scrolls in, is wider than its box.
CLIPPED_TABLES = """() => [...document.querySelectorAll('main table')].flatMap(table => {
    const boxes = [table, table.closest('.table-scroll') || table.parentElement];
    return boxes.filter(box => box.scrollWidth > box.clientWidth + 1).map(box =>
        `${table.className || 'table'}: ${box.scrollWidth}px in ${box.clientWidth}px`);
})"""
# A table that scrolls in its frame must say so: the frame draws the edge's shadow.
UNCUED_SCROLLS = """() => [...document.querySelectorAll('.table-scroll')].filter(box =>
    box.scrollWidth > box.clientWidth + 1 && !getComputedStyle(box).backgroundImage.includes('gradient')
).map(box => box.className)"""


def log_in(context, live_server, user) -> None:
    """The browser gets the session of a Django client logged in as `user`."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}]
    )


def watch_console(page) -> list[str]:
    """Everything the page writes to the console (a CSP refusal is an error there) and
    every uncaught error: the list a test expects empty."""
    said: list[str] = []
    page.on("console", lambda message: said.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: said.append(f"uncaught: {error}"))
    return said


def check_page(browser, url: str, name: str, screenshots, *, user=None, live_server=None) -> None:
    """At a desktop and two phone widths: nothing wider than the window, no clipped table
    at 1440 px, a scroll cue on any table that scrolls, an empty console; a screenshot
    of each, full length."""
    for width, height in WIDTHS.items():
        context = browser.new_context(
            viewport={"width": width, "height": height}, has_touch=width < 700
        )
        try:
            if user is not None:
                log_in(context, live_server, user)
            page = context.new_page()
            said = watch_console(page)
            page.goto(url)
            page.wait_for_load_state("networkidle")
            # Draw every chart (each is drawn once near the screen) before measuring.
            for holder in page.locator("[data-figure]").all():
                holder.scroll_into_view_if_needed()
            page.wait_for_load_state("networkidle")
            shot = screenshots / f"{name}-{width}.png"
            page.screenshot(path=shot, full_page=True)
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= width, f"{name} is {wide}px wide at {width}px ({shot})"
            assert page.evaluate(UNCUED_SCROLLS) == [], f"{name} scrolls a table without a cue"
            # Django's admin scrolls its changelists in their own region, by design.
            if width == 1440 and name != "board-every-column" and name not in ADMIN_PAGES:
                assert page.evaluate(CLIPPED_TABLES) == [], f"{name} clips a table column"
            assert said == [], f"{name} at {width}px: {said}"
        finally:
            context.close()


@pytest.mark.parametrize("name", [*PUBLIC_PAGES, *LINKED_PAGES])
def test_it_fits_every_public_page_in_the_window_with_an_empty_console(
    browser, site, name, screenshots
):
    context = browser.new_context()
    try:
        url = page_url(context.new_page(), site, name)
    finally:
        context.close()
    check_page(browser, url, name, screenshots)


@pytest.mark.parametrize("name", SUBMITTER_PAGES)
def test_it_fits_the_submitters_pages_in_the_window_with_an_empty_console(
    browser, site, submitter, live_server, name, screenshots
):
    url = page_url(None, site, name)
    check_page(browser, url, name, screenshots, user=submitter, live_server=live_server)


@pytest.mark.parametrize("name", ADMIN_PAGES)
def test_it_fits_the_admin_changelists_in_the_window_with_an_empty_console(
    browser, site, superuser, live_server, name, screenshots
):
    url = page_url(None, site, name)
    check_page(browser, url, name, screenshots, user=superuser, live_server=live_server)


def test_it_restores_the_compare_pickers_on_back(browser, registry, submitter, live_server):
    from tests.leaderboard.web.compare_site import ALPHA, BETA, BOARD, compare_site

    compare_site(submitter)
    context, page = open_at(browser, 1440)
    try:
        page.goto(f"{live_server.url}/compare/?board={BOARD}")
        page.select_option("#compare-form select[name=a]", ALPHA)
        page.select_option("#compare-form select[name=b]", BETA)
        page.click("#compare-form button[type=submit]")
        page.wait_for_function("() => location.search.includes('b=')")
        page.wait_for_selector("#compare-verdict")
        page.select_option("#compare-form select[name=a]", BETA)
        page.select_option("#compare-form select[name=b]", ALPHA)
        page.click("#compare-form button[type=submit]")
        page.wait_for_function("() => location.search.indexOf('a=Beta') !== -1")

        page.go_back()
        page.wait_for_function("() => location.search.indexOf('a=Alpha') !== -1")
        picked = [page.input_value(f"#compare-form select[name={n}]") for n in ("a", "b")]
        assert picked == [ALPHA, BETA]
    finally:
        context.close()


def test_it_fits_the_release_page_in_the_window_with_an_empty_console(
    browser, submitter, live_server, screenshots
):
    from tests.leaderboard.signalboard.agent_builders import HARNESS, publish_agent_board

    publish_agent_board(submitter)
    url = f"{live_server.url}/signals/releases/{HARNESS}/"
    check_page(browser, url, "release", screenshots)
