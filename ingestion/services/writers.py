"""Bulk writers: validated records go to PostgreSQL through COPY, in bounded batches.

A batch is buffered (never the whole bundle) because the connection cannot run other
queries while a COPY is open, and new model names must get their rows first. Runs are
formatted as COPY text here and their COPY stays open while the next batch is
validated (services/copy_text.py).

User turns keep the labels the bundle gave them (a set, source "bundle"); a user turn
without any is stored unlabelled (no source) and labelled by the leaderboard's labeller
before the signal boards are computed: labelling is methodology, and ingestion only stores.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

import msgspec
from django.db import connection
from psycopg import sql

from ingestion.bundles import ErrorCollector, RunRecord, SessionRecord
from ingestion.models import Turn
from ingestion.services.copy_text import (
    COPY_NULL,
    OpenCopy,
    copy_field,
    copy_json,
    copy_moment,
    copy_number,
    copy_text_write,
)
from ingestion.services.language_models import model_ids_resolve
from ingestion.services.session_growth import (
    Growth,
    Stored,
    Verdict,
    sessions_judge,
    sessions_stored,
    toolsets_update,
)

ProgressCallback = Callable[[int], None]
PROGRESS_EVERY = 1000
RUN_BATCH = 5000
_NO_TOKENS = (COPY_NULL,) * 3
_NO_CHECKPOINTS = (COPY_NULL,) * 2
SESSION_BATCH = 1000

RUN_COLUMNS = (
    "submission_id", "run_id", "harness_id", "model_id", "task_id", "trial", "outcome",
    "infra_error", "cost_usd", "tokens_input", "tokens_output", "tokens_cached", "steps",
    "tool_calls", "ttft_ms", "started_at", "finished_at", "checkpoints_passed",
    "checkpoints_total", "verifier", "trajectory", "extra", "source_key",
)  # fmt: skip
SESSION_COLUMNS = (
    "id", "submission_id", "session_id", "model_id", "scenario", "user_hash",
    "confirmation", "toolset", "extra", "source_key", "agent_id",
)  # fmt: skip
TURN_COLUMNS = ("id", "session_id", "position", "role", "text", "labels", "label_source", "extra")
CALL_COLUMNS = ("turn_id", "position", "tool", "arguments", "exit_code")


class TraceLines(Protocol):
    """A run's trace row in COPY text after its run id (services/traces.py), or None."""

    table: str
    columns: Sequence[str]

    def line(self, task_id: int, trajectory: list | None) -> str | None: ...


def copy_rows(table: str, columns: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """COPY rows (tuples of Python values; JSON columns already as text) into a table."""
    statement = sql.SQL("COPY {table} ({columns}) FROM STDIN").format(
        table=sql.Identifier(table), columns=sql.SQL(", ").join(map(sql.Identifier, columns))
    )
    with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row(row)


def reserve_ids(table: str, count: int) -> list[int]:
    """Take `count` ids from the table's sequence so child rows can point at them in COPY."""
    if count == 0:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            [table, count],
        )
        return [row[0] for row in cursor.fetchall()]


def records_write(*, records: Iterable, writer, bundle, progress: ProgressCallback | None) -> None:
    """Stream validated records into a writer; after the first error, only keep validating.

    Validation goes on to the end so the submitter sees every error at once; nothing
    written so far survives, because the caller's transaction is rolled back.
    """
    seen = 0
    for record in records:
        if not bundle.errors:
            writer.write(record)
        seen += 1
        if progress and seen % PROGRESS_EVERY == 0:
            progress(PROGRESS_EVERY)
    if not bundle.errors:
        writer.flush()
    if progress:
        progress(seen % PROGRESS_EVERY)


class ModelIds:
    """Model name as the file spells it -> the id of the model it means (aliases and
    routing prefixes resolved, unknown names stored as unlisted models), between COPY
    batches: a few queries per batch of new names, never one per name."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def resolve(self, names: Iterable[str]) -> None:
        missing = set(names) - self.ids.keys()
        self.ids.update(model_ids_resolve(missing))

    def __getitem__(self, name: str) -> int:
        return self.ids[name]


def user_hash(user: str | None, salt: str) -> str:
    """Salted HMAC-SHA256 of a user id: stable for counting, never reversible to the id."""
    if not user:
        return ""
    return hmac.new(salt.encode(), user.encode(), hashlib.sha256).hexdigest()


def json_text(value: object) -> str | None:
    """JSON for a jsonb column in text-format COPY (None stays NULL)."""
    if value is None:
        return None
    return msgspec.json.encode(value).decode()


# The runs of a harness already stored under some of a batch's source ids, with what
# tells the same run sent again by its uploader from a conflicting one.
_STORED_SOURCES = sql.SQL(
    "SELECT r.source_key, r.submission_id, s.uploader_id, r.task_id, r.outcome, m.name,"
    " m.aliases FROM ingestion_run r JOIN ingestion_submission s ON s.id = r.submission_id"
    " JOIN ingestion_languagemodel m ON m.id = r.model_id"
    " WHERE r.harness_id = %s AND r.source_key = ANY(%s) AND r.source_key <> ''"
)


class RunWriter:
    """Buffers validated runs and COPYs them into ingestion_run, RUN_BATCH at a time.

    A run whose `source_id` is already stored for the harness (the same trial, from an
    earlier submission) is a duplicate: after the first, batches are only checked, and
    `duplicates` names every one (the caller rejects the bundle), unless every run is
    one the uploader stored before as it is (same task, model and outcome): nothing new,
    and `same_from` counts them by the submission holding them.

    With `traces` (services/traces.py), each run's trace is scored from the trajectory
    being formatted for its row, and the batch's traces are COPYed with it.
    """

    def __init__(
        self,
        *,
        submission_id: int,
        harness_id: int,
        read_trajectory,
        uploader_id: int,
        traces: TraceLines | None = None,
    ) -> None:
        self.submission_id = submission_id
        self.harness_id = harness_id
        self.uploader_id = uploader_id
        self.same_from: Counter[int] = Counter()
        self.read_trajectory = read_trajectory
        self._prefix, self._harness = str(submission_id), str(harness_id)
        # Open between batches: the server stores one while the next is validated.
        self._copy = OpenCopy("ingestion_run", ("id", *RUN_COLUMNS))
        self.traces = traces
        self.models = ModelIds()
        self.pending: list[RunRecord] = []
        self.count = 0
        self.duplicates = ErrorCollector()

    @property
    def nothing_new(self) -> bool:
        """Every run was stored before, as it is, by this uploader."""
        return self.count > 0 and sum(self.same_from.values()) == self.count

    def write(self, record: RunRecord) -> None:
        self.pending.append(record)
        if len(self.pending) >= RUN_BATCH:
            self._send()

    def flush(self) -> None:
        """Store what is pending and finish the COPY: the connection is free again."""
        self._send()
        self._copy.finish()

    def _send(self) -> None:
        if not self.pending:
            return
        if self.duplicates.total:  # the bundle is refused: later batches are only checked
            self._find_duplicates(self.pending)
        else:
            self._store(self.pending)
        self.count += len(self.pending)
        self.pending = []

    def _store(self, records: list[RunRecord]) -> None:
        # Formatted (and their traces scored) while the server still stores the last
        # batch, when every model name is known already (no query needed); a trajectory
        # file is read only once the batch is known to have no duplicates, as before.
        names = {r.model for r in records}
        known = self.models.ids.keys() >= names
        rows = (
            [r if isinstance(r.trajectory, str) else self._row(r) for r in records]
            if known
            else records
        )
        self._copy.finish()  # the queries below need the connection
        self._find_duplicates(records)
        if self.duplicates.total:
            return
        if not known:
            self.models.resolve(names)
        rows = [row if isinstance(row, tuple) else self._row(row) for row in rows]
        # The runs' ids are taken first, so their traces can point at them in COPY.
        numbered = list(zip(reserve_ids("ingestion_run", len(rows)), rows, strict=True))
        if self.traces is not None:
            traces = [f"{pk}\t{trace}" for pk, (_, trace) in numbered if trace is not None]
            copy_text_write(self.traces.table, self.traces.columns, traces)
        self._copy.send("".join([f"{pk}\t{line}\n" for pk, (line, _) in numbered]).encode())

    def _row(self, r: RunRecord) -> tuple[str, str | None]:
        """The run's row and its trace's (None: it gets none), both in COPY text
        without their leading id and newline: one reading of its trajectory."""
        trajectory = r.trajectory
        if isinstance(trajectory, str):
            trajectory = self.read_trajectory(trajectory)
        trace = self.traces.line(r.task_pk, trajectory) if self.traces is not None else None
        return self._line(r, trajectory), trace

    def _find_duplicates(self, records: list[RunRecord]) -> None:
        by_source = {r.source_id: r for r in records if r.source_id}
        if not by_source:
            return
        with connection.cursor() as cursor:
            cursor.execute(_STORED_SOURCES, [self.harness_id, list(by_source)])
            stored = sorted(cursor.fetchall(), key=lambda row: by_source[row[0]].line)
        for source_id, other, uploader_id, task_pk, outcome, model, aliases in stored:
            r = by_source[source_id]
            if uploader_id == self.uploader_id and (task_pk, outcome) == (r.task_pk, r.outcome):
                self.same_from[other] += r.model == model or r.model in (aliases or ())
            message = (
                f"trial {source_id!r} is already stored for this harness by submission "
                f"{other}; submission {self.submission_id} may not count it again"
            )
            self.duplicates.add("runs.jsonl", r.line, "source_id", message)

    def _line(self, r: RunRecord, trajectory: list | None) -> str:
        """The run's row in COPY text format, in RUN_COLUMNS order (without newline)."""
        tokens, checkpoints = r.tokens, r.checkpoints
        return "\t".join((
            self._prefix, copy_field(r.run_id), self._harness, str(self.models[r.model]),
            str(r.task_pk), str(r.trial), copy_field(r.outcome), copy_field(r.infra_error or ""),
            copy_number(r.cost_usd),
            *((str(tokens.input), str(tokens.output), copy_number(tokens.cached)) if tokens
              else _NO_TOKENS),
            copy_number(r.steps), copy_number(r.tool_calls), copy_number(r.ttft_ms),
            copy_moment(r.started_at), copy_moment(r.finished_at),
            *((str(checkpoints.passed), str(checkpoints.total)) if checkpoints
              else _NO_CHECKPOINTS),
            copy_json(r.verifier), copy_json(trajectory),
            copy_json(r.extra) if r.extra else "{}", copy_field(r.source_id or ""),
        ))  # fmt: skip


class SessionWriter:
    """Buffers sessions and COPYs them with their turns and tool calls, in batches.

    Turn and tool-call rows point at their parents, so parent ids are taken from the
    sequences first; unlabelled user turns are labelled here, recording the source.

    A session whose `source_id` is already stored (the same transcripts uploaded again,
    or a transcript that has grown since) is not stored twice: one that grew gets its
    new turns appended where it is stored; any other is skipped, not refused, since the
    rest of the upload is new evidence (services/session_growth.py). `growth` says
    what was met, by the submissions holding those sessions.
    """

    def __init__(self, *, submission_id: int, salt: str, uploader_id: int, trusted: bool) -> None:
        self.submission_id = submission_id
        self.salt = salt
        self.uploader_id, self.trusted = uploader_id, trusted
        self.models = ModelIds()
        self.pending: list[SessionRecord] = []
        self.count = 0
        self.growth = Growth()

    def write(self, record: SessionRecord) -> None:
        self.pending.append(record)
        if len(self.pending) >= SESSION_BATCH:
            self.flush()

    def flush(self) -> None:
        (pending, grown), self.pending = self._sorted_out(self.pending), []
        if not pending and not grown:
            return
        self.models.resolve(s.model for s in pending)
        session_ids = reserve_ids("ingestion_session", len(pending))
        added = sum(len(s.turns) for s in pending) + sum(len(r.turns) - s.turns for r, s in grown)
        turn_ids = iter(reserve_ids("ingestion_turn", added))
        sessions, turns, calls = [], [], []
        for session_id, record in zip(session_ids, pending, strict=True):
            sessions.append(self._session_row(session_id, record))
            self._turn_rows(session_id, record, turn_ids, turns, calls)
        for record, stored in grown:  # the new turns only, after the stored ones
            self._turn_rows(
                stored.pk, record, turn_ids, turns, calls, start=stored.turns,
                first_position=stored.next_position,
            )  # fmt: skip
        copy_rows("ingestion_session", SESSION_COLUMNS, sessions)
        copy_rows("ingestion_turn", TURN_COLUMNS, turns)
        copy_rows("ingestion_toolcall", CALL_COLUMNS, calls)
        toolsets_update(toolsets={s.pk: self._toolset(r) for r, s in grown})
        self.count += len(pending)
        self.growth.grown_ids += [stored.pk for _, stored in grown]
        self.growth.turns_added += sum(len(r.turns) - s.turns for r, s in grown)

    def _sorted_out(
        self, records: list[SessionRecord]
    ) -> tuple[list[SessionRecord], list[tuple[SessionRecord, Stored]]]:
        """The records not stored yet, and the grown ones with what is stored of them;
        the verdict on every stored one is counted in `growth`."""
        stored = sessions_stored(source_ids=[r.source_id for r in records if r.source_id])
        met = [(r, stored[r.source_id]) for r in records if r.source_id in stored]
        verdicts = sessions_judge(pairs=met, uploader_id=self.uploader_id, trusted=self.trusted)
        grown = []
        for (record, session), verdict in zip(met, verdicts, strict=True):
            self.growth.count(verdict, session.submission_id)
            if verdict is Verdict.GROWN:
                grown.append((record, session))
        return [r for r in records if r.source_id not in stored], grown

    def _toolset(self, s: SessionRecord) -> str | None:
        return None if s.toolset is None else json_text(msgspec.to_builtins(s.toolset))

    def _session_row(self, session_id: int, s: SessionRecord) -> tuple:
        return (
            session_id, self.submission_id, s.session_id, self.models[s.model], s.scenario or "",
            user_hash(s.user, self.salt), s.confirmation or "", self._toolset(s),
            json_text(s.extra or {}), s.source_id or "", s.agent_pk,
        )  # fmt: skip

    def _turn_rows(
        self,
        session_id: int,
        s: SessionRecord,
        turn_ids,
        turns: list,
        calls: list,
        start: int = 0,
        first_position: int = 0,
    ) -> None:
        """The rows of the record's turns from `start` on, at positions from `first_position`."""
        for position, turn in enumerate(s.turns[start:], first_position):
            turn_id = next(turn_ids)
            labels, source = self._bundle_labels(turn)
            turns.append(
                (turn_id, session_id, position, turn.role, turn.text or "", labels, source, "{}")
            )
            for call_position, call in enumerate(turn.tool_calls):
                calls.append(
                    (turn_id, call_position, call.tool, json_text(call.arguments), call.exit_code)
                )

    @staticmethod
    def _bundle_labels(turn) -> tuple[list[str], str]:
        """The bundle's own label set (empty, "none of them", included), or no source at all."""
        if turn.role != "user" or not turn.label_present:
            return [], ""
        return turn.label_set, Turn.LabelSource.BUNDLE
