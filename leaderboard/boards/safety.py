"""The safety boards (methodology "Safety under attack"): per suite board with runs
under attack, one row per (agent, attack), from the SafetyRollup rows (never the runs)
and the suite board's own entries (the benign utility is the entry's pass rate).

The same rules as the pass-rate boards decide which groups count: the submission is
ingested, the task approved in an official suite, the (harness, task) pair not
conflict-excluded, infra errors out of n. Runs under attack are kept apart from the
benign runs at ingest (ingestion.rollups.safety_sql); nothing here decides that again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.db import connection
from django.db.models import BooleanField, QuerySet
from django.db.models.expressions import RawSQL
from psycopg import sql

from ingestion.models import Run, SafetyRollup
from ingestion.rollups.safety_sql import benign_run
from leaderboard.boards.compute import AgentName
from leaderboard.boards.sql import EXCLUDED_PAIRS
from leaderboard.methodology.safety import SafetyRow, safety_rank, safety_row

# (suite board, harness, model, attack) → counted runs, passes, breaches.
_SAFETY_GROUPS = """
    WITH {excluded_pairs}
    SELECT s.slug || '-' || s.version AS board, g.harness_id, g.model_id, g.attack,
           sum(g.counted)::bigint, sum(g.passes)::bigint, sum(g.breaches)::bigint
    FROM {safety_rollups} g
    JOIN ingestion_submission sub ON sub.id = g.submission_id AND sub.status = 'ingested'
    JOIN ingestion_task t ON t.id = g.task_id AND t.approved
    JOIN ingestion_suite s ON s.id = t.suite_id AND s.official
    LEFT JOIN excluded_pairs ep ON ep.harness_id = g.harness_id AND ep.task_id = g.task_id
    WHERE ep.harness_id IS NULL
    GROUP BY 1, 2, 3, 4
    HAVING sum(g.counted) > 0
"""

Key = tuple[str, int, int, str]


def benign_runs(runs: QuerySet[Run]) -> QuerySet[Run]:
    """Only the runs without an attack, by the rollups' own rule (ingestion.rollups.
    safety_sql): for the pages that read runs themselves (an agent's task grid, the
    compare page's trials), so they count what the boards count."""
    connection.ensure_connection()
    rule = benign_run(Run._meta.db_table).as_string(connection.connection)
    return runs.alias(benign=RawSQL(rule, [], output_field=BooleanField())).filter(benign=True)


def safety_groups_query() -> sql.Composed:
    return sql.SQL(_SAFETY_GROUPS).format(
        excluded_pairs=EXCLUDED_PAIRS,
        safety_rollups=sql.Identifier(SafetyRollup._meta.db_table),
    )


def safety_groups() -> dict[Key, tuple[int, int, int]]:
    """(board, harness, model, attack) → (counted, passes, breaches): one query."""
    with connection.cursor() as cursor:
        cursor.execute(safety_groups_query())
        return {(b, h, m, a): (n, p, x) for b, h, m, a, n, p, x in cursor.fetchall()}


def safety_entries(
    boards: dict[str, list[dict]],
    titles: Iterable[tuple[str, str]],
    names: Callable[[set[tuple[int, int]]], dict[tuple[int, int], AgentName]],
) -> list[dict]:
    """Every safety board's rows as SafetyEntry fields, in board order. `boards` are the
    suite boards' finished entries, `titles` (slug, title) of the suite boards, `names`
    the agents' names for those without a benign entry."""
    groups = safety_groups()
    if not groups:
        return []
    title_of = dict(titles)
    benign = {
        (slug, e["harness_id"], e["model_id"]): e for slug, entries in boards.items()
        for e in entries
    }  # fmt: skip
    missing = {(h, m) for b, h, m, _ in groups if (b, h, m) not in benign}
    named = names(missing) if missing else {}
    rows: list[dict] = []
    for board in sorted({key[0] for key in groups if key[0] in title_of}):
        agents: dict[tuple[str, int, int], dict] = {}
        built: list[SafetyRow] = []
        for (b, h, m, attack), (n, passes, breaches) in groups.items():
            if b != board:
                continue
            entry = benign.get((b, h, m))
            name = _name(entry, named.get((h, m)))
            label = f"{name['harness_name']} {name['harness_version']} · {name['model_name']}"
            agents[(attack, h, m)] = {"harness_id": h, "model_id": m, **name}
            built.append(safety_row(
                attack=attack, label=label, key=(h, m),
                benign=(entry["passes"], entry["n"]) if entry else (0, 0),
                attacked=(passes, breaches, n),
            ))  # fmt: skip
        for position, row in enumerate(safety_rank(built)):
            h, m = row.key
            rows.append({
                "board_slug": board, "board_title": title_of[board], "attack": row.attack,
                "position": position, "rank": row.rank, "within_budget": row.within_budget,
                **agents[(row.attack, h, m)], **_figures(row),
            })  # fmt: skip
    return rows


def _name(entry: dict | None, name: AgentName | None) -> dict:
    if entry is not None:
        return {
            "harness_name": entry["harness"],
            "harness_version": entry["harness_version"],
            "model_name": entry["model"],
        }
    assert name is not None
    return {
        "harness_name": name.harness,
        "harness_version": name.harness_version,
        "model_name": name.model,
    }


def _figures(row: SafetyRow) -> dict:
    return {
        "benign_n": row.benign.n, "benign_passes": row.benign.successes,
        "benign_utility": row.benign.value, "benign_low": row.benign.low,
        "benign_high": row.benign.high,
        "n": row.utility.n, "passes": row.utility.successes, "utility": row.utility.value,
        "utility_low": row.utility.low, "utility_high": row.utility.high,
        "breaches": row.asr.successes, "asr": row.asr.value, "asr_low": row.asr.low,
        "asr_high": row.asr.high,
    }  # fmt: skip
