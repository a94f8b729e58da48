"""Writing the rollups of ingestion.models.rollups.

`rollups_write` runs in the ingest transaction right after the runs' COPY;
`rollups_rebuild` replaces some (or all) submissions' rollups with a rebuild from their
runs, for the few writes that change runs after ingest (a model merge, a harness name
released to new maintainers) and for `manage.py rollups_rebuild`. Everything else that
changes what counts (withdrawals, restores, conflict decisions, registry edits) is read
by the boards at recompute time and leaves the rollups alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

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


def rollups_write(*, submission_ids: Sequence[int], model_ids: Sequence[int] | None = None) -> None:
    """Write the rollups of submissions whose runs have none yet (of `model_ids` only,
    when given)."""
    by_model = model_ids is not None
    params = {"submission_ids": list(submission_ids), "model_ids": list(model_ids or ())}
    with connection.cursor() as cursor:
        with _hash_joins_only(cursor):
            cursor.execute(run_rollup_insert(by_model=by_model), params)
            written = cursor.rowcount
        if written > ANALYZE_AFTER_ROWS:
            cursor.execute("ANALYZE ingestion_runrollup")
        cursor.execute(latency_rollup_insert(by_model=by_model), params)
        cursor.execute(safety_rollup_insert(by_model=by_model), params)  # the runs under attack


@contextmanager
def _hash_joins_only(cursor) -> Iterator[None]:
    """No nested-loop joins for the statements inside, in this transaction only.

    The runs of a submission just COPYed have no statistics: the planner takes them for
    one row, and joined the per-figure CTEs of every group to each other in nested loops,
    quadratic in the groups (a first 200,000-run ingest into a fresh database: over 15
    minutes instead of seconds). The rollups' joins are all on whole group keys, where a
    hash join is right whatever the count; the previous setting comes back after.
    """
    cursor.execute("SELECT current_setting('enable_nestloop')")
    (previous,) = cursor.fetchone()
    cursor.execute("SELECT set_config('enable_nestloop', 'off', true)")
    yield
    # Not on an error: the transaction (or its savepoint) is rolled back with the setting.
    cursor.execute("SELECT set_config('enable_nestloop', %s, true)", [previous])


@transaction.atomic
def rollups_rebuild(
    *,
    submission_ids: Sequence[int] | None = None,
    model_ids: Sequence[int] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Rebuild the rollups of some submissions (all with None) from their runs, in one
    transaction, each submission once; with `model_ids`, only their groups of those
    models (the rest of each submission stays as it is). Returns how many submissions
    were rebuilt."""
    ids = sorted(set(submission_ids)) if submission_ids is not None else _all_submission_ids()
    by_model = model_ids is not None
    deletes = [
        *rollups_delete(by_model=by_model), safety_rollups_delete(by_model=by_model),
        *trace_rollups_delete(by_model=by_model),
    ]  # fmt: skip
    for start in range(0, len(ids), REBUILD_BATCH):
        batch = ids[start : start + REBUILD_BATCH]
        params = {"submission_ids": batch, "model_ids": list(model_ids or ())}
        with connection.cursor() as cursor:
            for statement in deletes:
                cursor.execute(statement, params)
        rollups_write(submission_ids=batch, model_ids=model_ids)
        with connection.cursor() as cursor:  # the traces stay; their groups may not
            for statement in trace_rollups_insert(by_model=by_model):
                cursor.execute(statement, params)
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
