"""Latency percentiles (p50, p95 of TTFT and duration) of every entry, from rollups.

Each LatencyRollup row is added to the boards its (suite, category) belongs to; then the
groups a board must not count (a conflict-excluded pair, a task no longer approved) are
taken out, and those of a task the registry moved since ingest are moved to its boards
now. Histograms add and subtract exactly, so the result is the histogram of exactly the
runs a board counts (ingestion.rollups.sketch: exact while small, else within 1%).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection

from ingestion.rollups.sketch import LatencyTotals
from leaderboard.boards.catalogue import task_boards
from leaderboard.boards.sql import (
    CATEGORIES_SQL,
    OFFICIAL_SUITES_SQL,
    binary_rows,
    latencies_query,
    latency_corrections_query,
)

QUANTILES = (0.5, 0.95)
# Columns per figure in a latency row: n, bucket keys, counts, values (rollups.sql).
_PER_FIGURE = 4
_FIGURES = 2  # TTFT, then duration
_LATENCY_WIDTH = _PER_FIGURE * _FIGURES

AgentKey = tuple[str, int, int]  # (board slug, harness id, model id)
Percentiles = tuple[float | None, float | None, float | None, float | None]


@dataclass(frozen=True)
class BoardMap:
    """Which boards the tasks of a (suite, category) count on, as the registry says now."""

    suites: dict[int, tuple[str, bool, bool]]  # official suite -> (board, overall, coding)
    categories: dict[int, tuple[str, bool]]  # category -> (name, coding)

    def boards(self, suite_id: int, category_id: int) -> list[str]:
        if suite_id not in self.suites:
            return []
        board, overall, coding = self.suites[suite_id]
        category, coding_category = self.categories[category_id]
        return task_boards(
            board, overall=overall, coding=coding and coding_category, category=category
        )


def board_map() -> BoardMap:
    with connection.cursor() as cursor:
        cursor.execute(OFFICIAL_SUITES_SQL)
        suites = {row[0]: tuple(row[1:]) for row in cursor.fetchall()}
        cursor.execute(CATEGORIES_SQL)
        categories = {row[0]: (row[1], row[2]) for row in cursor.fetchall()}
    return BoardMap(suites, categories)


class _Latencies:
    """TTFT and duration totals of every (board, harness, model)."""

    def __init__(self) -> None:
        self.figures = (LatencyTotals(), LatencyTotals())

    def add(self, boards: Iterable[str], agent: tuple[int, int], latency, *, sign: int) -> None:
        for board in boards:
            for figure, start in zip(self.figures, (0, _PER_FIGURE), strict=True):
                n, keys, counts, values = latency[start : start + _PER_FIGURE]
                figure.add((board, *agent), n=n, keys=keys, counts=counts, values=values, sign=sign)

    def percentiles(self) -> dict[AgentKey, Percentiles]:
        ttft, duration = (figure.percentiles(QUANTILES) for figure in self.figures)
        none = tuple(None for _ in QUANTILES)
        return {
            key: (*ttft.get(key, none), *duration.get(key, none))
            for key in ttft.keys() | duration.keys()
        }


def latency_percentiles(*, harness_ids: list[int] | None = None) -> dict[AgentKey, Percentiles]:
    """(board, harness, model) -> (TTFT p50, p95, duration p50, p95), None where no run
    has the figure; optionally only for some harnesses."""
    boards = board_map()
    restricted = harness_ids is not None
    params = [harness_ids] if restricted else []
    totals = _Latencies()
    for harness_id, model_id, suite_id, category_id, *latency in binary_rows(
        latencies_query(restricted=restricted), params, int_arrays=True
    ):
        totals.add(boards.boards(suite_id, category_id), (harness_id, model_id), latency, sign=1)
    rows = binary_rows(latency_corrections_query(restricted=restricted), params, int_arrays=True)
    for row in rows:
        _correct(totals, boards, row)
    return totals.percentiles()


def _correct(totals: _Latencies, boards: BoardMap, row: tuple) -> None:
    harness_id, model_id, suite_id, category_id = row[:4]
    latency = row[4 : 4 + _LATENCY_WIDTH]
    suite_now, category_now, counted_now = row[4 + _LATENCY_WIDTH :]
    agent = (harness_id, model_id)
    totals.add(boards.boards(suite_id, category_id), agent, latency, sign=-1)
    if counted_now:
        totals.add(boards.boards(suite_now, category_now), agent, latency, sign=1)
