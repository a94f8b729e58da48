"""Row filters rank among the rows they keep (leaderboard.boards.rerank through
selectors.board_rows), on hand-worked boards; the published rank stays as rank_all."""

from __future__ import annotations

import pytest

from leaderboard.boards.params import BoardParams
from leaderboard.boards.rerank import ranks_among
from leaderboard.boards.selectors import board_rows
from leaderboard.models import Board
from tests.leaderboard.boards.builders import agent_figures, build_snapshot

pytestmark = pytest.mark.django_db

BOARD = "/api/v1/boards/overall/"


@pytest.fixture
def board(db) -> Board:
    # Published: A 1 (self-reported, 95/100), B 2 and C 3 (Verified, 80 and 79/100),
    # E 4 (Verified, 40/100); D (99/100) is incomplete, 7/10 tasks: unranked.
    build_snapshot({
        "overall": [
            agent_figures("A", passes=95, n=100),
            agent_figures("B", passes=80, n=100, verification="verified"),
            agent_figures("C", passes=79, n=100, verification="verified"),
            agent_figures("D", passes=99, n=100, coverage_tasks=7),
            agent_figures("E", passes=40, n=100, verification="verified"),
        ]
    })  # fmt: skip
    return Board.objects.get(slug="overall")


def ranks(rows) -> dict[str, tuple]:
    return {r.harness_name: (r.rank, r.rank_all, r.rank_best, r.rank_worst) for r in rows}


def test_it_gives_the_published_ranks_back_on_the_whole_board(board):
    shown = ranks(board_rows(board, BoardParams()))
    assert {h: (rank, rank_all) for h, (rank, rank_all, *_) in shown.items()} == {
        "A": (1, 1), "B": (2, 2), "C": (3, 3), "E": (4, 4), "D": (None, None),
    }  # fmt: skip


def test_it_ranks_the_verified_rows_among_themselves_and_keeps_rank_all(board):
    shown = ranks(board_rows(board, BoardParams(verified_only=True)))
    # B [0.711, 0.867] and C [0.700, 0.859] overlap: both may be 1 or 2; E cannot.
    assert shown == {"B": (1, 2, 1, 2), "C": (2, 3, 1, 2), "E": (3, 4, 3, 3)}
    rows = board_rows(board, BoardParams(verified_only=True))
    assert [r.tied_with_leader for r in rows] == [True, True, False]


def test_it_keeps_the_populations_ranks_for_a_text_search(board):
    # A lookup finds C among the Verified rows: C's rank there, not 1.
    shown = ranks(board_rows(board, BoardParams(verified_only=True, harness="C")))
    assert shown == {"C": (2, 3, 1, 2)}


def test_it_hides_incomplete_entries_with_the_complete_filter(board):
    shown = ranks(board_rows(board, BoardParams(complete_only=True)))
    assert sorted(shown) == ["A", "B", "C", "E"]
    assert shown["A"][:2] == (1, 1)


def test_it_re_ranks_in_the_api_with_rank_all(client, board):
    rows = client.get(BOARD, {"verified": "1"}).json()["entries"]
    assert [(r["harness"], r["rank"], r["rank_all"]) for r in rows] == [
        ("B", 1, 2), ("C", 2, 3), ("E", 3, 4),
    ]  # fmt: skip
    assert rows[0]["rank_range"] == [1, 2]


def test_it_marks_ties_among_the_kept_rows():
    found = ranks_among([(1, 0.5, 0.7), (2, 0.5, 0.7), (3, 0.1, 0.2)])
    assert [(f.rank, f.shared) for f in found.values()] == [(1, True), (1, True), (3, False)]


def test_it_ranks_a_view_without_a_search_from_the_rows_it_reads(board, django_assert_num_queries):
    # The rows shown are the population then: one query, and a sort by n (another
    # order than the ranking's) ranks them as the filter alone does.
    params = BoardParams(verified_only=True, sort="-n")
    with django_assert_num_queries(1):
        sorted_rows = ranks(board_rows(board, params))
    assert sorted_rows == ranks(board_rows(board, BoardParams(verified_only=True)))
    with django_assert_num_queries(2):  # a search: its rows rank in the whole population
        board_rows(board, BoardParams(verified_only=True, harness="C"))
