"""Writing a new snapshot's board entries: fresh ones COPYed, carried-over ones copied
inside the database.

After an ingest only the harnesses concerned are recomputed (recompute.services); every
other entry keeps its figures. What depends on the whole board (display position, rank,
rank range, Token Saving badge, coverage denominator: `BOARD_WIDE_FIELDS`) is redone for
every entry, in Python, from the few columns it needs (`CARRIED_FIELDS`); the rest of a
carried-over row, some ninety columns with the pass^k table and the horizon, never
leaves the database: one INSERT ... SELECT per board copies the old row with the new
board-wide values beside it. Reading the whole rows into Python and COPYing them back
was most of an incremental recompute.
"""

from __future__ import annotations

import json

from django.db import connection
from django.db.models import JSONField
from psycopg import sql

from ingestion.services.writers import copy_rows
from leaderboard.boards.compute import ABOUT_FIELDS, AFTER_CUTOFF_FIELDS
from leaderboard.boards.intervals import INTERVAL_FIELDS
from leaderboard.boards.run_configs import RUN_CONFIG_FIELDS
from leaderboard.models import Board, BoardEntry, BoardSnapshot

ENTRY_FIELDS = (
    "rank", "harness_version", "minimal_baseline", "runs", "n", "passes", "pass_rate",
    "wilson_low", "wilson_high", "infra_errors", "infra_error_rate", "under_review",
    "conflict_excluded", "cost_per_success", "cost_per_success_status",
    "reported_cost_per_success", "reported_cost_per_success_status", "cost_disagrees",
    "tokens_per_success",
    "pass_hat_k", "partial_score", "ttft_ms_p50", "ttft_ms_p95", "duration_s_p50",
    "duration_s_p95", "mean_steps", "mean_tool_calls", "latest_submission_at", "verification",
    "coverage_tasks", "coverage_of", "trajectory", "violations", "horizon", "intervals_pending",
    *RUN_CONFIG_FIELDS, *INTERVAL_FIELDS,
    *ABOUT_FIELDS, *AFTER_CUTOFF_FIELDS,
)  # fmt: skip
# What ranking, badges, coverage, the safety boards and the snapshot's totals read of a
# carried-over entry (leaderboard.boards.compute.finish_boards, recompute.safety).
CARRIED_FIELDS = (
    "harness_id", "model_id", "harness_version", "minimal_baseline", "runs", "n", "passes",
    "pass_rate", "wilson_low", "wilson_high", "under_review", "tokens_per_success",
    "latest_submission_at", "coverage_tasks", "intervals_pending",
)  # fmt: skip
# The columns finish_boards sets on every entry, fresh or carried over (BoardEntry
# attribute names), and where each is in an entry's figures.
BOARD_WIDE_FIELDS = {
    "position": lambda position, entry: position,
    "rank": lambda _, entry: entry["rank"],
    "rank_best": lambda _, entry: entry["rank_best"],
    "rank_worst": lambda _, entry: entry["rank_worst"],
    "tied_with_leader": lambda _, entry: entry["tied_with_leader"],
    "coverage_of": lambda _, entry: entry["coverage_of"],
    "token_saving_ratio": lambda _, entry: entry["token_saving"]["ratio"],
    "token_saving_awarded": lambda _, entry: entry["token_saving"]["awarded"],
}


def entries_carry_over(
    current: BoardSnapshot, recomputed: set[int], by_board: dict[str, list[dict]]
) -> None:
    """Add the current snapshot's entries of every harness not recomputed, with only
    CARRIED_FIELDS read and `carried_from` naming the row the rest is copied from."""
    kept = BoardEntry.objects.filter(board__snapshot=current).exclude(harness_id__in=recomputed)
    columns = ("pk", "board__slug", "harness_name", "model_name", *CARRIED_FIELDS)
    for row in kept.values(*columns):
        row["carried_from"] = row.pop("pk")
        row["harness"], row["model"] = row.pop("harness_name"), row.pop("model_name")
        by_board[row.pop("board__slug")].append(row)


def board_entries_write(board: Board, entries: list[dict]) -> None:
    """The board's entries in display order: fresh ones COPYed, carried-over ones copied
    from their old rows with the board-wide values of their new places."""
    fresh, carried = [], []
    for position, entry in enumerate(entries):
        if "carried_from" in entry:
            carried.append((position, entry))
        else:
            fresh.append(_entry_row(board, position, entry))
    _entries_copy(fresh)
    _entries_carry(board, carried)


def _entries_copy(rows: list[dict]) -> None:
    """COPY the entries (attribute name -> value): a thousand rows through bulk_create's
    model instances and parameters cost more than computing them."""
    if not rows:
        return
    fields = [f for f in BoardEntry._meta.concrete_fields if not f.primary_key]
    # Defaults once, not once a cell: a snapshot has some hundred thousand cells.
    columns = [(f.attname, f.get_default(), isinstance(f, JSONField)) for f in fields]

    def values(row: dict) -> list:
        return [
            json.dumps(row.get(name, default)) if is_json else row.get(name, default)
            for name, default, is_json in columns
        ]

    copy_rows(BoardEntry._meta.db_table, [f.column for f in fields], map(values, rows))


# The new row: the board-wide columns from arrays (one element per carried entry, in
# the order of `id`), every other column from the old row.
_CARRY_SQL = """
    INSERT INTO {table} ({board}, {wide}, {copied})
    SELECT %s, {wide_values}, {old_values}
    FROM unnest({arrays}) AS v(id, {wide})
    JOIN {table} e ON e.id = v.id
"""


def _entries_carry(board: Board, carried: list[tuple[int, dict]]) -> None:
    if not carried:
        return
    fields = {f.attname: f for f in BoardEntry._meta.concrete_fields if not f.primary_key}
    wide = list(BOARD_WIDE_FIELDS)
    copied = [f for name, f in fields.items() if name != "board_id" and name not in wide]
    arrays = [[entry["carried_from"] for _, entry in carried]] + [
        [value(position, entry) for position, entry in carried]
        for value in BOARD_WIDE_FIELDS.values()
    ]
    types = ["bigint", *(fields[name].db_type(connection) for name in wide)]
    statement = sql.SQL(_CARRY_SQL).format(
        table=sql.Identifier(BoardEntry._meta.db_table),
        board=sql.Identifier(fields["board_id"].column),
        wide=sql.SQL(", ").join(sql.Identifier(fields[name].column) for name in wide),
        copied=sql.SQL(", ").join(sql.Identifier(f.column) for f in copied),
        wide_values=sql.SQL(", ").join(sql.Identifier("v", fields[n].column) for n in wide),
        old_values=sql.SQL(", ").join(sql.Identifier("e", f.column) for f in copied),
        arrays=sql.SQL(", ").join(
            sql.SQL("%s::{}[]").format(sql.SQL(_base_type(t))) for t in types
        ),
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, [board.pk, *arrays])


def _base_type(db_type: str) -> str:
    # A CHECK on an unsigned column ("integer CHECK (...)") is the column's, not the array's.
    return db_type.split(" CHECK", 1)[0]


def _entry_row(board: Board, position: int, entry: dict) -> dict:
    return dict(
        board_id=board.pk,
        position=position,
        harness_id=entry["harness_id"],
        model_id=entry["model_id"],
        harness_name=entry["harness"],
        model_name=entry["model"],
        token_saving_ratio=entry["token_saving"]["ratio"],
        token_saving_awarded=entry["token_saving"]["awarded"],
        **{f: entry[f] for f in ENTRY_FIELDS},
    )
