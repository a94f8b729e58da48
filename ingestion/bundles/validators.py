"""Line validators of runs.jsonl and sessions.jsonl: each line becomes a record or errors.

Speed matters (a bundle may hold 200,000 runs), so every line goes through one typed
msgspec decoder that checks types and ranges in C while it parses (the fast path).
Only a line that fails it is parsed again, slowly, field by field, to report *every*
problem of that line with a readable message (the slow path). Both paths take their
rules from the same Structs (schema.py), so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any

import msgspec
from msgspec import Struct

from ingestion.bundles.decoder import RecordDecoder
from ingestion.bundles.depth import too_deep, too_deep_message
from ingestion.bundles.documents import turn_problems, validate_turns
from ingestion.bundles.errors import ErrorCollector
from ingestion.bundles.fields import (
    FieldSpec,
    convert_fields,
    field_specs,
    find_nul_escape,
    find_tiny_number,
    parse_json,
    report_unstorable,
)
from ingestion.bundles.limits import CHOICES, RUN_DURATION_MAX_S, TIMESTAMP_MAX, TIMESTAMP_MIN
from ingestion.bundles.messages import BAD, json_kind, show
from ingestion.bundles.model_names import model_name_unprefixed
from ingestion.bundles.schema import (
    TRAJECTORY_DIR,
    Agent,
    RunRecord,
    RunWithExtra,
    SessionRecord,
    SessionWithExtra,
    normalize_trajectory_path,
)

TaskLookup = Callable[[str, str, str], "int | None"]
SuiteKnown = Callable[[str, str], bool]
# (harness name, version) -> the Harness row's primary key, or (field, message) naming
# why the registry has no such agent (unknown harness, unknown version).
AgentLookup = Callable[[str, str], "int | tuple[str, str]"]
_MISSING: Any = object()
_LOOKUP_CACHE_SIZE = 10_000  # distinct tasks (or model names) remembered; far more than usual
_LONGEST_RUN = timedelta(seconds=RUN_DURATION_MAX_S)


def run_consistency(rec: Any) -> list[tuple[str, str]]:
    """Rules between fields of one run. Works on a RunRecord, or on the slow path's
    namespace where a field that failed on its own is BAD (and is then skipped)."""
    problems: list[tuple[str, str]] = []
    outcome, kind = rec.outcome, rec.infra_error
    if outcome is not BAD and kind is not BAD:
        if outcome == "infra_error":
            if kind is None:
                choices = ", ".join(CHOICES["infra_error"])
                problems.append(
                    ("infra_error", f"is required when outcome is infra_error (one of {choices})")
                )
        elif kind is not None:
            problems.append(
                ("infra_error", f"must be null when outcome is {outcome} (got {kind!r})")
            )
    started, finished = rec.started_at, rec.finished_at
    problems.extend(_timestamp_problems(started, finished))
    if _both_valid(started, finished) and finished < started:
        when = f"{finished.isoformat()} < {started.isoformat()}"
        problems.append(("finished_at", f"is before started_at ({when})"))
    elif _both_valid(started, finished) and finished - started > _LONGEST_RUN:
        days = _LONGEST_RUN.days
        problems.append(("finished_at", f"is more than {days} days after started_at"))
    cp = rec.checkpoints
    if cp is not None and cp is not BAD and cp.passed > cp.total:
        problems.append(
            ("checkpoints.passed", f"must be ≤ checkpoints.total ({cp.passed} > {cp.total})")
        )
    return problems


def _timestamp_problems(started: Any, finished: Any) -> list[tuple[str, str]]:
    problems = []
    for name, moment in (("started_at", started), ("finished_at", finished)):
        if moment is not None and moment is not BAD and (problem := timestamp_problem(moment)):
            problems.append((name, problem))
    return problems


def timestamp_problem(moment: datetime) -> str | None:
    """Why an aware time cannot be a run's (or a session line's), or None: a time
    outside [TIMESTAMP_MIN, TIMESTAMP_MAX) is a clock or format error."""
    if TIMESTAMP_MIN <= moment < TIMESTAMP_MAX:
        return None
    span = f"{TIMESTAMP_MIN.date().isoformat()} and {TIMESTAMP_MAX.date().isoformat()}"
    return f"must be between {span} (got {moment.isoformat()})"


def _both_valid(a: Any, b: Any) -> bool:
    return a is not None and b is not None and a is not BAD and b is not BAD


class _LineValidator:
    """The fast and slow paths shared by runs and sessions.

    Fast: one typed decode (see RecordDecoder). Slow, only for invalid lines: parse,
    then check field by field (convert_fields) to report every problem with a
    readable message.
    """

    record: type[Struct]
    lenient: type[Struct]
    specs: tuple[FieldSpec, ...]
    names: frozenset[str]

    def __init__(self, errors: ErrorCollector, file: str):
        self._source_ids: set[int] = set()
        self.errors = errors
        self.file = file
        self._decode = RecordDecoder(self.record, self.lenient).decode

    def from_json(self, line_no: int, data: bytes) -> Any:
        """The record of one JSON line, or None after adding its errors."""
        # Parsers recurse once per level: a line nested too deeply is named, never parsed.
        if too_deep(data):
            self._error(line_no, "", too_deep_message())
            return None
        # msgspec decodes a \u0000 escape, which PostgreSQL refuses (text and jsonb):
        # such a line takes the slow path, which names the field holding it.
        if find_nul_escape(data) is not None or find_tiny_number(data) is not None:
            return self._diagnose(line_no, data)
        try:
            rec, extra = self._decode(data)
        except (msgspec.DecodeError, UnicodeDecodeError):
            return self._diagnose(line_no, data)
        return self._accept(line_no, rec, extra)

    def from_object(self, line_no: int, obj: Any) -> Any:
        """The record of an already parsed value (a JSON document the stdlib parsed)."""
        return self._check_object(line_no, obj)

    def _diagnose(self, line_no: int, data: bytes) -> Any:
        data = bytes(data)  # a JSON document's items are msgspec.Raw slices
        if not data.strip():
            return None  # blank lines are allowed
        obj = parse_json(data, lambda field, msg: self._error(line_no, field, msg))
        if obj is BAD:
            return None
        return self._check_object(line_no, obj)

    def _check_object(self, line_no: int, obj: Any) -> Any:
        if not isinstance(obj, dict):
            self._error(line_no, "", f"must be a JSON object, not {json_kind(obj)}")
            return None
        report = lambda field, message: self._error(line_no, field, message)  # noqa: E731
        unstorable = report_unstorable(obj, report)
        values = convert_fields(obj, self.specs, report, skip=unstorable)
        if unstorable or any(v is BAD for v in values.values()):
            self._check_partial_relations(line_no, SimpleNamespace(**values))
            return None
        extra = {k: v for k, v in obj.items() if k not in self.names}
        return self._accept(line_no, self.record(**values), extra)

    def _accept(self, line_no: int, rec: Any, extra: dict[str, Any]) -> Any:
        """Rules between fields and records; the record with its attributes set, or None."""
        raise NotImplementedError

    def _check_partial_relations(self, line_no: int, rec: SimpleNamespace) -> None:
        """The same rules for a line with invalid fields (BAD), skipping those they
        take part in: so that one pass still reports, say, a duplicate id."""
        raise NotImplementedError

    def _report(self, line_no: int, problems: list[tuple[str, str]]) -> bool:
        """Add each (field, message); True if there were none."""
        for field, message in problems:
            self._error(line_no, field, message)
        return not problems

    def _error(self, line_no: int, field: str, message: str) -> None:
        self.errors.add(self.file, line_no, field, message)

    def _note_source_id(self, line_no: int, source_id: str | None) -> bool:
        if source_id is None:
            return True
        key = hash(source_id)
        if key in self._source_ids:
            self._error(
                line_no,
                "source_id",
                f"duplicate source_id {source_id!r}: the same trial or session is on an earlier line",
            )
            return False
        self._source_ids.add(key)
        return True


class RunValidator(_LineValidator):
    """Validates the runs of one bundle, line by line, keeping the cross-record state.

    `from_json(line_no, data)` returns a RunRecord, or None after adding the line's
    errors to `errors`. Uniqueness is tracked with 64-bit hashes instead of the keys
    themselves, so 200,000 runs cost a few MB; two different keys sharing a hash
    (odds about 1 in 10⁹ at that size) would be reported as a duplicate.
    """

    record = RunRecord
    lenient = RunWithExtra
    specs = field_specs(RunRecord)
    names = frozenset(name for name, *_ in specs)

    def __init__(
        self,
        errors: ErrorCollector,
        task_lookup: TaskLookup,
        *,
        file: str = "runs.jsonl",
        trajectory_exists: Callable[[str], bool] = lambda path: False,
        suite_known: SuiteKnown = lambda suite, version: True,
    ):
        super().__init__(errors, file)
        self._lookup = task_lookup
        self._suite_known = suite_known
        self._tasks: dict[tuple[str, str, str], int | None] = {}
        self._trajectory_exists = trajectory_exists
        self._run_ids: set[int] = set()
        self._trials: set[int] = set()
        self._unprefixed: dict[str, str] = {}  # model name → without its routes

    def _accept(self, line_no: int, rec: RunRecord, extra: dict[str, Any]) -> RunRecord | None:
        task_pk = self._check_relations(line_no, rec)
        if task_pk is None:
            return None
        rec.line = line_no
        rec.extra = extra
        rec.task_pk = task_pk
        return rec

    def _check_relations(self, line_no: int, rec: RunRecord) -> int | None:
        """Cross-field, registry and uniqueness rules of a record whose fields are
        all valid (the hot path: no BAD guards). Returns the task pk when the record
        passes them all, else None (after adding the errors)."""
        ok = True
        problems = run_consistency(rec)
        if problems:
            ok = self._report(line_no, problems)
        if rec.trajectory is not None:
            ok = self._check_trajectory(line_no, rec.trajectory) and ok
        task = (rec.suite, rec.suite_version, rec.task_id)
        task_pk = self._task_pk(line_no, task)
        ok = self._note_run_id(line_no, rec.run_id) and ok
        ok = self._note_source_id(line_no, rec.source_id) and ok
        ok = self._note_trial(line_no, task, rec.model, rec.trial) and ok
        return task_pk if ok else None

    def _check_partial_relations(self, line_no: int, rec: SimpleNamespace) -> None:
        self._report(line_no, run_consistency(rec))
        if rec.trajectory is not None and rec.trajectory is not BAD:
            self._check_trajectory(line_no, rec.trajectory)
        task = (rec.suite, rec.suite_version, rec.task_id)
        if any(part is BAD for part in task):
            return
        self._task_pk(line_no, task)
        if rec.run_id is not BAD:
            self._note_run_id(line_no, rec.run_id)
        if rec.source_id is not BAD:
            self._note_source_id(line_no, rec.source_id)
        if rec.model is not BAD and rec.trial is not BAD:
            self._note_trial(line_no, task, rec.model, rec.trial)

    def _task_pk(self, line_no: int, task: tuple[str, str, str]) -> int | None:
        task_pk = self._tasks.get(task, _MISSING)
        if task_pk is _MISSING:
            task_pk = self._lookup(*task)
            if len(self._tasks) < _LOOKUP_CACHE_SIZE:
                self._tasks[task] = task_pk
        if task_pk is None:
            self._error(line_no, *self._missing_task(*task))
        return task_pk

    def _note_run_id(self, line_no: int, run_id: str) -> bool:
        key = hash(run_id)
        if key in self._run_ids:
            self._error(
                line_no, "run_id", f"duplicate run_id {run_id!r} (already used on an earlier line)"
            )
            return False
        self._run_ids.add(key)
        return True

    def _missing_task(self, suite: str, version: str, task_id: str) -> tuple[str, str]:
        # A suite the registry lacks is one cause, whatever its tasks (errors are
        # grouped by field and message), not one line per task.
        if not self._suite_known(suite, version):
            return "suite_version", f"suite {suite} {version} is not in the registry"
        return "task_id", f"task {suite} {version}/{task_id} is not in the registry or not approved"

    def _note_trial(self, line_no: int, task: tuple[str, str, str], model: str, trial: int) -> bool:
        # Two routes to one model ("anthropic/x", "vertex_ai/x") are one model at ingest.
        unprefixed = self._unprefixed.get(model)
        if unprefixed is None:
            unprefixed = model_name_unprefixed(model)
            if len(self._unprefixed) < _LOOKUP_CACHE_SIZE:
                self._unprefixed[model] = unprefixed
        key = hash((task, unprefixed, trial))
        if key in self._trials:
            suite, version, task_id = task
            self._error(
                line_no,
                "trial",
                f"duplicate run: task {suite} {version}/{task_id}, model {model!r}, trial {trial} "
                "already appears on an earlier line",
            )
            return False
        self._trials.add(key)
        return True

    def _check_trajectory(self, line_no: int, trajectory: str | list[Any]) -> bool:
        report = lambda field, message: self._error(line_no, field, message)  # noqa: E731
        if isinstance(trajectory, list):
            return validate_turns(trajectory, "trajectory", report) is not None
        path = normalize_trajectory_path(trajectory)
        if path is None:
            report(
                "trajectory",
                f"must be a path {TRAJECTORY_DIR}<name>.json inside the bundle, got {show(trajectory)}",
            )
            return False
        if not self._trajectory_exists(path):
            report("trajectory", f"{path} is not in the bundle")
            return False
        return True


class SessionValidator(_LineValidator):
    """Validates sessions.jsonl line by line (same fast/slow paths as RunValidator)."""

    record = SessionRecord
    lenient = SessionWithExtra
    specs = field_specs(SessionRecord)
    names = frozenset(name for name, *_ in specs)

    def __init__(
        self,
        errors: ErrorCollector,
        *,
        file: str = "sessions.jsonl",
        agent_lookup: AgentLookup | None = None,
    ):
        super().__init__(errors, file)
        self._session_ids: set[int] = set()
        # Without a lookup (validation alone, no registry at hand) an agent is only
        # checked for its shape; its row stays unresolved (agent_pk None).
        self._agent_lookup = agent_lookup
        self._agents: dict[tuple[str, str], int | tuple[str, str]] = {}

    def _accept(
        self, line_no: int, rec: SessionRecord, extra: dict[str, Any]
    ) -> SessionRecord | None:
        ok = self._report(line_no, turn_problems(rec.turns, "turns"))
        ok = self._note_session_id(line_no, rec.session_id) and ok
        ok = self._note_source_id(line_no, rec.source_id) and ok
        agent_pk = self._agent_pk(line_no, rec.agent)
        if not ok or agent_pk is _MISSING:
            return None
        rec.line = line_no
        rec.extra = extra
        rec.agent_pk = agent_pk
        return rec

    def _agent_pk(self, line_no: int, agent: Agent | None) -> Any:
        """The agent's Harness pk (None: no agent, or no lookup), or _MISSING after
        reporting why the registry has no such agent."""
        if agent is None or self._agent_lookup is None:
            return None
        key = (agent.harness, agent.version)
        found = self._agents.get(key)
        if found is None:
            found = self._agent_lookup(*key)
            if len(self._agents) < _LOOKUP_CACHE_SIZE:
                self._agents[key] = found
        if isinstance(found, tuple):
            self._error(line_no, *found)
            return _MISSING
        return found

    def _check_partial_relations(self, line_no: int, rec: SimpleNamespace) -> None:
        if rec.turns is not BAD:
            self._report(line_no, turn_problems(rec.turns, "turns"))
        if rec.session_id is not BAD:
            self._note_session_id(line_no, rec.session_id)
        if rec.source_id is not BAD:
            self._note_source_id(line_no, rec.source_id)

    def _note_session_id(self, line_no: int, session_id: str) -> bool:
        key = hash(session_id)
        if key in self._session_ids:
            message = f"duplicate session_id {session_id!r} (already used on an earlier line)"
            self._error(line_no, "session_id", message)
            return False
        self._session_ids.add(key)
        return True
