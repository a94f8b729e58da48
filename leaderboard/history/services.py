"""Writing the history of a new snapshot, in the recompute's transaction.

`history_record` compares the new snapshot's entries with the latest history row of
each (board, harness, model) in one statement, inserting a row only where a published
figure changed, an entry appeared or one left a board. Its cost grows with the entries
of one snapshot, never with runs or with the number of recomputes so far.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection, transaction
from psycopg import sql

from ingestion.evidence import EvidenceCause
from leaderboard.models import BoardSnapshot, SignalEntry, SnapshotCause
from leaderboard.models.history import TRACKED_FIELDS
from leaderboard.presentation.signals import SIGNAL_LABELS

# The model view's composite slice (leaderboard.signalboard.slices.COMPOSITE_SCOPE; the
# history sits below the signal board room and names it here).
COMPOSITE_SCOPE = "all"

# Columns copied from a board entry into its history row (the rank range untracked).
_COPIED = (
    "harness_name",
    "harness_version",
    "model_name",
    *TRACKED_FIELDS,
    "rank_best",
    "rank_worst",
)
# What a removal row holds in the figures' place (the figures before it are its
# `previous` row's).
_REMOVED_VALUES = {
    "rank": "NULL", "n": "0", "passes": "0", "pass_rate": "NULL", "wilson_low": "NULL",
    "wilson_high": "NULL", "under_review": "false", "verification": "''",
    "conflict_excluded": "0", "infra_errors": "0", "rank_best": "NULL", "rank_worst": "NULL",
}  # fmt: skip


def _history_sql() -> str:
    # Built once from constant column names (no user input): one statement that
    # selects the changed keys, inserts their rows and retires the rows they follow.
    tracked_f = ", ".join(f"f.{c}" for c in TRACKED_FIELDS)
    tracked_l = ", ".join(f"l.{c}" for c in TRACKED_FIELDS)
    copied = ", ".join(_COPIED)
    removed = ", ".join(
        f"l.{c}" if c not in _REMOVED_VALUES else f"{_REMOVED_VALUES[c]}" for c in _COPIED
    )
    return f"""
    WITH fresh AS (
        SELECT b.slug AS board_slug, e.harness_id, e.model_id,
               {", ".join(f"e.{c}" for c in _COPIED)}
        FROM leaderboard_boardentry e JOIN leaderboard_board b ON b.id = e.board_id
        WHERE b.snapshot_id = %(snapshot)s
    ),
    latest AS (
        SELECT * FROM leaderboard_entryhistory WHERE is_latest
    ),
    changed AS (
        SELECT f.board_slug, f.harness_id, f.model_id,
               {", ".join(f"f.{c}" for c in _COPIED)}, l.id AS previous_id, false AS removed
        FROM fresh f LEFT JOIN latest l
          ON l.board_slug = f.board_slug AND l.harness_id = f.harness_id
         AND l.model_id = f.model_id
        WHERE l.id IS NULL OR l.removed OR ({tracked_f}) IS DISTINCT FROM ({tracked_l})
        UNION ALL
        SELECT l.board_slug, l.harness_id, l.model_id, {removed}, l.id, true
        FROM latest l
        WHERE NOT l.removed AND NOT EXISTS (
            SELECT 1 FROM fresh f WHERE f.board_slug = l.board_slug
              AND f.harness_id = l.harness_id AND f.model_id = l.model_id
        )
    ),
    inserted AS (
        INSERT INTO leaderboard_entryhistory (
            board_slug, harness_id, model_id, {copied}, previous_id, removed,
            snapshot_id, valid_from, is_latest
        )
        SELECT board_slug, harness_id, model_id, {copied}, previous_id, removed,
               %(snapshot)s, %(valid_from)s, true
        FROM changed
        RETURNING previous_id
    )
    UPDATE leaderboard_entryhistory SET is_latest = false
    WHERE id IN (SELECT previous_id FROM inserted WHERE previous_id IS NOT NULL)
    """


HISTORY_SQL = _history_sql()


@transaction.atomic
def history_record(*, snapshot: BoardSnapshot) -> None:
    """Write the history rows of `snapshot`'s entries that differ from the latest
    recorded ones (one statement), in the transaction that makes it current."""
    with connection.cursor() as cursor:
        cursor.execute(HISTORY_SQL, {"snapshot": snapshot.pk, "valid_from": snapshot.computed_at})


@transaction.atomic
def snapshot_causes_record(*, snapshot: BoardSnapshot, causes: Iterable[EvidenceCause]) -> None:
    """Keep why `snapshot` was computed: the causes of the outbox requests it covers."""
    SnapshotCause.objects.bulk_create(
        SnapshotCause(snapshot_id=snapshot.pk, kind=c.kind, record_id=c.record_id, label=c.label)
        for c in causes
    )


# The figures a signal history row keeps: the NIR and every signal the board shows, in
# the order a change lists them.
NIR = "net_improvement"
SIGNAL_FIGURES = (NIR, *(figure for figure in SIGNAL_LABELS if figure != NIR))


def _signal_history_sql() -> sql.Composed:
    # One statement, as HISTORY_SQL: the model view's composite rows of the snapshot,
    # their published figures cut down to value and interval, against the latest row
    # of each model. Figure names are constants (no user input), quoted as literals.
    figure = sql.SQL(
        "{name}, jsonb_build_object('value', e.data->{name}->'value', "
        "'low', e.data->{name}->'low', 'high', e.data->{name}->'high')"
    )
    figures = sql.SQL(", ").join(figure.format(name=sql.Literal(f)) for f in SIGNAL_FIGURES)
    return sql.SQL(
        """
    WITH fresh AS (
        SELECT e.model_name, e.rank, e.sessions, e.greyed,
               jsonb_build_object({figures}) AS figures
        FROM leaderboard_signalentry e
        WHERE e.snapshot_id = %(snapshot)s AND e.by = %(by)s AND e.scope = %(scope)s
    ),
    latest AS (
        SELECT * FROM leaderboard_signalhistory WHERE is_latest
    ),
    changed AS (
        SELECT f.model_name, f.rank, f.sessions, f.greyed, f.figures,
               l.id AS previous_id, false AS removed
        FROM fresh f LEFT JOIN latest l ON l.model_name = f.model_name
        WHERE l.id IS NULL OR l.removed
           OR (f.rank, f.sessions, f.greyed, f.figures)
              IS DISTINCT FROM (l.rank, l.sessions, l.greyed, l.figures)
        UNION ALL
        SELECT l.model_name, NULL, 0, false, '{{}}'::jsonb, l.id, true
        FROM latest l
        WHERE NOT l.removed
          AND NOT EXISTS (SELECT 1 FROM fresh f WHERE f.model_name = l.model_name)
    ),
    inserted AS (
        INSERT INTO leaderboard_signalhistory (
            model_name, rank, sessions, greyed, figures, previous_id, removed,
            snapshot_id, valid_from, is_latest
        )
        SELECT model_name, rank, sessions, greyed, figures, previous_id, removed,
               %(snapshot)s, %(valid_from)s, true
        FROM changed
        RETURNING previous_id
    )
    UPDATE leaderboard_signalhistory SET is_latest = false
    WHERE id IN (SELECT previous_id FROM inserted WHERE previous_id IS NOT NULL)
    """
    ).format(figures=figures)


SIGNAL_HISTORY_SQL = _signal_history_sql()


@transaction.atomic
def signal_history_record(*, snapshot: BoardSnapshot) -> None:
    """Write the signal history rows of `snapshot`'s model view that differ from the
    latest recorded ones (one statement), in the transaction that makes it current."""
    with connection.cursor() as cursor:
        cursor.execute(
            SIGNAL_HISTORY_SQL.as_string(connection.connection),
            {
                "snapshot": snapshot.pk,
                "valid_from": snapshot.computed_at,
                "by": SignalEntry.By.MODEL,
                "scope": COMPOSITE_SCOPE,
            },
        )
