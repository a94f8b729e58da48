"""The safety board and the time horizons in a real browser, wide and on a 390 px phone:
the triad with its intervals and chart, the Time horizon column set with its chart, the
agent page's success-against-minutes chart; no page wider than the screen, nothing in
the console."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from ingestion.services.registry import registry_load
from leaderboard.recompute.services import boards_recompute
from tests.browser.conftest import SCREENSHOTS_DIR
from tests.builders import outcomes, submit
from tests.conftest import make_user
from tests.ingestion.importers.agentdojo_builders import (
    agentdojo_suite_load,
    pipeline_folder,
    run_file,
    write_run,
)
from tests.ingestion.services.registry_builders import a_registry, a_suite, a_task

pytestmark = pytest.mark.browser

ATTACK = "important_instructions"
AGENTDOJO = {
    "harness": "AgentDojo", "harness_version": "0.1.34", "suite": "agentdojo",
    "suite_version": "v1.1.2",
}  # fmt: skip
TASKS = ("banking/user_task_0", "banking/user_task_1", "slack/user_task_0")


def safety_board(tmp_path) -> None:
    user = make_user("dojo-uploader")
    user.is_staff = True
    user.save()
    agentdojo_suite_load(TASKS)
    folder = pipeline_folder(tmp_path)
    run = run_file("slack", "user_task_0", attack=ATTACK, injection_task="injection_task_1")
    write_run(folder, {**run, "security": False}, attack=ATTACK)
    call_command("ingest", str(folder), format="agentdojo", user=user.username, **AGENTDOJO)
    call_command(
        "ingest", str(folder), format="agentdojo", attack=ATTACK, user=user.username, **AGENTDOJO
    )


def horizon_board() -> None:
    tasks = [
        a_task("short", human_minutes=2, family="parsing", authors=[]),
        a_task("mid", human_minutes=16, family="parsing", authors=[]),
        a_task("long", human_minutes=128, family="systems", authors=[]),
    ]
    registry_load(
        data=a_registry([a_suite("horizon-bench", horizon_mode="cross_domain", tasks=tasks)])
    )
    suite = {"suite": "horizon-bench", "suite_version": "1.0.0"}
    user = make_user("horizon-uploader")
    runs = (
        outcomes("pass", "pass", "fail", task="short", model="m", **suite)
        + outcomes("pass", "fail", task="mid", model="m", **suite)
        + outcomes("fail", "fail", "pass", task="long", model="m", **suite)
    )
    submit(user, runs, harness="Clockwork")


def _watch(page) -> list[str]:
    messages: list[str] = []
    page.on("console", lambda message: messages.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: messages.append(f"error: {error}"))
    return messages


@pytest.mark.parametrize("width", [1440, 390])
def test_it_shows_the_safety_triad_and_the_time_horizons(
    browser, transactional_db, live_server, tmp_path, width
):
    safety_board(tmp_path)
    horizon_board()
    boards_recompute()
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    messages = _watch(page)
    SCREENSHOTS_DIR.mkdir(parents=True, exist_ok=True)
    try:
        page.goto(live_server.url + "/boards/agentdojo-v1.1.2-safety/")
        table = page.locator("table").first
        table.wait_for()
        assert page.get_by_text("Utility under attack").first.is_visible()
        assert page.locator(".js-plotly-plot, .chart").count() >= 1
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(SCREENSHOTS_DIR / f"safety-{width}.png"), full_page=True)

        page.goto(live_server.url + "/boards/horizon-bench-1.0.0/?col=horizon")
        header = page.locator("table.board thead th", has_text="horizon").first
        header.scroll_into_view_if_needed()
        assert header.is_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(SCREENSHOTS_DIR / f"horizon-board-{width}.png"), full_page=True)

        page.locator("table.board tbody tr", has_text="Clockwork").locator(
            "th.agent a"
        ).first.click()
        page.locator("#time-horizon").wait_for()
        # Charts are drawn once they come near the screen: scroll to the holder, then wait.
        page.locator("#horizon-section [data-figure]").scroll_into_view_if_needed()
        page.locator("#horizon-section [data-figure] .main-svg").first.wait_for()
        page.screenshot(path=str(SCREENSHOTS_DIR / f"horizon-agent-{width}.png"), full_page=True)
        wide = page.evaluate(
            "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right"
            " > document.documentElement.clientWidth + 1).slice(0, 5).map(e => e.tagName + '.'"
            " + e.className + ' ' + Math.round(e.getBoundingClientRect().right))"
        )
        assert page.evaluate("document.documentElement.scrollWidth") <= width, wide
        assert messages == []
    finally:
        context.close()
