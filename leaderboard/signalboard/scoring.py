"""Every session scored once: its contribution to the signal boards stored.

`sessions_score_pending` runs at the start of every signal recompute, so the recompute
that follows an ingest scores that ingest's sessions, and later recomputes only
aggregate the stored rows (signalboard.compute). A session is (re)scored when
* it has no SessionScore row: new, or forgotten because something it was scored from
  changed (migration 0013's triggers on updates and deletes, signalboard.labels when
  the extractor labels one of its turns, an ingest that appended turns to it, or
  below: rows added to it since);
* its row was scored under another SCORING_VERSION.
Scoring streams the pending sessions out in one pass (three set-based queries),
summarises each with leaderboard.methodology.sessions.summarize_session, and writes the
rows with one COPY per batch. The figures are the methodology's; nothing here decides one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connection, transaction
from psycopg import sql

from leaderboard.methodology.sessions import SessionSignals, summarize_session
from leaderboard.models import SessionScore
from leaderboard.signalboard.loading import load_sessions_by_id
from leaderboard.signalboard.turn_labelling import turns_label_pending

# Bump whenever a stored value would come out differently for the same session (a rule
# of leaderboard.methodology.sessions or shell changed, or a column was added): every
# row of another version is scored again by the next recompute.
# 2: bash recovery in turns, tool output, capability claims; 3: turns to recover,
# episodes fixed before the user's next words.
SCORING_VERSION = 3
# Scored rows held before each COPY: a few MB.
SESSIONS_PER_BATCH = 2000

_TABLE = SessionScore._meta.db_table
_COLUMNS = (
    "session_id", "version", "turns_seen", "calls_seen", "praise_complaint",
    "assistant_turns", "effort", "episodes", "episode_score", "attempts", "tool_calls",
    "hallucinated", "shell_calls", "shell_successes", "claims", "episodes_unaided",
    "recovery_turns", "corrections_recovered", "corrections_open",
)  # fmt: skip

_HIGHEST_IDS_SQL = """
    SELECT (SELECT coalesce(max(id), 0) FROM ingestion_turn),
           (SELECT coalesce(max(id), 0) FROM ingestion_toolcall)
"""
_SEEN_SQL = "SELECT max(turns_seen), max(calls_seen) FROM leaderboard_sessionscore"
# Turns and tool calls above the highest ids any score has seen were added after it was
# scored: new sessions (no score yet), or an edit that added rows to a scored session.
# The ids are parameters, not subqueries, so the planner sees a short range of the
# primary key rather than guessing a third of the table.
_FORGET_GROWN_SQL = """
    DELETE FROM leaderboard_sessionscore WHERE session_id IN (
        SELECT t.session_id FROM ingestion_turn t WHERE t.id > %(turns)s
        UNION
        SELECT t.session_id FROM ingestion_toolcall c JOIN ingestion_turn t ON t.id = c.turn_id
        WHERE c.id > %(calls)s
    )
"""
_FORGET_SQL = "DELETE FROM leaderboard_sessionscore WHERE session_id = ANY(%s)"
_FORGET_OLD_VERSIONS_SQL = "DELETE FROM leaderboard_sessionscore WHERE version <> %s"
_PENDING_SQL = """
    SELECT s.id FROM ingestion_session s
    WHERE NOT EXISTS (SELECT FROM leaderboard_sessionscore sc WHERE sc.session_id = s.id)
    ORDER BY s.id
"""


@transaction.atomic
def sessions_score_pending() -> int:
    """Label the user turns still waiting, then score every session without a current
    score (whatever its submission's status, so a restore or an approval needs none);
    return how many sessions were scored."""
    turns_label_pending()
    # Read before the sessions are: a row added later has a higher id and is found next time.
    seen = _highest_ids()
    with connection.cursor() as cursor:
        _forget_grown(cursor)
        cursor.execute(_FORGET_OLD_VERSIONS_SQL, [SCORING_VERSION])
        cursor.execute(_PENDING_SQL)
        pending = [row[0] for row in cursor.fetchall()]
    if pending:
        _score(pending, seen)
    return len(pending)


def session_scores_forget(*, session_ids: Sequence[int]) -> None:
    """Forget these sessions' scores (their turns changed): the next recompute scores them."""
    if session_ids:
        with connection.cursor() as cursor:
            cursor.execute(_FORGET_SQL, [list(session_ids)])


def _highest_ids() -> tuple[int, int]:
    with connection.cursor() as cursor:
        cursor.execute(_HIGHEST_IDS_SQL)
        turns, calls = cursor.fetchone()
    return turns, calls


def _forget_grown(cursor: Any) -> None:
    cursor.execute(_SEEN_SQL)
    turns, calls = cursor.fetchone()
    if turns is not None:  # else no score yet, so nothing to forget
        cursor.execute(_FORGET_GROWN_SQL, {"turns": turns, "calls": calls})


def _score(session_ids: list[int], seen: tuple[int, int]) -> None:
    """One streamed pass over the sessions (a few found through the indexes, many in one
    scan of each table), written SESSIONS_PER_BATCH rows per COPY."""
    rows: list[tuple] = []
    for session_id, session in load_sessions_by_id(session_ids):
        rows.append(score_row(session_id, summarize_session(session), seen))
        if len(rows) == SESSIONS_PER_BATCH:
            _copy(rows)
            rows = []
    _copy(rows)


def score_row(session_id: int, s: SessionSignals, seen: tuple[int, int]) -> tuple:
    """One SessionScore row (in _COLUMNS order) from the methodology's summary."""
    calls, hallucinated = s.tool_calls if s.tool_calls is not None else (None, 0)
    return (
        session_id,
        SCORING_VERSION,
        *seen,
        s.praise_complaint,
        s.assistant_turns,
        s.effort,
        len(s.episode_attempts),
        s.episode_score_total,
        [a for a in s.episode_attempts if a is not None],
        calls,
        hallucinated,
        s.shell_calls,
        s.shell_successes,
        s.claims,
        s.episodes_unaided,
        sum(s.recoveries),
        len(s.recoveries),
        s.corrections_open,
    )


def _copy(rows: Sequence[tuple]) -> None:
    statement = sql.SQL("COPY {table} ({columns}) FROM STDIN").format(
        table=sql.Identifier(_TABLE), columns=sql.SQL(", ").join(map(sql.Identifier, _COLUMNS))
    )
    with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row(row)
