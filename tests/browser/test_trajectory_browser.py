"""Trajectory figures and rule violations in a real browser, wide and on a 390 px phone:
the board's Trajectory column set behind its scroll region, the agent page's figures and
rules, the run page's calls against the reference with the offending call marked; the
page no wider than the screen, and nothing in the console."""

from __future__ import annotations

import pytest

from ingestion.models import Run
from ingestion.services.registry import registry_load
from leaderboard.recompute.services import boards_recompute
from tests.browser.conftest import SCREENSHOTS_DIR
from tests.builders import run_line, submit
from tests.conftest import make_user

pytestmark = pytest.mark.browser

SUITE = {
    "slug": "desk", "version": "1.0", "name": "Help desk", "official": True, "joins": [],
    "trajectory": {"write_tools": ["refund"], "ignored_tools": ["think"]},
    "rules": [{"id": "lookup-first", "title": "Look the order up before a refund.",
               "kind": "required_before", "tool": "lookup", "before": ["refund"]}],
    "tasks": [{"task_id": "refund-1", "category": "support", "reference_calls": [
        {"tool": "lookup", "arguments": {"order": "A1"}},
        {"tool": "refund", "arguments": {"order": "A1", "amount": 20}},
    ]}],
}  # fmt: skip


def _turns(*calls: tuple[str, dict]) -> list[dict]:
    turns: list[dict] = [{"role": "user", "text": "Refund order A1 <b>please</b>"}]
    for tool, arguments in calls:
        turns.append(
            {
                "role": "assistant",
                "text": None,
                "tool_calls": [{"tool": tool, "arguments": arguments, "exit_code": None}],
            }
        )
        turns.append({"role": "tool", "text": "ok"})
    return turns  # fmt: skip


def trajectory_board() -> int:
    registry_load(data={"format": "arena-registry/1", "suites": [SUITE]})
    user = make_user("desk-submitter")
    good = _turns(("lookup", {"order": "A1"}), ("refund", {"order": "A1", "amount": 20}))
    hasty = _turns(
        ("refund", {"order": "A1", "amount": 25}), ("think", {"t": "<script>x</script>"})
    )
    runs = [
        run_line(f"r-{i}", suite="desk", suite_version="1.0", task_id="refund-1", trial=i + 1,
                 outcome="pass" if i % 2 == 0 else "fail",
                 trajectory=good if i % 2 == 0 else hasty)
        for i in range(4)
    ]  # fmt: skip
    submit(user, runs, harness="DeskBot")
    boards_recompute()
    return Run.objects.get(run_id="r-1").pk


@pytest.mark.parametrize("width", [1440, 390])
def test_it_shows_trajectory_figures_rules_and_the_aligned_calls(
    browser, transactional_db, live_server, width
):
    hasty_run = trajectory_board()
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    messages: list[str] = []
    page.on("console", lambda message: messages.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: messages.append(f"error: {error}"))
    SCREENSHOTS_DIR.mkdir(parents=True, exist_ok=True)
    try:
        page.goto(live_server.url + "/boards/desk-1.0/?col=trajectory")
        header = page.locator("table.board thead th", has_text="Rule violations")
        header.scroll_into_view_if_needed()
        assert header.is_visible()
        row = page.locator("table.board tbody tr", has_text="DeskBot")
        assert row.locator(".violations-some").inner_text() == "2"
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(SCREENSHOTS_DIR / f"trajectory-board-{width}.png"), full_page=True)

        row.locator("th.agent a").first.click()
        page.locator("#trajectory").wait_for()
        rule = page.locator(".rule-breaks li", has_text="lookup-first")
        assert rule.locator("strong").inner_text() == "2"
        assert page.locator("table.trajectory-figures tbody tr").count() >= 10
        assert page.evaluate("document.documentElement.scrollWidth") <= width

        page.goto(f"{live_server.url}/runs/{hasty_run}/")
        assert page.locator("#call-0 .chip-warn", has_text="breaks lookup-first").is_visible()
        statuses = page.locator("table.alignment .chip").all_inner_texts()
        assert statuses == ["missing", "arguments differ", "ignored tool"]
        assert page.locator("script", has_text="x</script>").count() == 0
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(SCREENSHOTS_DIR / f"trajectory-run-{width}.png"), full_page=True)
        assert messages == []
    finally:
        context.close()
