"""In a real browser, at 1440×900 and 390×844: the home page, a task page and a board's
hardest tasks fit the window (no horizontal overflow) and leave the console empty.
Screenshots go to var/screenshots/."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from ingestion.models import Harness, LanguageModel, Task
from leaderboard.recompute.services import boards_recompute
from tests.leaderboard.boards.builders import make_run, make_submission

pytestmark = pytest.mark.browser

SIZES = {1440: 900, 390: 844}
# A long agent name and a long task id: what would push a narrow page wider.
LONG_HARNESS = "AVeryLongHarnessNameThatKeepsGoing"


@pytest.fixture
def site(registry, submitter, live_server) -> SimpleNamespace:
    model, _ = LanguageModel.objects.get_or_create(name="provider/a-rather-long-model-name-v2")
    tasks = list(Task.objects.filter(suite__slug="terminal-bench", approved=True))
    for i, name in enumerate(["Quill", "TermPilot", LONG_HARNESS, "Relay"]):
        harness, _ = Harness.objects.get_or_create(name=name, version=f"1.{i}.0")
        submission = make_submission(submitter, harness)
        for found in tasks:
            for trial in (1, 2, 3):
                outcome = "pass" if (i + trial + found.pk) % 3 else "fail"
                make_run(submission, model, found, trial, outcome)
    boards_recompute()
    return SimpleNamespace(url=live_server.url, task=tasks[0])


def open_at(browser, width: int):
    context = browser.new_context(
        viewport={"width": width, "height": SIZES[width]}, has_touch=width < 700
    )
    page = context.new_page()
    messages: list[str] = []
    page.on("console", lambda message: messages.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: messages.append(f"error: {error}"))
    return context, page, messages


def assert_fits(page, name: str) -> None:
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= page.evaluate("window.innerWidth"), f"{name} is {wide}px wide"


@pytest.mark.parametrize("width", SIZES)
def test_the_home_task_and_hardest_tasks_pages_fit_with_an_empty_console(
    browser, site, width, screenshots
):
    task = site.task
    pages = {
        "home": "/",
        "task": f"/tasks/terminal-bench/4.0.0/{task.task_id}/",
        "hardest-tasks": "/boards/terminal-bench-4.0.0/tasks/",
    }
    context, page, messages = open_at(browser, width)
    try:
        for name, path in pages.items():
            response = page.goto(site.url + path)
            assert response.status == 200, path
            page.wait_for_load_state("networkidle")
            assert page.locator("h1").count() == 1
            page.screenshot(path=screenshots / f"{name}-{width}.png", full_page=True)
            assert_fits(page, name)
        assert messages == []
    finally:
        context.close()


def test_the_home_page_leads_to_a_board_and_a_task(browser, site):
    context, page, messages = open_at(browser, 1440)
    try:
        page.goto(site.url + "/")
        card = page.locator("section[aria-labelledby='card-terminal-bench-4.0.0']")
        assert card.locator("ol.home-leaders li").count() == 3
        card.get_by_text("Hardest tasks").click()
        page.wait_for_url("**/boards/terminal-bench-4.0.0/tasks/")
        page.locator("table.board-tasks tbody th a").first.click()
        page.wait_for_url("**/tasks/terminal-bench/4.0.0/**")
        assert page.locator("table.task-entries tbody tr").count() == 4
        assert messages == []
    finally:
        context.close()
