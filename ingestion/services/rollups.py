"""Writing the rollups of ingestion.models.rollups.

`rollups_write` runs in the ingest transaction right after the runs' COPY;
`rollups_rebuild` replaces some (or all) submissions' rollups with a rebuild from their
runs, for the few writes that change runs after ingest (a model merge, a harness name
released to new maintainers) and for `manage.py rollups_rebuild`. Everything else that
changes what counts (withdrawals, restores, conflict decisions, registry edits) is read
by the boards at recompute time and leaves the rollups alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.db import connection, transaction
from django.db.models import Exists, OuterRef

from ingestion.models import Run, Submission
from ingestion.rollups.safety_sql import safety_rollup_insert, safety_rollups_delete
from ingestion.rollups.sql import latency_rollup_insert, rollups_delete, run_rollup_insert
from ingestion.rollups.traces_sql import trace_rollups_delete, trace_rollups_insert

# Submissions rebuilt per statement by a full rebuild (bounded memory per statement).
REBUILD_BATCH = 50
# Past this many new run rollups, the table's statistics are refreshed before the latency
# rollups are built from them: planned on stale statistics (a first ingest, a rebuild),
# the latency INSERT took one row for thousands and re-aggregated the groups once per
# group (minutes at 1,000,000 runs instead of seconds).
ANALYZE_AFTER_ROWS = 1000


def rollups_write(*, submission_ids: Sequence[int]) -> None:
    """Write the rollups of submissions whose runs have none yet."""
    params = {"submission_ids": list(submission_ids)}
    with connection.cursor() as cursor:
        cursor.execute(run_rollup_insert(), params)
        if cursor.rowcount > ANALYZE_AFTER_ROWS:
            cursor.execute("ANALYZE ingestion_runrollup")
        cursor.execute(latency_rollup_insert(), params)
        cursor.execute(safety_rollup_insert(), params)  # the runs under attack


@transaction.atomic
def rollups_rebuild(
    *,
    submission_ids: Sequence[int] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Rebuild the rollups of some submissions (all with None) from their runs, in one
    transaction; returns how many submissions were rebuilt."""
    ids = list(submission_ids) if submission_ids is not None else _all_submission_ids()
    for start in range(0, len(ids), REBUILD_BATCH):
        batch = ids[start : start + REBUILD_BATCH]
        with connection.cursor() as cursor:
            for statement in [*rollups_delete(), safety_rollups_delete(), *trace_rollups_delete()]:
                cursor.execute(statement, {"submission_ids": batch})
        rollups_write(submission_ids=batch)
        with connection.cursor() as cursor:  # the traces stay; their groups may not
            for statement in trace_rollups_insert():
                cursor.execute(statement, {"submission_ids": batch})
        if progress is not None:
            progress(min(start + REBUILD_BATCH, len(ids)), len(ids))
    return len(ids)


def _all_submission_ids() -> list[int]:
    # A full rebuild also clears rollups whose submission lost its runs somehow.
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM ingestion_latencyrollup")
        cursor.execute("DELETE FROM ingestion_runrollup")
        cursor.execute("DELETE FROM ingestion_safetyrollup")
    has_runs = Exists(Run.objects.filter(submission=OuterRef("pk")))
    return list(Submission.objects.filter(has_runs).order_by("pk").values_list("pk", flat=True))
