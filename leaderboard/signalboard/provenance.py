"""Who each model's signal figures rest on: accounts, shares and conflict-excluded sessions.

One aggregate query over the stored session scores, grouped by (model, uploading
account, conflict-excluded or not, scenario, user's session count): its cost grows with
those groups, never with sessions. The groups feed leaderboard.methodology.provenance,
whose figures are added to each model's composite row (`data["provenance"]`), and the
per-account rows are written as SignalUploader rows of the snapshot (moderators only).

The counted sessions here are exactly those signalboard.scored aggregates (the same
status, the same conflict rule, the same user cohorts), so a model's provenance adds up
to its row's sessions, and its NIR from these counts equals the row's own.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from psycopg import sql

from ingestion.models import Submission
from leaderboard.methodology.cohorts import user_cohort
from leaderboard.methodology.provenance import AccountGroup, model_provenance
from leaderboard.signalboard.conflicts import EXCLUDED_PAIRS
from leaderboard.signalboard.loading import stream_rows

_GROUPS_SQL = sql.SQL("""
    WITH excluded AS MATERIALIZED ({excluded_pairs}),
    scored AS (
        SELECT s.model_id, s.user_hash, s.scenario, s.confirmation, sub.uploader_id,
               x.account_id IS NOT NULL AS excluded
        FROM leaderboard_sessionscore sc
        JOIN ingestion_session s ON s.id = sc.session_id
        JOIN ingestion_submission sub ON sub.id = s.submission_id
        LEFT JOIN excluded x ON x.account_id = sub.uploader_id AND x.model_id = s.model_id
        WHERE sub.status = %(status)s
    ),
    users AS (
        SELECT user_hash, COUNT(*) AS sessions FROM scored
        WHERE user_hash <> '' AND NOT excluded
        GROUP BY user_hash
    )
    SELECT m.name, g.uploader_id, a.{username}, g.excluded, g.scenario, g.user_sessions,
           g.sessions, g.confirmed
    FROM (
        SELECT sc.model_id, sc.uploader_id, sc.excluded, NULLIF(sc.scenario, '') AS scenario,
               u.sessions AS user_sessions, COUNT(*) AS sessions,
               COUNT(*) FILTER (WHERE sc.confirmation = 'yes') AS confirmed
        FROM scored sc LEFT JOIN users u ON u.user_hash = sc.user_hash
        GROUP BY 1, 2, 3, 4, 5
    ) g
    JOIN ingestion_languagemodel m ON m.id = g.model_id
    JOIN {accounts} a ON a.id = g.uploader_id
    ORDER BY m.name, g.uploader_id
""")


@dataclass
class UploaderRow:
    """One account's sessions of one model (a SignalUploader row without its snapshot)."""

    model_name: str
    account_id: int
    account_name: str
    sessions: int = 0
    confirmed: int = 0
    conflict_excluded: int = 0


@dataclass
class SignalProvenance:
    """Model -> its `provenance` figures, and every (model, account) row."""

    by_model: dict[str, dict[str, Any]] = field(default_factory=dict)
    uploaders: list[UploaderRow] = field(default_factory=list)


def signal_provenance() -> SignalProvenance:
    """Every model's provenance from the counted sessions' groups (one query)."""
    users = get_user_model()._meta
    query = _GROUPS_SQL.format(
        excluded_pairs=EXCLUDED_PAIRS,
        accounts=sql.Identifier(users.db_table),
        username=sql.Identifier(users.get_field(get_user_model().USERNAME_FIELD).column),
    )
    groups: list[AccountGroup] = []
    rows: dict[tuple[str, int], UploaderRow] = {}
    excluded: dict[str, int] = defaultdict(int)
    for (
        model,
        account,
        name,
        is_excluded,
        scenario,
        user_sessions,
        sessions,
        confirmed,
    ) in stream_rows(query, {"status": Submission.Status.INGESTED}):
        row = rows.setdefault((model, account), UploaderRow(model, account, name))
        if is_excluded:
            row.conflict_excluded += sessions
            excluded[model] += sessions
            continue
        row.sessions += sessions
        row.confirmed += confirmed
        stratum = (scenario, user_cohort(user_sessions))
        groups.append(AccountGroup(model, account, stratum, sessions, confirmed))
    by_model = model_provenance(groups)
    for model, figures in by_model.items():
        figures["conflict_excluded"] = excluded.get(model, 0)
    # Models whose every session is conflict-excluded have no row; their count is kept.
    only_excluded = {
        model: {"conflict_excluded": count}
        for model, count in excluded.items()
        if model not in by_model
    }
    return SignalProvenance({**by_model, **only_excluded}, list(rows.values()))
