"""The signal boards, read from PostgreSQL and written into a board snapshot.

load_sessions streams every counted session out of the database as the plain dicts
leaderboard.signals scores. signal_rows turns them into SignalEntry rows: the composite
board, one slice per scenario and one per capability signal (the three-way cross view
of methodology §3.1–3.2), each ranked by the lower end of its NIR interval. The page
and the API read those rows back through the selectors at the end of this module.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import msgspec
import numpy as np
from django.db import connection, transaction

from ingestion.models import Scenario, Submission
from leaderboard import nir
from leaderboard.models import BoardSnapshot, SignalEntry
from leaderboard.signals import score_sessions, summarize_session
from leaderboard.stats import MIN_RANKED_SESSIONS, competition_ranks

SliceKind = SignalEntry.SliceKind

COMPOSITE_SCOPE = "all"
SCENARIOS: tuple[str, ...] = tuple(Scenario.values)
CAPABILITY_PREFIX = "capability:"
# The capability signals of the cross view, keyed as SessionSignals.capability_outcomes
# names them; confirmed success is the headline outcome, so its slice repeats the
# composite NIR beside the others for comparison.
CAPABILITIES: tuple[str, ...] = (
    "confirmed_success",
    "praise_complaint",
    "steerability",
    "bash_recovery",
    "tool_validity",
)
# The signal columns of a SignalEntry, in display order (api.md).
SIGNALS: tuple[str, ...] = (
    "confirmed_success",
    "praise_complaint",
    "steerability",
    "bash_recovery",
    "tool_hallucination",
)

# Rows per FETCH from each server-side cursor: large enough that round trips are a
# small share of the time, small enough that memory stays flat whatever the data size.
FETCH_ROWS = 5_000


# --- reading sessions --------------------------------------------------------------------

# Sessions of counted submissions only: withdrawn (and unfinished) evidence never scores.
_COUNTED = """
    JOIN ingestion_submission sub ON sub.id = s.submission_id
    WHERE sub.status = %(status)s {scenario}
"""
_SESSIONS_SQL = """
    SELECT s.id, m.name, NULLIF(s.scenario, ''), NULLIF(s.confirmation, ''), s.toolset
    FROM ingestion_session s
    JOIN ingestion_languagemodel m ON m.id = s.model_id
    {counted}
    ORDER BY s.id
"""
_TURNS_SQL = """
    SELECT t.session_id, t.position, t.role, NULLIF(t.label, ''), {text}
    FROM ingestion_turn t
    JOIN ingestion_session s ON s.id = t.session_id
    {counted}
    ORDER BY t.session_id, t.position
"""
_CALLS_SQL = """
    SELECT t.session_id, t.position, c.tool, c.arguments, c.exit_code
    FROM ingestion_toolcall c
    JOIN ingestion_turn t ON t.id = c.turn_id
    JOIN ingestion_session s ON s.id = t.session_id
    {counted}
    ORDER BY t.session_id, t.position, c.position
"""

# Django hands jsonb columns over as text; msgspec decodes them several times faster
# than the json module.
_decode_json = msgspec.json.decode


def load_sessions(
    *, scenario: str | None = None, with_text: bool = True
) -> Iterator[dict[str, Any]]:
    """Every session of a counted submission (of one scenario, if given), in id order,
    as signals.py expects it.

    Three server-side cursors (sessions, turns, tool calls, each ordered by session)
    are merged here, so memory holds one fetch of each, never the whole table. Every
    user turn carries its stored label (None for "none of them"): the extractor ran at
    ingest and a bundle label won there, so nothing is labelled twice. Iterate inside a
    transaction for true streaming; in autocommit PostgreSQL materialises the (WITH
    HOLD) cursors before the first row.

    with_text=False leaves turn texts in the database: scoring never reads them once
    every user turn is labelled, and they are most of the bytes.
    """
    params = {"status": Submission.Status.INGESTED, "scenario": scenario}
    counted = _COUNTED.format(scenario="AND s.scenario = %(scenario)s" if scenario else "")
    text = "t.text" if with_text else "NULL"
    sessions = _stream(_SESSIONS_SQL.format(counted=counted), params)
    turns = _Children(_stream(_TURNS_SQL.format(counted=counted, text=text), params))
    calls = _Children(_stream(_CALLS_SQL.format(counted=counted), params))
    for session_id, model, session_scenario, confirmation, toolset in sessions:
        yield {
            "model": model,
            "scenario": session_scenario,
            "confirmation": confirmation,
            "toolset": None if toolset is None else _decode_json(toolset),
            "turns": _turns(turns.take(session_id), calls.take(session_id)),
        }


def _turns(turn_rows: list[tuple], call_rows: list[tuple]) -> list[dict[str, Any]]:
    """One session's turns with their tool calls (rows without the session id)."""
    calls_at: dict[int, list[dict[str, Any]]] = {}
    for position, tool, arguments, exit_code in call_rows:
        call = {"tool": tool, "arguments": _decode_json(arguments), "exit_code": exit_code}
        calls_at.setdefault(position, []).append(call)
    return [
        {"role": role, "text": text, "label": label, "tool_calls": calls_at.get(position, [])}
        for position, role, label, text in turn_rows
    ]


def _stream(sql: str, params: dict[str, Any]) -> Iterator[tuple]:
    """Rows of one query through a server-side cursor, FETCH_ROWS at a time."""
    cursor = connection.chunked_cursor()
    try:
        cursor.execute(sql, params)
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


# --- scoring every slice -----------------------------------------------------------------


def signal_rows() -> list[dict[str, Any]]:
    """Every SignalEntry row of a snapshot, ready for SignalEntry(snapshot=..., **row).

    The composite pass also records each session's capability outcomes; each scenario
    slice is scored on its own sessions, so its NIR shuffles within that scenario.
    """
    # Server-side cursors stream only inside a transaction (see load_sessions).
    with transaction.atomic():
        outcomes = CapabilityOutcomes()
        composite = score_sessions(outcomes.record(load_sessions(with_text=False)))
        rows = slice_rows(COMPOSITE_SCOPE, SliceKind.COMPOSITE, composite)
        for scenario in SCENARIOS:
            scores = score_sessions(load_sessions(scenario=scenario, with_text=False))
            rows += slice_rows(scenario, SliceKind.SCENARIO, scores)
    for capability in CAPABILITIES:
        scores = outcomes.scores(capability, composite)
        rows += slice_rows(CAPABILITY_PREFIX + capability, SliceKind.CAPABILITY, scores)
    return rows


class CapabilityOutcomes:
    """Each session's own value of every capability signal, as numpy-ready columns.

    NaN marks a session where the signal is not defined (no scored sentiment, no
    assistant turn, no error episode, no tool call): those sessions leave that
    capability's NIR, as methodology §3.1 says.
    """

    def __init__(self) -> None:
        self._model_codes: dict[str, int] = {}
        self._models = array("q")
        self._scenarios: list[str | None] = []
        self._values = {capability: array("d") for capability in CAPABILITIES}

    def record(self, sessions: Iterable[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
        """Pass the sessions through unchanged, noting their outcomes on the way."""
        for session in sessions:
            summary = summarize_session(session)
            self._models.append(self._model_codes.setdefault(summary.model, len(self._model_codes)))
            self._scenarios.append(summary.scenario)
            values = summary.capability_outcomes()
            for capability in CAPABILITIES:
                value = values[capability]
                self._values[capability].append(math.nan if value is None else value)
            yield session

    def scores(
        self, capability: str, composite: Mapping[str, dict[str, Any]]
    ) -> dict[str, dict[str, Any]]:
        """Model -> its composite figures with this capability's NIR and session count."""
        y = np.frombuffer(self._values[capability], dtype=float)
        defined = ~np.isnan(y)
        models = np.frombuffer(self._models, dtype=np.int64)[defined]
        strata = [s for s, keep in zip(self._scenarios, defined, strict=True) if keep]
        results = nir.nir_closed_form_all(y[defined], models, strata)
        counts = np.bincount(models, minlength=len(self._model_codes))
        sums = np.bincount(models, weights=y[defined], minlength=len(self._model_codes))
        names = list(self._model_codes)
        return {
            names[code]: {
                **composite[names[code]],
                "sessions": int(counts[code]),
                "net_improvement": result.as_dict(),
                "capability": {
                    "name": capability,
                    "mean": sums[code] / counts[code],
                    "sessions": int(counts[code]),
                },
            }
            for code, result in results.items()
        }


# --- ranking -----------------------------------------------------------------------------


def slice_rows(
    scope: str, kind: str, scores: Mapping[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """One slice's rows in display order: ranked by the lower end of the NIR interval
    (competition ranking), then the unranked ones (fewer than MIN_RANKED_SESSIONS
    sessions, or no interval), greyed and never given a rank."""
    ranked = sorted(
        (item for item in scores.items() if _rank_key(item[1]) is not None),
        key=lambda item: (-_rank_key(item[1]), item[0]),
    )
    unranked = sorted(
        (item for item in scores.items() if _rank_key(item[1]) is None),
        key=lambda item: (-(_nir_low(item[1]) or -math.inf), item[0]),
    )
    ranks = competition_ranks([_rank_key(entry) for _, entry in ranked])
    ranks += [None] * len(unranked)
    return [
        _row(scope, kind, position, rank, model, entry)
        for position, (rank, (model, entry)) in enumerate(zip(ranks, ranked + unranked))
    ]


def is_greyed(sessions: int) -> bool:
    return sessions < MIN_RANKED_SESSIONS


def _nir_low(entry: Mapping[str, Any]) -> float | None:
    low = entry["net_improvement"]["low"]
    return low if low is not None and math.isfinite(low) else None


def _rank_key(entry: Mapping[str, Any]) -> float | None:
    """NIR − 1.96·sd_null, or None when the entry cannot be ranked."""
    return None if is_greyed(entry["sessions"]) else _nir_low(entry)


def _row(
    scope: str, kind: str, position: int, rank: int | None, model: str, entry: dict[str, Any]
) -> dict[str, Any]:
    greyed = is_greyed(entry["sessions"])
    data = {"model": model, **entry, "greyed": greyed}
    return {
        "scope": scope,
        "slice_kind": kind,
        "greyed": greyed,
        "position": position,
        "rank": rank,
        "model_name": model,
        "sessions": entry["sessions"],
        "data": json_safe(data),
    }


def json_safe(value: Any) -> Any:
    """Plain JSON values: numpy scalars unwrapped, NaN and infinities as None."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(key): json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(item) for item in value]
    return value


# --- snapshot hooks (called by leaderboard.services.boards_recompute) ----------------------

_COPIED_FIELDS = (
    "scope", "slice_kind", "greyed", "position", "rank", "model_name", "sessions", "data",
)  # fmt: skip


def signals_snapshot_write(snapshot: BoardSnapshot) -> None:
    """Score every counted session and store the signal boards in the snapshot."""
    _entries_write(snapshot, signal_rows())


def signals_carry_over(current: BoardSnapshot | None, snapshot: BoardSnapshot) -> None:
    """Copy the current snapshot's signal boards into a new one (no session changed).

    With nothing to copy (no current snapshot, or one written before signal boards
    existed) the boards are computed instead, so they never go missing.
    """
    if current is None or not current.signal_entries.exists():
        signals_snapshot_write(snapshot)
        return
    rows = current.signal_entries.order_by("pk").values(*_COPIED_FIELDS)
    _entries_write(snapshot, list(rows))


def _entries_write(snapshot: BoardSnapshot, rows: list[dict[str, Any]]) -> None:
    SignalEntry.objects.bulk_create(
        [SignalEntry(snapshot=snapshot, **row) for row in rows], batch_size=1000
    )
    total = sum(row["sessions"] for row in rows if row["scope"] == COMPOSITE_SCOPE)
    BoardSnapshot.objects.filter(pk=snapshot.pk).update(sessions_total=total)
    snapshot.sessions_total = total


# --- reading the boards back (pages and API) ---------------------------------------------


@dataclass(frozen=True)
class SignalSelection:
    """The current snapshot's rows of one view, in display order per scope."""

    computed_at: Any
    entries: list[SignalEntry]


def current_signal_entries(
    kind: str = SliceKind.COMPOSITE, scope: str | None = None
) -> SignalSelection:
    """Rows of the current snapshot for one slice kind (and scope), in two queries."""
    snapshot = BoardSnapshot.objects.current()
    if snapshot is None:
        return SignalSelection(None, [])
    entries = SignalEntry.objects.filter(snapshot=snapshot, slice_kind=kind)
    if scope is not None:
        entries = entries.filter(scope=scope)
    return SignalSelection(snapshot.computed_at, list(entries.order_by("scope", "position")))
