"""The signal boards, read from PostgreSQL and written into a board snapshot.

load_sessions streams every counted session out of the database as the plain dicts
leaderboard.signals scores. signal_rows turns them into SignalEntry rows: the composite
board, one slice per scenario and one per capability signal (the three-way cross view
of methodology §3.1–3.2), each ranked by the lower end of its NIR interval. The page
and the API read those rows back through the selectors at the end of this module.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

import msgspec
import numpy as np
from django.db import connection, transaction

from ingestion.models import Scenario, Submission
from leaderboard import nir, signals
from leaderboard.models import BoardSnapshot, SignalEntry
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
    "shell_success",
    "tool_validity",
)
# The signal columns of a SignalEntry, in display order (api.md).
SIGNALS: tuple[str, ...] = (
    "confirmed_success",
    "praise_complaint",
    "steerability",
    "bash_recovery",
    "shell_success",
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
    """Every SignalEntry row of a snapshot, ready for SignalEntry(snapshot=..., **row)."""
    # Server-side cursors stream only inside a transaction (see load_sessions).
    with transaction.atomic():
        table = SessionTable(load_sessions(with_text=False))
    composite = table.composite()
    rows = slice_rows(COMPOSITE_SCOPE, SliceKind.COMPOSITE, composite)
    for scenario in SCENARIOS:
        rows += slice_rows(scenario, SliceKind.SCENARIO, table.scenario(scenario))
    for capability in CAPABILITIES:
        scores = table.capability(capability, composite)
        rows += slice_rows(CAPABILITY_PREFIX + capability, SliceKind.CAPABILITY, scores)
    return rows


class SessionTable:
    """Every counted session summarised once, so that each slice is a mask over columns.

    Summarising sessions (labels, efforts, shell episodes, tool checks) is most of the
    cost, and score_sessions would redo it for every slice: at 100,000 sessions the
    composite, three scenario passes and the capability outcomes took about 22 s, this
    table about 9 s. It therefore builds on score_sessions' own pieces
    (signals.collect_columns and signals.model_entry), so every figure is still computed by
    signals.py; tests pin each slice to score_sessions on the same sessions.

    Sessions are collected under the key (model, scenario): an entry's median attempts
    come from its key's resolved episodes, so a scenario slice gets its own median and
    the composite regroups the keys by model.
    """

    def __init__(self, sessions: Iterable[Mapping[str, Any]]) -> None:
        keys, self._by_key = signals.collect_columns(_keyed_by_scenario(sessions))
        self._keys: list[tuple[str, str | None]] = keys
        self.models: list[str] = list(dict.fromkeys(model for model, _ in keys))
        code = {model: index for index, model in enumerate(self.models)}
        model_of_key = np.array([code[model] for model, _ in keys], dtype=np.int64)
        attempts = [[] for _ in self.models]
        for key_code, (model, _) in enumerate(keys):
            attempts[code[model]].extend(self._by_key.attempts[key_code])
        self._by_model = replace(
            self._by_key, model=model_of_key[self._by_key.model], attempts=attempts
        )
        self._scenario = np.array(self._by_key.scenario, dtype=object)

    def composite(self) -> dict[str, dict[str, Any]]:
        """Model -> its figures over all its sessions; NIR shuffles within scenario."""
        c = self._by_model
        results = nir.nir_closed_form_all(c.confirmed, c.model, c.scenario)
        return {
            model: signals.model_entry(c, c.model == code, code, results[code])
            for code, model in enumerate(self.models)
        }

    def scenario(self, scenario: str) -> dict[str, dict[str, Any]]:
        """Model -> its figures over its sessions of one scenario, NIR within it."""
        inside = self._scenario == scenario
        strata = [scenario] * int(inside.sum())
        models = self._by_model.model[inside]
        results = nir.nir_closed_form_all(self._by_model.confirmed[inside], models, strata)
        c = self._by_key
        return {
            model: signals.model_entry(
                c, c.model == key_code, key_code, results[self.models.index(model)]
            )
            for key_code, (model, key_scenario) in enumerate(self._keys)
            if key_scenario == scenario
        }

    def capability(
        self, capability: str, composite: Mapping[str, dict[str, Any]]
    ) -> dict[str, dict[str, Any]]:
        """Model -> its composite figures with the NIR of this capability (y = each
        session's own value, over the sessions where it is defined) and its count."""
        y, defined = self._outcome(capability)
        models = self._by_model.model[defined]
        strata = self._scenario[defined].tolist()
        results = nir.nir_closed_form_all(y[defined], models, strata)
        counts = np.bincount(models, minlength=len(self.models))
        sums = np.bincount(models, weights=y[defined], minlength=len(self.models))
        return {
            self.models[code]: {
                **composite[self.models[code]],
                "sessions": int(counts[code]),
                "net_improvement": result.as_dict(),
                "capability": {"name": capability, "mean": sums[code] / counts[code]},
            }
            for code, result in results.items()
        }

    def _outcome(self, capability: str) -> tuple[np.ndarray, np.ndarray]:
        """(y, defined) per session, as SessionSignals.capability_outcomes defines them."""
        c = self._by_model
        with np.errstate(divide="ignore", invalid="ignore"):
            outcomes = {
                "confirmed_success": (c.confirmed, np.ones(len(c.confirmed), dtype=bool)),
                "praise_complaint": (c.pc, c.pc >= 0),
                "steerability": (1 - c.effort / (3 * c.turns), c.turns > 0),
                "bash_recovery": (c.episode_score / c.episodes, c.episodes > 0),
                "shell_success": (c.shell_successes / c.shell_calls, c.shell_calls > 0),
                # calls is -1 for a session without a toolset: not scored either.
                "tool_validity": (1 - c.hallucinated / c.calls, c.calls > 0),
            }
        return outcomes[capability]


def _keyed_by_scenario(sessions: Iterable[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
    for session in sessions:
        yield {**session, "model": (session["model"], session.get("scenario"))}


# --- ranking -----------------------------------------------------------------------------


def slice_rows(scope: str, kind: str, scores: Mapping[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """One slice's rows in display order: ranked by the lower end of the NIR interval
    (competition ranking), then the unranked ones (fewer than MIN_RANKED_SESSIONS
    sessions, or no interval), greyed and never given a rank."""
    ranked = sorted(
        (item for item in scores.items() if _rank_key(item[1]) is not None),
        key=lambda item: (-_rank_key(item[1]), item[0]),
    )
    unranked = sorted(
        (item for item in scores.items() if _rank_key(item[1]) is None),
        key=lambda item: (_unranked_order(item[1]), item[0]),
    )
    ranks = competition_ranks([_rank_key(entry) for _, entry in ranked])
    ranks += [None] * len(unranked)
    return [
        _row(scope, kind, position, rank, model, entry)
        for position, (rank, (model, entry)) in enumerate(
            zip(ranks, ranked + unranked, strict=True)
        )
    ]


def is_greyed(sessions: int) -> bool:
    return sessions < MIN_RANKED_SESSIONS


def _nir_low(entry: Mapping[str, Any]) -> float | None:
    low = entry["net_improvement"]["low"]
    return low if low is not None and math.isfinite(low) else None


def _unranked_order(entry: Mapping[str, Any]) -> float:
    # The same order as the ranked rows, entries without an interval last.
    low = _nir_low(entry)
    return math.inf if low is None else -low


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
    """The current snapshot's rows of some slice kinds, in display order per scope."""

    computed_at: Any
    sessions_total: int
    entries: list[SignalEntry]


def current_signal_entries(
    kinds: Iterable[str] = (SliceKind.COMPOSITE,), scope: str | None = None
) -> SignalSelection:
    """Rows of the current snapshot of the given slice kinds (and scope): two queries."""
    snapshot = BoardSnapshot.objects.current()
    if snapshot is None:
        return SignalSelection(None, 0, [])
    entries = SignalEntry.objects.filter(snapshot=snapshot, slice_kind__in=list(kinds))
    if scope is not None:
        entries = entries.filter(scope=scope)
    return SignalSelection(
        snapshot.computed_at, snapshot.sessions_total, list(entries.order_by("scope", "position"))
    )
