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
from leaderboard.signalboard.loading import stream_rows

# A user's sessions over the whole signal evidence (every counted session), counted once
# per recompute in one aggregate: their cohort is the NIR's second stratum (issue 13).
_SCORED_SQL = sql.SQL("""
    WITH users AS (
        SELECT s.user_hash, COUNT(*) AS sessions
        FROM ingestion_session s JOIN ingestion_submission sub ON sub.id = s.submission_id
        WHERE sub.status = %(status)s AND s.user_hash <> ''
        GROUP BY s.user_hash
    )
    SELECT {key}, NULLIF(s.scenario, ''), NULLIF(s.confirmation, ''), u.sessions,
           sc.praise_complaint, sc.assistant_turns, sc.effort, sc.episodes, sc.episode_score,
           sc.attempts, sc.tool_calls, sc.hallucinated, sc.shell_calls, sc.shell_successes,
           sc.claims
    FROM leaderboard_sessionscore sc
    JOIN ingestion_session s ON s.id = sc.session_id
    JOIN ingestion_languagemodel m ON m.id = s.model_id
    LEFT JOIN ingestion_harness h ON h.id = s.agent_id
    JOIN ingestion_submission sub ON sub.id = s.submission_id
    LEFT JOIN users u ON u.user_hash = s.user_hash
    WHERE sub.status = %(status)s
    ORDER BY s.id
""")
# What a row is keyed by (SignalEntry.By): the model's name, or the agent version as
# the JSON text ["<harness>", "<version>"] (signalboard.agents reads it back); null for
# a session naming no agent, which the agent view leaves out.
_KEYS = {
    "model": sql.SQL("m.name"),
    "agent": sql.SQL(
        "CASE WHEN h.id IS NULL THEN NULL ELSE json_build_array(h.name, h.version)::text END"
    ),
}
# The numeric columns of SessionColumns after the model code, in field order.
_WIDTH = 12

Key = tuple[str, str | None]


def scored_columns(by: str = "model") -> tuple[list[Key], SessionColumns]:
    """(keys, columns): every counted session's stored score, keyed by (model, scenario)
    in order of first appearance, as collect_columns would key the sessions themselves.

    `by="agent"` keys them by (agent version, scenario) instead, leaving out the
    sessions that name no agent (after the query: whatever it computes over every
    counted session stays the same in both views)."""
    codes: dict[Key, int] = {}
    model: list[int] = []
    scenarios: list[str | None] = []
    cohort: list[str] = []
    numbers: list[tuple] = []
    attempts: list[list[int]] = []
    rows = stream_rows(_SCORED_SQL.format(key=_KEYS[by]), {"status": Submission.Status.INGESTED})
    for name, scenario, confirmation, user_sessions, *score in rows:
        if name is None:  # no agent named: not on the agent view
            continue
        code = codes.setdefault((name, scenario), len(codes))
        if code == len(attempts):
            attempts.append([])
        attempts[code].extend(score[5])
        model.append(code)
        scenarios.append(scenario)
        cohort.append(user_cohort(user_sessions))
        numbers.append(_numbers(confirmation, *score))
    table = np.array(numbers, dtype=float).reshape(len(numbers), _WIDTH)
    columns = SessionColumns(
        np.array(model, dtype=np.int64),
        scenarios,
        *(table[:, i] for i in range(_WIDTH)),
        attempts,
        cohort=cohort,
    )
    return list(codes), columns


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
    )
