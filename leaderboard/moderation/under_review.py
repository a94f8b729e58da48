"""The Under Review list: entries over the infra-error allowance, with their errors by kind."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db import connection
from django.db.models import QuerySet
from psycopg import sql

from ingestion.rollups.safety_sql import benign_run
from leaderboard.boards.catalogue import task_boards
from leaderboard.models import BoardEntry, UnderReviewEntry

# One aggregate over the runs of the listed agents: infra errors by kind, per
# (harness, model, suite, overall, coding, category, submission), rolled up per board in Python,
# on the boards the suite joins (as leaderboard.boards.totals.board_tasks does).
INFRA_ERRORS_SQL = """
    SELECT r.harness_id, r.model_id, s.slug || '-' || s.version, s.in_overall,
           c.coding AND s.in_coding, c.name,
           r.submission_id, r.infra_error, count(*)
    FROM ingestion_run r
    JOIN ingestion_submission sub ON sub.id = r.submission_id AND sub.status = 'ingested'
    JOIN ingestion_task t ON t.id = r.task_id
    JOIN ingestion_suite s ON s.id = t.suite_id
    JOIN ingestion_category c ON c.id = t.category_id
    WHERE r.outcome = 'infra_error' AND t.approved AND s.official AND {benign}
          AND (r.harness_id, r.model_id) IN (SELECT * FROM unnest(%s::bigint[], %s::bigint[]))
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
"""


def _infra_errors_query() -> sql.Composed:
    # The board's runs only: runs under attack are the safety board's.
    return sql.SQL(INFRA_ERRORS_SQL).format(benign=benign_run("r"))


@dataclass
class InfraErrors:
    by_kind: dict[str, int]
    by_submission: dict[int, int]


def under_review_queryset() -> QuerySet[UnderReviewEntry]:
    return UnderReviewEntry.objects.filter(
        board__snapshot__is_current=True, under_review=True
    ).select_related("board")


def infra_errors_attach(entries: list[BoardEntry]) -> None:
    """Set `.infra` on each entry: its board's infra-error runs by kind and by submission."""
    found = _infra_errors(sorted({(e.harness_id, e.model_id) for e in entries}))
    for entry in entries:
        errors = found.get((entry.board.slug, entry.harness_id, entry.model_id))
        entry.infra = InfraErrors(
            dict(sorted(errors.by_kind.items())) if errors else {},
            dict(sorted(errors.by_submission.items())) if errors else {},
        )


def _infra_errors(agents: list[tuple[int, int]]) -> dict[tuple[str, int, int], InfraErrors]:
    found: dict[tuple[str, int, int], InfraErrors] = defaultdict(
        lambda: InfraErrors(defaultdict(int), defaultdict(int))
    )
    if not agents:
        return found
    with connection.cursor() as cursor:
        cursor.execute(_infra_errors_query(), [[a[0] for a in agents], [a[1] for a in agents]])
        for row in cursor:
            harness_id, model_id, suite_board, overall, coding, category = row[:6]
            submission_id, kind, runs = row[6:]
            boards = task_boards(suite_board, overall=overall, coding=coding, category=category)
            for board in boards:
                errors = found[(board, harness_id, model_id)]
                errors.by_kind[kind] += runs
                errors.by_submission[submission_id] += runs
    return found
