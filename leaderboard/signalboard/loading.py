"""Sessions streamed out of PostgreSQL as the plain dicts the methodology scores.

Three server-side cursors (sessions, turns, tool calls, each ordered by session) are
merged here, so memory holds one fetch of each, never the whole table. The queries are
composed with psycopg.sql; the values (status, scenario, ids) are always parameters.
`load_sessions` reads every counted session (or one scenario's); `load_sessions_by_id`
the sessions leaderboard.signalboard.scoring is about to score, whatever their status.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
from django.db import connection
from psycopg import sql

from ingestion.models import Submission
from leaderboard.signalboard.conflicts import NOT_EXCLUDED

# Rows per FETCH from each server-side cursor: large enough that round trips are a
# small share of the time, small enough that memory stays flat whatever the data size.
FETCH_ROWS = 5_000

# Sessions of counted submissions only: withdrawn (and unfinished) evidence never scores.
_COUNTED = sql.SQL("""
    ingestion_session s JOIN ingestion_submission sub ON sub.id = s.submission_id
""")
# Conflict-excluded sessions (signalboard.conflicts) are not counted either.
_COUNTED_WHERE = sql.SQL("WHERE sub.status = %(status)s AND {not_excluded} {scenario}")
_ONE_SCENARIO = sql.SQL("AND s.scenario = %(scenario)s")
# The given sessions, whatever their status. Joined through unnest, whose row count the
# planner knows, so a few ids are found through the indexes and many in one scan.
_BY_ID = sql.SQL("unnest(%(ids)s::bigint[]) AS p(id) JOIN ingestion_session s ON s.id = p.id")
_SESSIONS_SQL = sql.SQL("""
    SELECT s.id, m.name, NULLIF(s.scenario, ''), NULLIF(s.confirmation, ''), s.toolset,
           NULLIF(s.user_hash, '')
    FROM {sessions}
    JOIN ingestion_languagemodel m ON m.id = s.model_id
    {where}
    ORDER BY s.id
""")
_TURNS_SQL = sql.SQL("""
    SELECT t.session_id, t.position, t.role, t.labels, t.label_source, {text}
    FROM {sessions}
    JOIN ingestion_turn t ON t.session_id = s.id
    {where}
    ORDER BY t.session_id, t.position
""")
_CALLS_SQL = sql.SQL("""
    SELECT t.session_id, t.position, c.tool, c.arguments, c.exit_code
    FROM {sessions}
    JOIN ingestion_turn t ON t.session_id = s.id
    JOIN ingestion_toolcall c ON c.turn_id = t.id
    {where}
    ORDER BY t.session_id, t.position, c.position
""")

# Turn texts scoring reads: not the users' (labelled already), the others' (claims, errors).
_NOT_USER_TEXT = sql.SQL("CASE WHEN t.role <> 'user' THEN t.text END")
# Django hands jsonb columns over as text; msgspec decodes them several times faster
# than the json module.
_decode_json = msgspec.json.decode


def load_sessions(
    *, scenario: str | None = None, with_text: bool = True
) -> Iterator[dict[str, Any]]:
    """Every session of a counted submission (of one scenario, if given), in id order,
    as leaderboard.methodology.sessions expects it.

    Every labelled user turn carries its stored label set (`labels`, empty for "none of
    them") and its `label_source`: a bundle's, a moderator's, or the extractor's
    (signalboard.labels runs before the board is computed), so nothing is labelled twice. Iterate inside a transaction for true streaming; in
    autocommit PostgreSQL materialises the (WITH HOLD) cursors before the first row.

    with_text=False leaves user turn texts in the database: scoring never reads them
    once every user turn is labelled, and they are most of the bytes. Assistant and
    tool turn texts are always loaded: capability claims and errors shown in tool
    output are read from them (methodology.capabilities, methodology.shell).
    """
    params = {"status": Submission.Status.INGESTED, "scenario": scenario}
    where = _COUNTED_WHERE.format(
        not_excluded=NOT_EXCLUDED, scenario=_ONE_SCENARIO if scenario else sql.SQL("")
    )
    for _, session in _merged(_COUNTED, where, params, with_text):
        yield session


def load_sessions_by_id(ids: list[int]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(session id, session) of the given sessions, in id order, without user turn texts.

    Scoring reads these once every user turn is labelled (signalboard.labels), so, as
    load_sessions(with_text=False), it needs no user text.
    """
    return _merged(_BY_ID, sql.SQL(""), {"ids": ids}, with_text=False)


def _merged(
    sessions_from: sql.Composable, where: sql.Composable, params: dict[str, Any], with_text: bool
) -> Iterator[tuple[int, dict[str, Any]]]:
    text = sql.SQL("t.text") if with_text else _NOT_USER_TEXT
    parts = {"sessions": sessions_from, "where": where}
    sessions = stream_rows(_SESSIONS_SQL.format(**parts), params)
    turns = _Children(stream_rows(_TURNS_SQL.format(text=text, **parts), params))
    calls = _Children(stream_rows(_CALLS_SQL.format(**parts), params))
    for session_id, model, session_scenario, confirmation, toolset, user in sessions:
        yield (
            session_id,
            {
                "model": model,
                "scenario": session_scenario,
                "confirmation": confirmation,
                "toolset": None if toolset is None else _decode_json(toolset),
                # The salted hash: it tells sessions of one user apart, for the cohorts.
                "user": user,
                "turns": _turns(turns.take(session_id), calls.take(session_id)),
            },
        )


def _turns(turn_rows: list[tuple], call_rows: list[tuple]) -> list[dict[str, Any]]:
    """One session's turns with their tool calls (rows without the session id)."""
    calls_at: dict[int, list[dict[str, Any]]] = {}
    for position, tool, arguments, exit_code in call_rows:
        call = {"tool": tool, "arguments": _decode_json(arguments), "exit_code": exit_code}
        calls_at.setdefault(position, []).append(call)
    turns = []
    for position, role, labels, source, text in turn_rows:
        turn = {"role": role, "text": text, "tool_calls": calls_at.get(position, [])}
        if source:  # else unlabelled (not a user turn, or not labelled yet)
            turn["labels"] = labels
            turn["label_source"] = source
        turns.append(turn)
    return turns


def stream_rows(query: sql.Composable, params: dict[str, Any]) -> Iterator[tuple]:
    """Rows of one query through a server-side cursor, FETCH_ROWS at a time."""
    cursor = connection.chunked_cursor()
    try:
        cursor.execute(query, params)
        while rows := cursor.fetchmany(FETCH_ROWS):
            yield from rows
    finally:
        cursor.close()


class _Children:
    """Rows of a child query ordered by session id, handed out session by session.

    Each row starts with its session id. The three queries are separate statements,
    so a child whose session the session query did not see (one committed in between)
    is skipped rather than stalling the merge.
    """

    def __init__(self, rows: Iterator[tuple]) -> None:
        self._rows = rows
        self._head: tuple | None = next(rows, None)

    def take(self, session_id: int) -> list[tuple]:
        head, rows = self._head, self._rows
        while head is not None and head[0] < session_id:
            head = next(rows, None)
        taken = []
        while head is not None and head[0] == session_id:
            taken.append(head[1:])
            head = next(rows, None)
        self._head = head
        return taken
