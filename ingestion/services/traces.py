"""Runs' traces scored against their tasks' reference calls and their suites' rules.

At ingest every run of a suite that states a trajectory, rules or a task's reference
calls gets one RunTrace row (ingestion.traces does the reading), scored from the run as
it is validated and formatted for its COPY (`TraceLines`: one pass over the runs, the
statements read once before it) and COPYed in the runs' transaction; its figures and
violations are then rolled up per group (ingestion.rollups.traces_sql), so the boards
add up groups, never traces. When the registry changes a suite's statement or a task's
reference calls, `traces_rescore` reads that suite's stored runs again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from django.db import connection, transaction
from psycopg import sql

from ingestion.models import Suite, Task
from ingestion.rollups.traces_sql import trace_rollups_delete, trace_rollups_insert
from ingestion.services.copy_text import copy_json, copy_number, copy_text_write
from ingestion.traces import ReferenceCall, RunTrace, TraceSpec, reference_calls_parse, run_trace
from ingestion.traces import trace_spec_parse as _spec_parse

TRACE_TABLE = "ingestion_runtrace"
TRACE_COLUMNS = (
    "run_id", "figures", "calls", "reference_calls", "failed_calls", "ignored_calls",
    "alignment", "violations",
)  # fmt: skip
# The advisory lock between registry loads and ingests reading the trace statements.
TRACE_STATEMENTS_LOCK = 7_201_026
_SUITES = """
    SELECT DISTINCT t.suite_id FROM ingestion_run r JOIN ingestion_task t ON t.id = r.task_id
    WHERE r.submission_id = ANY(%s)
"""
_FETCH = 1000  # runs read at a time: bounded memory whatever the submission's size
_RUNS = """
    SELECT r.id, r.task_id, r.trajectory
    FROM ingestion_run r JOIN ingestion_task t ON t.id = r.task_id
    WHERE r.submission_id = ANY(%s) AND t.suite_id = ANY(%s)
    ORDER BY r.id
"""


@dataclass(frozen=True)
class Statements:
    """What the registry states for trace reading: each suite's spec, each task's calls,
    and the suite of every task of those suites."""

    specs: dict[int, TraceSpec]
    references: dict[int, tuple[ReferenceCall, ...]]
    suites: dict[int, int] = field(default_factory=dict)  # task id -> suite id

    @classmethod
    def read(cls, suite_ids: Iterable[int] | None = None) -> Statements:
        suites = (
            Suite.objects.all() if suite_ids is None else Suite.objects.filter(pk__in=suite_ids)
        )
        tasks = Task.objects.filter(reference_calls__isnull=False, suite__in=suites)
        with_references = set(tasks.values_list("suite_id", flat=True))
        specs = {
            suite.pk: spec_of(suite)
            for suite in suites
            if suite.trajectory or suite.rules or suite.pk in with_references
        }
        references = {
            task.pk: reference_calls_parse(task.reference_calls, specs[task.suite_id])
            for task in tasks.only("pk", "suite_id", "reference_calls")
        }
        of_suite = Task.objects.filter(suite__in=list(specs)) if specs else Task.objects.none()
        return cls(specs, references, dict(of_suite.values_list("pk", "suite_id")))

    def trace_values(self, task_id: int, trajectory: object) -> tuple | None:
        """The trace row of a run of this task (without its run id), or None when it
        gets none: its suite states nothing, it has no trajectory, or there is nothing
        to record (no reference calls and no rules)."""
        suite_id = self.suites.get(task_id)
        if suite_id is None:
            return None
        turns = _turns(trajectory)
        if turns is None:
            return None
        spec = self.specs[suite_id]
        trace = run_trace(turns, self.references.get(task_id), spec)
        if trace.score is None and not spec.rules:
            return None
        return _values(trace, checked=bool(spec.rules))


class TraceLines:
    """The trace rows of runs as they are formatted for their COPY (services/writers.py
    RunWriter): `line` gives a run's row in COPY text, from its second column on (the
    writer puts the run's id first), or None for a run that gets no trace."""

    table = TRACE_TABLE
    columns = TRACE_COLUMNS

    def __init__(self, statements: Statements) -> None:
        self.statements = statements
        self.scored = 0

    def line(self, task_id: int, trajectory: object) -> str | None:
        values = self.statements.trace_values(task_id, trajectory)
        if values is None:
            return None
        self.scored += 1
        return _line(values)


def spec_of(suite: Suite) -> TraceSpec:
    """The suite's stored statement, parsed (the registry checked it when loading)."""
    return _spec_parse(suite.trajectory or None, suite.rules or None)


def trace_statements_lock(*, exclusive: bool) -> None:
    """Until the transaction ends: a registry load (exclusive) waits for the ingests
    reading the statements (shared) to commit, and they for it, so no ingest keeps
    traces read under statements a load has since replaced without rescoring them."""
    function = "pg_advisory_xact_lock" if exclusive else "pg_advisory_xact_lock_shared"
    with connection.cursor() as cursor:
        cursor.execute(
            sql.SQL("SELECT {}(%s)").format(sql.Identifier(function)), [TRACE_STATEMENTS_LOCK]
        )


def trace_lines_for_ingest() -> TraceLines | None:
    """Before an ingest's pass over its runs, in its transaction: the statements of every
    suite, read under the shared lock (held to the commit); None when no suite states
    anything, so the pass costs nothing more."""
    if not connection.in_atomic_block:
        raise RuntimeError("the statements are read inside the transaction that writes the runs")
    trace_statements_lock(exclusive=False)
    statements = Statements.read()
    return TraceLines(statements) if statements.specs else None


def trace_rollups_write(*, submission_ids: Sequence[int]) -> None:
    """Roll up these submissions' traces, written already, in the caller's transaction."""
    with connection.cursor() as cursor:
        for statement in trace_rollups_insert():
            cursor.execute(statement, {"submission_ids": list(submission_ids)})


def run_traces_write(*, submission_ids: Sequence[int], statements: Statements | None = None) -> int:
    """Score the traces of these submissions' stored runs (read back) and roll them up,
    in the caller's transaction; returns the number of traces written. None of the runs
    may have a trace yet: traces_rescore has deleted them. Free when none of their
    suites states anything. A run without a trajectory gets no trace: it is neither
    scored nor counted as checked against the rules."""
    if not connection.in_atomic_block:
        raise RuntimeError("run_traces_write runs inside the transaction that wrote the runs")
    if statements is None:
        trace_statements_lock(exclusive=False)
        statements = Statements.read(_suites_of(submission_ids))
    if not statements.specs:
        return 0
    written = 0
    for batch in _batches(_scored_lines(submission_ids, statements)):
        copy_text_write(TRACE_TABLE, TRACE_COLUMNS, batch)
        written += len(batch)
    if written:
        trace_rollups_write(submission_ids=submission_ids)
    return written


@transaction.atomic
def traces_rescore(*, suite_ids: Sequence[int]) -> int:
    """Read the runs of these suites again under the registry's current statements
    (their RunTrace rows and the rollups of the submissions holding them are replaced);
    returns the number of traces written."""
    if not suite_ids:
        return 0
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT r.submission_id FROM ingestion_run r"
            " JOIN ingestion_task t ON t.id = r.task_id WHERE t.suite_id = ANY(%s)",
            [list(suite_ids)],
        )
        submission_ids = [row[0] for row in cursor.fetchall()]
        if not submission_ids:
            return 0
        cursor.execute(
            "DELETE FROM ingestion_runtrace WHERE run_id IN (SELECT id FROM ingestion_run"
            " WHERE submission_id = ANY(%s))",
            [submission_ids],
        )
        for statement in trace_rollups_delete():
            cursor.execute(statement, {"submission_ids": submission_ids})
    return run_traces_write(submission_ids=submission_ids, statements=Statements.read())


def _suites_of(submission_ids: Sequence[int]) -> list[int]:
    """The suites these submissions' runs are on: only their statements are read."""
    with connection.cursor() as cursor:
        cursor.execute(_SUITES, [list(submission_ids)])
        return [row[0] for row in cursor.fetchall()]


def _scored_lines(submission_ids: Sequence[int], statements: Statements) -> Iterator[str]:
    suites = list(statements.specs)
    with connection.chunked_cursor() as cursor:
        cursor.execute(_RUNS, [list(submission_ids), suites])
        while rows := cursor.fetchmany(_FETCH):
            for run_id, task_id, trajectory in rows:
                values = statements.trace_values(task_id, trajectory)
                if values is not None:
                    yield f"{run_id}\t{_line(values)}"


def _turns(trajectory) -> list | None:
    # jsonb may reach Python as text (Django's psycopg loader) or parsed.
    if isinstance(trajectory, str):
        trajectory = json.loads(trajectory)
    return trajectory if isinstance(trajectory, list) else None


def _line(values: tuple) -> str:
    """The columns after run_id in COPY text: JSON (figures, alignment, violations) and
    integers, None as NULL."""
    figures, calls, references, failed, ignored, alignment, violations = values
    return "\t".join((
        copy_json(figures), str(calls), copy_number(references), str(failed), str(ignored),
        copy_json(alignment), copy_json(violations),
    ))  # fmt: skip


def _values(trace: RunTrace, *, checked: bool) -> tuple:
    """The row's columns after run_id, JSON columns as Python values (None: NULL)."""
    score = trace.score
    violations = (
        [{"rule": v.rule, "position": v.position, "message": v.message} for v in trace.violations]
        if checked else None
    )  # fmt: skip
    if score is None:
        return ({}, 0, None, 0, 0, [], violations)
    alignment = [
        {"status": a.status, "reference": a.reference, "position": a.position,
         "differing": list(a.differing)}
        for a in score.alignment
    ]  # fmt: skip
    return (
        score.figures, score.calls, score.reference_calls, score.failed_calls,
        score.ignored_calls, alignment, violations,
    )  # fmt: skip


def _batches(rows: Iterator[str], size: int = 5000) -> Iterator[list[str]]:
    batch: list[str] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
