"""The category boards as a visitor and an API client meet them: tabs, the page saying
what it pools, its downloads, and a category whose name ends like a safety board's."""

from __future__ import annotations

import csv
import io

import pytest

from ingestion.services.registry import registry_load
from leaderboard.recompute.services import boards_recompute
from tests.builders import outcomes, run_line, submit
from tests.ingestion.services.registry_builders import a_registry, a_suite, a_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def boards(registry, staff):
    submit(staff, outcomes("pass", "fail", "pass"), harness="Quill")  # regex-log: terminal
    return boards_recompute()


def test_a_category_board_has_its_tab_its_page_and_its_downloads(client, boards):
    html = client.get("/boards/category-terminal/").content.decode()
    assert "<h1>Terminal tasks</h1>" in html
    assert "Overall's tasks of the category <code>terminal</code>" in html
    assert 'href="/boards/category-terminal/tasks/"' in html
    overall = client.get("/boards/overall/").content.decode()
    assert 'href="/boards/category-terminal/"' in overall  # a tab beside the others
    rows = list(
        csv.DictReader(
            io.StringIO(client.get("/boards/category-terminal/export.csv").content.decode())
        )
    )
    assert [row["harness"] for row in rows] == ["Quill"]
    listed = {b["slug"] for b in client.get("/api/v1/boards/").json()}
    assert "category-terminal" in listed
    entries = client.get("/api/v1/boards/category-terminal/").json()["entries"]
    assert [(e["n"], e["passes"]) for e in entries] == [(3, 2)]


def test_a_category_named_like_a_safety_board_keeps_its_board(client, registry, staff):
    suite = a_suite(tasks=[a_task("guard-it", category="safety")])
    registry_load(data=a_registry([suite]))
    runs = [run_line(**{**r, "suite": "solo-bench", "suite_version": "1.0.0", "task_id": "guard-it"})
            for r in outcomes("pass", "fail")]  # fmt: skip
    submit(staff, runs, harness="Warden")
    boards_recompute()
    response = client.get("/boards/category-safety/")
    assert response.status_code == 200
    assert "<h1>Safety tasks</h1>" in response.content.decode()
