"""τ²-bench results: one JSON object `{timestamp, info, tasks, simulations}`, as
`tau2 run` saves it (the `Results` model of tau2's data_model/simulation.py).

Each simulation (`SimulationRun`: `id`, `task_id`, `trial`, `termination_reason`,
`reward_info.reward`, `agent_cost`, `user_cost`, `start_time`, `end_time`,
`duration`, `messages`) becomes one run:

* task_id is the simulation's `task_id`; trial is its `trial` plus one (τ² counts
  trials from 0), or 1..n per task in file order when a file has none;
* the model is `info.agent_info.llm` as the file spells it; the `model` parameter
  fills in only when the file names none;
* `source_id` is `tau2-bench:<simulation id>`: the same simulation is never stored
  twice for a harness;
* cost is `agent_cost` (the user simulator's `user_cost` is the benchmark's, kept in
  the run's extra); times are `start_time`/`end_time` (τ² writes local times without
  an offset: read as UTC, both ends alike, which keeps the duration); steps, tool
  calls, tokens and the trajectory come from `messages`.

Outcome (`tau2_outcome`). τ²'s own metrics score every simulation by its reward
except `infrastructure_error` ones, which they leave out; Arena does the same except
that it leaves out only the infrastructure errors the evaluation caused:

* `infrastructure_error` is what tau2's runner records when a simulation raised
  after all its retries, with the exception's class in `info.error_type` and its
  message in `info.error`. The class decides (`crashes.crash_outcome`), never the
  message's words: when it is a model-provider client's class for a rate limit, a
  server error, an overloaded or unavailable service, an authentication failure, a
  connection error or a timeout (or an HTTP client's for a connection error or
  timeout), the agent was never measured: `infra_error` with that kind, left out as
  tau2's own metrics leave it out. A context-window overflow of the conversation
  (`ContextWindowExceededError`) is the agent's own `fail`, as for Harbor. Any
  other exception may be the agent's own code crashing (a submitted agent runs in
  the same process): it is kept as the agent's `fail` and listed by class and count
  on the submission page (`unknown_exceptions`, bounded) for a moderator to see.
* Every other termination (`user_stop`, `agent_stop`, `max_steps`,
  `too_many_errors` (too many of the agent's tool calls returned an error),
  `agent_error`, `user_error`, `timeout`, `context_window_exceeded`,
  `unexpected_error`) is an evaluated simulation: its reward decides, pass when
  reward ≥ 1 (tau2 scores a premature end 0), as tau2's `compute_metrics` does for
  its published numbers. Arena's numbers differ from them only where a file holds
  infrastructure errors of a kind not recognised as the evaluation's.
* No `reward_info` at all outside an infrastructure error: the simulation was never
  scored, `infra_error` "other" (as for a Harbor trial without reward or exception).
* Any other `termination_reason` is refused, naming the simulation: its outcome could
  not be told (an unknown enumeration value, as in a bundle).

Every converted run goes through the bundle's own rules (checks.ConvertedRecords);
the reward, `user_cost` and `duration`, which the bundle keeps only in `extra`, are
held to the same bounds (a reward within [0, 1], a cost and a duration a run may have).
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from ingestion.bundles import ErrorCollector, rejected
from ingestion.bundles.depth import too_deep
from ingestion.bundles.limits import SOURCE_ID_LENGTH
from ingestion.importers.checks import (
    ConvertedRecords,
    Cost,
    DurationSeconds,
    check_contents,
    native_reward,
    native_value,
)
from ingestion.importers.common import (
    PASS_REWARD,
    Conversion,
    NativeParams,
    Output,
    Report,
    ReportCounts,
    RunSpool,
    UniqueIds,
    capped_warnings,
    check_parameters,
    get,
    is_number,
    kind,
    manifest,
    number,
    show,
    timestamp,
    write_bundle,
)
from ingestion.importers.crashes import crash_outcome
from ingestion.importers.native_json import SURROGATE_MESSAGE, unpaired_surrogate_in_file
from ingestion.importers.run_config import run_config_resolve, with_warnings
from ingestion.importers.tau2_reading import (
    RESULTS_FILE,
    error_message,
    error_type,
    head_keys,
    layout_of,
    read_info,
    results_head,
    shared_extra,
    simulations,
    tau2_recorded_config,
    tau2_tokens,
    tau2_turns,
)
from ingestion.importers.tau_bench import spool_checked

FORMAT_NAME = "tau2-bench"
SOURCE_PREFIX = "tau2-bench:"
INFRASTRUCTURE_ERROR = "infrastructure_error"
EVALUATED_TERMINATIONS = frozenset({
    "user_stop", "agent_stop", "max_steps", "too_many_errors", "agent_error",
    "user_error", "timeout", "context_window_exceeded", "unexpected_error",
})  # fmt: skip
# The simulation field each converted run field comes from (checks.ConvertedRecords).
NATIVE_FIELDS = {
    "task_id": "task_id", "trial": "trial", "source_id": "id", "cost_usd": "agent_cost",
    "started_at": "start_time", "finished_at": "end_time",
}  # fmt: skip
_INFO_KEYS = frozenset({"num_trials", "agent_info", "user_info", "environment_info"})


def convert(
    path: Path, *, params: NativeParams, out: Output, max_document_bytes: int
) -> Conversion:
    """formats.convert_native's entry point: τ²-bench results (a results file, or a
    results folder of the dir format) into a bundle at `out`. Simulations are parsed
    one at a time (a file is never read whole), each at most `max_document_bytes`.
    Raises BundleRejected naming the file and the simulation (`simulations[i]`,
    counted from 0 as in the JSON, or its own file) of each problem."""
    check_parameters(params.harness, params.suite, params.suite_version)
    layout = layout_of(Path(path))
    if layout is None:
        raise rejected(Path(path).name, f"holds no τ²-bench {RESULTS_FILE}")
    if unpaired_surrogate_in_file(layout.results):  # the parser would write "?" instead
        raise rejected(layout.label, SURROGATE_MESSAGE)
    info = read_info(layout, max_document_bytes)
    errors = ErrorCollector()
    context = _Context(layout.label, params, errors, info)
    spool = RunSpool()
    with tempfile.TemporaryDirectory(prefix="tau2-") as spill:
        files: dict[str, bytes | Path] = {}
        try:
            for file, at, simulation in simulations(layout, max_document_bytes, errors):
                run = context.run(simulation, file, at)
                if run is None:
                    continue
                where = {"file": file, "prefix": at, "fields": NATIVE_FIELDS}
                if spool_checked(run, context.checks, spool, files, spill, **where):
                    context.sources.append(f"{file}:{at}" if at else file)
            if not spool.count and not errors:
                errors.add(layout.label, None, "simulations", "holds no simulations")
            recorded = tau2_recorded_config(info, context.seen_trials)
            config = run_config_resolve(
                recorded, params.run_config, label=layout.label, errors=errors
            )
            errors.raise_if_any()
        except BaseException:
            spool.close()
            raise
        note = f"Imported from τ²-bench results ({spool.count} runs)."
        write_bundle(out, manifest(params.harness, FORMAT_NAME, note, config), spool, files)
    report = with_warnings(context.report(), recorded.warnings)
    return Conversion(FORMAT_NAME, spool.count, tuple(context.sources), report)


def looks_like(path: Path, head: bytes) -> bool:
    """A JSON object whose top-level keys include `simulations`, or whose `info`
    describes a τ² run (`num_trials`, `agent_info`, …): `tasks` and the policy text
    in `info` often fill the first 64 KiB before `simulations` begins. A folder
    holding results.json and simulations/ (the dir format) too."""
    if path.is_dir():
        head = results_head(path)
    elif not path.is_file():
        return False
    if not head.startswith(b"{") or too_deep(head):
        return False
    top, info = head_keys(head)
    return "simulations" in top or ("info" in top and bool(info & _INFO_KEYS))


def tau2_outcome(
    termination: str | None,
    reward: float | None,
    error_class: str | None = None,
    error: str | None = None,
) -> tuple[str, str | None]:
    """(outcome, infra_error kind) of one simulation; `error_class` and `error` are
    the runner's `info.error_type` and `info.error` of an infrastructure error. See
    the module docstring for the rule."""
    if termination == INFRASTRUCTURE_ERROR:
        outcome, infra, _known = crash_outcome(error_class, error)
        return outcome, infra
    if reward is None:
        return "infra_error", "other"  # never scored
    return ("pass" if reward >= PASS_REWARD else "fail"), None


# ------------------------------------------------------------------ simulations


class _Context:
    """What applies to every simulation of one file, and what was seen so far."""

    def __init__(self, label: str, params: NativeParams, errors: ErrorCollector, info: Any) -> None:
        self.label, self.params, self.errors = label, params, errors
        self.sources: list[str] = []
        self.checks = ConvertedRecords(errors)
        self.run_ids = UniqueIds()
        self.seen_ids: dict[str, str] = {}  # where each simulation id was first seen
        self.seen_trials: dict[tuple[str, int], str] = {}
        self.untrialled: Counter[str] = Counter()
        self.unknown_errors = ReportCounts()
        self.warnings: list[str] = []
        self.model = self._model(info)
        self.shared = shared_extra(info)

    def report(self) -> dict[str, Any]:
        """Conversion.report: what was noticed without rejecting the file."""
        warnings = list(self.warnings)
        report: dict[str, Any] = {}
        if self.unknown_errors:
            report["unknown_exceptions"] = self.unknown_errors.as_dict()
        if warnings:
            report["warnings"] = capped_warnings(warnings)
        return report

    def _model(self, info: Any) -> str:
        named = get(info, ("agent_info", "llm"))
        given = (self.params.model or "").strip()
        if isinstance(named, str) and named.strip():
            if given and given != named.strip():
                self.warnings.append(
                    f"the file names the model {named.strip()!r}; "
                    f"the model parameter {given!r} was not used"
                )
            return named.strip()
        if named is not None and not isinstance(named, str):
            self.errors.add(
                self.label, None, "info.agent_info.llm", f"must be a string, not {kind(named)}"
            )
        elif not given:
            self.errors.add(
                self.label,
                None,
                "info.agent_info.llm",
                "names no model; give the model as a parameter",
            )
        return given

    def run(self, sim: Any, file: str, at: str) -> dict[str, Any] | None:
        """One simulation as a bundle run, or None after reporting what is wrong.
        `file` holds it at the JSON path `at` ("" for a file of its own)."""
        where = f"{file}:{at}" if at else file  # how other errors point at it

        def report(field: str, message: str) -> None:
            path = ".".join(part for part in (at, field) if part)
            self.errors.add(file, None, path, message)

        if not isinstance(sim, dict):
            report("", f"must be an object, not {kind(sim)}")
            return None
        before = self.errors.total
        sim_id = self._simulation_id(sim.get("id"), where, report)
        task_id = _task_id(sim.get("task_id"), report)
        trial = sim.get("trial")
        if trial is not None and (
            not isinstance(trial, int) or isinstance(trial, bool) or trial < 0
        ):
            report("trial", f"must be an integer ≥ 0 (τ² counts from 0), got {show(trial)}")
        termination = _termination(sim.get("termination_reason"), report)
        reward = _reward(sim.get("reward_info"), report)
        messages = sim.get("messages")
        if messages is not None and not isinstance(messages, list):
            report("messages", f"must be a list of messages, not {kind(messages)}")
        elif messages:
            check_contents(messages, "messages", report)
        native_value(sim.get("duration"), DurationSeconds, "duration", report)
        fields = {
            "cost_usd": number(sim, ("agent_cost",), report),
            "user_cost": native_value(sim.get("user_cost"), Cost, "user_cost", report),
            **_times(sim, report),
        }
        if self.errors.total > before or not self.model:  # no model: reported for the file
            return None
        assert sim_id is not None and task_id is not None and isinstance(termination, str)
        trial_number = self._trial(task_id, trial, where, report)
        if trial_number is None:
            return None
        return self._fields(
            sim, sim_id, task_id, trial_number, termination, reward, messages, fields
        )

    def _fields(
        self, sim: dict, sim_id: str, task_id: str, trial: int, termination: str,
        reward: float | None, messages: list | None, fields: dict[str, Any],
    ) -> dict[str, Any]:  # fmt: skip
        error_class, error = error_type(sim.get("info")), error_message(sim.get("info"))
        outcome, infra = tau2_outcome(termination, reward, error_class, error)
        if termination == INFRASTRUCTURE_ERROR and not crash_outcome(error_class, error)[2]:
            self.unknown_errors.add(error_class or "(no error type)")
        turns = tau2_turns(messages or [])
        user_cost = fields.pop("user_cost")
        extra = {
            **self.shared, "simulation_id": sim_id, "termination_reason": termination,
            "user_cost": user_cost, "duration": sim.get("duration") if is_number(sim.get("duration")) else None,
            "seed": sim.get("seed") if is_number(sim.get("seed")) else None,
            "error_type": error_class, "error": error,
        }  # fmt: skip
        domain = self.shared.get("domain")
        return {
            "run_id": self.run_ids.take(f"{domain}/{task_id}/{trial}" if domain else f"{task_id}/{trial}"),
            "suite": self.params.suite, "suite_version": self.params.suite_version,
            "task_id": task_id, "model": self.model, "trial": trial,
            "source_id": SOURCE_PREFIX + sim_id, "outcome": outcome, "infra_error": infra,
            **fields, "tokens": tau2_tokens(messages or []),
            "steps": sum(t["role"] == "assistant" for t in turns) if turns else None,
            "tool_calls": sum(len(t.get("tool_calls", ())) for t in turns) if turns else None,
            "trajectory": turns or None, "reward": reward,
            "tau2": {k: v for k, v in extra.items() if v is not None},
        }  # fmt: skip

    def _simulation_id(self, value: Any, where: str, report: Report) -> str | None:
        if not isinstance(value, str) or not value.strip():
            report("id", f"must be the simulation's id (a non-empty string), got {show(value)}")
            return None
        value = value.strip()
        if len(SOURCE_PREFIX) + len(value) > SOURCE_ID_LENGTH:
            report("id", f"is longer than {SOURCE_ID_LENGTH - len(SOURCE_PREFIX)} characters")
            return None
        first = self.seen_ids.setdefault(value, where)
        if first != where:
            report("id", f"simulation {value!r} already appears at {first}")
            return None
        return value

    def _trial(self, task_id: str, trial: int | None, where: str, report: Report) -> int | None:
        """The run's trial (1..n): τ²'s own plus one, else the next one of the task."""
        if trial is None:
            self.untrialled[task_id] += 1
            numbered = self.untrialled[task_id]
        else:
            numbered = trial + 1
        first = self.seen_trials.setdefault((task_id, numbered), where)
        if first != where:
            report("trial", f"task {task_id!r} trial {numbered - 1} already appears at {first}")
            return None
        return numbered


def _task_id(value: Any, report: Report) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    report("task_id", f"must be a task id, got {show(value)}")
    return None


def _termination(value: Any, report: Report) -> str | None:
    """One of the terminations whose outcome is known: an unknown one cannot be told
    from an infrastructure error, so it is refused like an unknown enumeration value."""
    known = (*sorted(EVALUATED_TERMINATIONS), INFRASTRUCTURE_ERROR)
    if isinstance(value, str) and value.strip() in known:
        return value.strip()
    report("termination_reason", f"must be one of {', '.join(known)} (got {show(value)})")
    return None


def _reward(reward_info: Any, report: Report) -> float | None:
    """`reward_info.reward`; None when the simulation was never scored."""
    if reward_info is None:
        return None
    if not isinstance(reward_info, dict):
        report("reward_info", f"must be an object, not {kind(reward_info)}")
        return None
    if reward_info.get("reward") is None:
        report("reward_info.reward", "is required (a number)")
    return native_reward(reward_info.get("reward"), "reward_info.reward", report)


def _times(sim: dict[str, Any], report: Report) -> dict[str, str | None]:
    """start_time/end_time as read (their bounds and order are the bundle's rules,
    checks.ConvertedRecords)."""
    started = timestamp(sim.get("start_time"), "start_time", report)
    finished = timestamp(sim.get("end_time"), "end_time", report)
    if started is None or finished is None:
        return {"started_at": None, "finished_at": None}
    return {"started_at": started.isoformat(), "finished_at": finished.isoformat()}
