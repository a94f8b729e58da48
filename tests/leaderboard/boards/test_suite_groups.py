"""A suite can be official with a board of its own without joining Overall or Coding."""

from __future__ import annotations

import pytest

from ingestion.services.registry import registry_load
from leaderboard.models import BoardEntry
from leaderboard.moderation.under_review import infra_errors_attach
from leaderboard.recompute.services import boards_recompute
from tests.builders import outcomes, run_line, submit
from tests.ingestion.services.registry_builders import a_registry, a_suite, a_task

pytestmark = pytest.mark.django_db

SOLO_BOARD = "solo-bench-1.0.0"


def solo_runs(*results: str, prefix: str = "solo") -> list[dict]:
    """Runs on the coding task of the solo suite (category bugfix, a coding category)."""
    return [
        run_line(**{**run, "suite": "solo-bench", "suite_version": "1.0.0", "task_id": "solve-it"})
        for run in outcomes(*results, prefix=prefix)
    ]


def boards_of(harness: str) -> set[str]:
    snapshot = boards_recompute()
    entries = BoardEntry.objects.filter(board__snapshot=snapshot, harness_name=harness)
    return set(entries.values_list("board__slug", flat=True))


@pytest.fixture
def solo_suite(registry):
    def load(joins: list[str] | None) -> None:
        suite = a_suite(tasks=[a_task("solve-it")])
        registry_load(data=a_registry([suite if joins is None else {**suite, "joins": joins}]))

    return load


@pytest.mark.parametrize(
    ("joins", "boards"),
    [
        (None, {"overall", "coding", SOLO_BOARD, "category-bugfix"}),
        ([], {SOLO_BOARD}),
        (["overall"], {"overall", SOLO_BOARD, "category-bugfix"}),
        (["coding"], {"coding", SOLO_BOARD}),
    ],
)
def test_a_suites_runs_count_on_the_boards_it_joins(solo_suite, staff, joins, boards):
    solo_suite(joins)
    submit(staff, solo_runs("pass", "fail"), harness="Solo")
    assert boards_of("Solo") == boards


def test_a_suite_of_its_own_leaves_the_overall_figures_of_an_agent_alone(solo_suite, staff):
    solo_suite([])
    submit(staff, outcomes("pass", "fail") + solo_runs("pass", "pass", "pass"), harness="Both")
    snapshot = boards_recompute()
    entries = BoardEntry.objects.filter(board__snapshot=snapshot, harness_name="Both")
    figures = {e.board.slug: (e.n, e.passes, e.ttft_ms_p50 is not None) for e in entries}
    assert figures["overall"] == (2, 1, True)
    assert figures[SOLO_BOARD] == (3, 3, True)
    assert "terminal-bench-4.0.0" in figures and "coding" in figures


def test_infra_errors_of_a_suite_of_its_own_are_listed_on_its_board_only(solo_suite, staff):
    solo_suite([])
    runs = outcomes("pass", "pass", "pass", "pass") + solo_runs("timeout", "timeout", "pass")
    submit(staff, runs, harness="Flaky")
    snapshot = boards_recompute()
    entries = list(BoardEntry.objects.filter(board__snapshot=snapshot, harness_name="Flaky"))
    infra_errors_attach(entries)
    by_board = {e.board.slug: e.infra.by_kind for e in entries}
    assert by_board[SOLO_BOARD] == {"timeout": 2}
    assert by_board["overall"] == {}


def test_the_suite_board_says_which_groups_it_joins(solo_suite, staff, client):
    solo_suite([])
    submit(staff, solo_runs("pass"), harness="Solo")
    boards_recompute()
    page = client.get(f"/boards/{SOLO_BOARD}/").content.decode()
    assert "Joins neither Overall nor Coding: a board of its own" in page
    page = client.get("/boards/terminal-bench-4.0.0/").content.decode()
    assert "Joins Overall and Coding" in page
