"""The stored session scores of every counted session, as the columns the board aggregates.

signalboard.scoring stores one SessionScore row per session; here they are joined to
their sessions (model, scenario, confirmation and counting status are read now, so a
model merge or a withdrawal needs no rescoring) and laid out exactly as
leaderboard.methodology.session_scores.collect_columns lays out summarised sessions,
keyed by (model, scenario) in session id order. signalboard.compute aggregates them
with the methodology's own model_entry, and tests pin both layouts to each other.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from psycopg import sql

from ingestion.models import Submission
from leaderboard.methodology.cohorts import user_cohort
from leaderboard.methodology.session_scores import SessionColumns
from leaderboard.methodology.sessions import session_confirmed
from leaderboard.signalboard.conflicts import EXCLUDED_PAIRS
from leaderboard.signalboard.loading import stream_rows

# Conflict-excluded sessions (signalboard.conflicts) are not counted anywhere: their
# pairs are read once (a materialised CTE of a few rows) and anti-joined.
# A user's sessions over the whole signal evidence (every counted session), counted once
# per recompute in one aggregate: their cohort is the NIR's second stratum.
# Each row carries both keys (SignalEntry.By): the model's name, and the agent version as
# the JSON text ["<harness>", "<version>"] (signalboard.agents reads it back), null for a
# session naming no agent, which the agent view leaves out. One read serves both views.
_SCORED_TEMPLATE = sql.SQL("""
    WITH excluded AS MATERIALIZED ({excluded_pairs}),
    users AS (
        SELECT s.user_hash, COUNT(*) AS sessions
        FROM ingestion_session s JOIN ingestion_submission sub ON sub.id = s.submission_id
        LEFT JOIN excluded x ON x.account_id = sub.uploader_id AND x.model_id = s.model_id
        WHERE sub.status = %(status)s AND s.user_hash <> '' AND x.account_id IS NULL
        GROUP BY s.user_hash
    )
    SELECT m.name,
           CASE WHEN h.id IS NULL THEN NULL ELSE json_build_array(h.name, h.version)::text END,
           NULLIF(s.scenario, ''), NULLIF(s.confirmation, ''), u.sessions,
           sc.praise_complaint, sc.assistant_turns, sc.effort, sc.episodes, sc.episode_score,
           sc.attempts, sc.tool_calls, sc.hallucinated, sc.shell_calls, sc.shell_successes,
           sc.claims, sc.episodes_unaided, sc.recovery_turns, sc.corrections_recovered,
           sc.corrections_open
    FROM leaderboard_sessionscore sc
    JOIN ingestion_session s ON s.id = sc.session_id
    JOIN ingestion_languagemodel m ON m.id = s.model_id
    LEFT JOIN ingestion_harness h ON h.id = s.agent_id
    JOIN ingestion_submission sub ON sub.id = s.submission_id
    LEFT JOIN users u ON u.user_hash = s.user_hash
    LEFT JOIN excluded x ON x.account_id = sub.uploader_id AND x.model_id = s.model_id
    WHERE sub.status = %(status)s AND x.account_id IS NULL
    ORDER BY s.id
""")
_SCORED_SQL = _SCORED_TEMPLATE.format(excluded_pairs=EXCLUDED_PAIRS)
# The numeric columns of SessionColumns after the model code, in field order.
_WIDTH = 16

Key = tuple[str, str | None]


def scored_views() -> dict[str, tuple[list[Key], SessionColumns]]:
    """View ("model", "agent") -> (keys, columns): every counted session's stored score,
    keyed by (model, scenario) in order of first appearance, as collect_columns would key
    the sessions themselves; the agent view keys them by (agent version, scenario) and
    leaves out the sessions that name no agent (after the query: whatever it computes over
    every counted session, such as the user cohorts, is the same in both views)."""
    views = {"model": _Columns(), "agent": _Columns()}
    rows = stream_rows(_SCORED_SQL, {"status": Submission.Status.INGESTED})
    for model_name, agent, scenario, confirmation, user_sessions, *score in rows:
        session = (scenario, user_cohort(user_sessions), _numbers(confirmation, *score), score[5])
        views["model"].add(model_name, *session)
        if agent is not None:
            views["agent"].add(agent, *session)
    return {view: columns.built() for view, columns in views.items()}


class _Columns:
    """One view's sessions, gathered row by row into SessionColumns."""

    def __init__(self) -> None:
        self.codes: dict[Key, int] = {}
        self.model: list[int] = []
        self.scenarios: list[str | None] = []
        self.cohort: list[str] = []
        self.numbers: list[tuple] = []
        self.attempts: list[list[int]] = []

    def add(
        self, name: str, scenario: str | None, cohort: str, numbers: tuple, attempts: list
    ) -> None:
        code = self.codes.setdefault((name, scenario), len(self.codes))
        if code == len(self.attempts):
            self.attempts.append([])
        self.attempts[code].extend(attempts)
        self.model.append(code)
        self.scenarios.append(scenario)
        self.cohort.append(cohort)
        self.numbers.append(numbers)

    def built(self) -> tuple[list[Key], SessionColumns]:
        table = np.array(self.numbers, dtype=float).reshape(len(self.numbers), _WIDTH)
        columns = SessionColumns(
            np.array(self.model, dtype=np.int64),
            self.scenarios,
            *(table[:, i] for i in range(_WIDTH)),
            self.attempts,
            cohort=self.cohort,
        )
        return list(self.codes), columns


def _numbers(
    confirmation: str | None,
    praise_complaint: bool | None,
    assistant_turns: int,
    effort: int,
    episodes: int,
    episode_score: float,
    attempts: list[int],
    tool_calls: int | None,
    hallucinated: int,
    shell_calls: int,
    shell_successes: int,
    claims: int,
    episodes_unaided: int,
    recovery_turns: int,
    corrections_recovered: int,
    corrections_open: int,
) -> tuple[Any, ...]:
    """One session's numeric columns, encoded as session_scores encodes a summary:
    -1 for praise vs complaint not scored and for tool calls without a toolset."""
    return (
        session_confirmed({"confirmation": confirmation}),
        -1 if praise_complaint is None else int(praise_complaint),
        assistant_turns,
        effort,
        episodes,
        episode_score,
        len(attempts),
        -1 if tool_calls is None else tool_calls,
        hallucinated,
        shell_calls,
        shell_successes,
        claims,
        episodes_unaided,
        recovery_turns,
        corrections_recovered,
        corrections_open,
    )
