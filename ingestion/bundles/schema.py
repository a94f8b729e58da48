"""The records of `arena-bundle/1` as msgspec Structs: types, ranges and lengths.

Every bound comes from limits.py. Both validation paths (the fast typed decode and
the slow field-by-field diagnosis) take their rules from these definitions, so they
cannot disagree.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from msgspec import UNSET, Meta, Struct, UnsetType

from ingestion.bundles import limits
from ingestion.bundles.limits import (
    Confirmation,
    InfraError,
    Label,
    Outcome,
    ReasoningEffort,
    Role,
    Scenario,
    Selection,
    Selector,
    StepUnit,
)

FORMAT = "arena-bundle/1"
TRAJECTORY_DIR = "trajectories/"

# ---------------------------------------------------------------- field types

RunId = Annotated[
    str, Meta(min_length=1, max_length=limits.RUN_ID_LENGTH, pattern=limits.RUN_ID_PATTERN)
]
SourceId = Annotated[str, Meta(min_length=1, max_length=limits.SOURCE_ID_LENGTH)]
ModelName = Annotated[
    str,
    Meta(min_length=1, max_length=limits.MODEL_NAME_LENGTH, pattern=limits.MODEL_NAME_PATTERN),
]
SessionId = Annotated[str, Meta(min_length=1, max_length=limits.SESSION_ID_LENGTH)]
HarnessName = Annotated[
    str,
    Meta(min_length=1, max_length=limits.HARNESS_NAME_LENGTH, pattern=limits.HARNESS_NAME_PATTERN),
]
HarnessVersion = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=limits.HARNESS_VERSION_LENGTH,
        pattern=limits.HARNESS_VERSION_PATTERN,
    ),
]
HarnessUrl = Annotated[
    str, Meta(max_length=limits.HARNESS_URL_LENGTH, pattern=limits.HARNESS_URL_PATTERN)
]
Handle = Annotated[
    str, Meta(min_length=1, max_length=limits.HANDLE_LENGTH, pattern=limits.HANDLE_PATTERN)
]
Username = Annotated[
    str, Meta(min_length=1, max_length=limits.USERNAME_LENGTH, pattern=limits.USERNAME_PATTERN)
]
ToolName = Annotated[str, Meta(min_length=1, max_length=limits.TOOL_NAME_LENGTH)]
NonEmpty = Annotated[str, Meta(min_length=1)]
T = TypeVar("T")
People = Annotated[list[T], Meta(max_length=limits.HARNESS_PEOPLE_MAX)]
Count = Annotated[int, Meta(ge=0, le=limits.COUNT_MAX)]
TokenCount = Annotated[int, Meta(ge=0, le=limits.TOKENS_MAX)]
Milliseconds = Annotated[int, Meta(ge=0, le=limits.TTFT_MS_MAX)]
Trial = Annotated[int, Meta(ge=1, le=limits.TRIAL_MAX)]
CheckpointCount = Annotated[int, Meta(ge=0, le=limits.CHECKPOINTS_MAX)]
CheckpointTotal = Annotated[int, Meta(ge=1, le=limits.CHECKPOINTS_MAX)]
ExitCode = Annotated[int, Meta(ge=limits.INT32_MIN, le=limits.INT32_MAX)]
Usd = Annotated[float, Meta(ge=limits.COST_MIN, le=limits.COST_MAX)]
AwareDatetime = Annotated[datetime, Meta(tz=True)]
StepLimit = Annotated[int, Meta(ge=1, le=limits.STEP_LIMIT_MAX)]
Seconds = Annotated[float, Meta(gt=0, le=limits.TIME_LIMIT_MAX_S)]
Multiplier = Annotated[float, Meta(gt=0, le=limits.TIMEOUT_MULTIPLIER_MAX)]
TrialsPerTask = Annotated[int, Meta(ge=1, le=limits.TRIALS_MAX)]
BestOf = Annotated[int, Meta(ge=limits.BEST_OF_MIN, le=limits.BEST_OF_MAX)]
Temperature = Annotated[float, Meta(ge=0, le=limits.TEMPERATURE_MAX)]
Seed = Annotated[int, Meta(ge=0, le=limits.SEED_MAX)]
SimulatorModel = Annotated[str, Meta(min_length=1, max_length=limits.RUN_CONFIG_MODEL_LENGTH)]


# ------------------------------------------------------------------ structures
# Nested objects ignore unknown keys (only top-level unknown fields are kept, in
# `extra`). Structs holding only scalars skip the garbage collector (gc=False).


class Tokens(Struct, frozen=True, gc=False, forbid_unknown_fields=True):
    """A misspelt count (`cache` for `cached`) must not pass for an unstated one."""

    input: TokenCount
    output: TokenCount
    cached: TokenCount | None = None


class Checkpoints(Struct, frozen=True, gc=False):
    passed: CheckpointCount
    total: CheckpointTotal


class ToolCall(Struct, frozen=True):
    tool: ToolName
    arguments: dict[str, Any] = {}
    exit_code: ExitCode | None = None


class Turn(Struct, frozen=True):
    """One turn of a session or trajectory.

    A user turn's labels are a set: `labels` (a list of names, empty for "none of
    them") or the legacy `label` (one name, or null for "none of them"); giving both
    is an error (documents.turn_problems). Neither key: the signal extractor labels
    the turn later.
    """

    role: Role
    text: str | None = None
    label: Label | None | UnsetType = UNSET
    labels: list[Label] | UnsetType = UNSET
    tool_calls: list[ToolCall] = []

    @property
    def label_present(self) -> bool:
        return self.label is not UNSET or self.labels is not UNSET

    @property
    def label_set(self) -> list[str]:
        """The turn's labels without repeats, in the table's order (empty: none, or absent)."""
        given = self.labels if self.labels is not UNSET else [self.label]
        return [name for name in limits.LABELS if name in given]


class ToolSpec(Struct, frozen=True):
    name: ToolName
    kind: str | None = None
    parameters: dict[str, Any] | None = None


class RunRecord(Struct, forbid_unknown_fields=True, dict=True):
    """One line of runs.jsonl, validated.

    Besides the fields of the format, each record carries (as plain attributes, not
    Struct fields, so a JSON key of the same name can never set them):
      line:    1-based line number (item number for a JSON document)
      extra:   unknown top-level fields, kept as they were
      task_pk: what `task_lookup` returned for (suite, suite_version, task_id)

    `trajectory` is None, a path inside the bundle (str), or an inline list of turns
    as plain JSON objects (validated, unknown keys kept).
    """

    run_id: RunId
    suite: NonEmpty
    suite_version: NonEmpty
    task_id: NonEmpty
    model: ModelName
    trial: Trial
    outcome: Outcome
    infra_error: InfraError | None = None
    cost_usd: Usd | None = None
    tokens: Tokens | None = None
    steps: Count | None = None
    tool_calls: Count | None = None
    ttft_ms: Milliseconds | None = None
    started_at: AwareDatetime | None = None
    finished_at: AwareDatetime | None = None
    checkpoints: Checkpoints | None = None
    verifier: dict[str, Any] | None = None
    trajectory: str | list[dict[str, Any]] | None = None
    source_id: SourceId | None = None

    if TYPE_CHECKING:  # set after decoding (see above); not Struct fields
        line: int
        extra: dict[str, Any]
        task_pk: int


class Agent(Struct, frozen=True, gc=False):
    """The agent a session ran: a registered harness (by name) at one of its versions."""

    harness: HarnessName
    version: HarnessVersion


class SessionRecord(Struct, forbid_unknown_fields=True, dict=True):
    """One line of sessions.jsonl, validated. Also carries `line`, `extra` and
    `agent_pk` (the Harness row `agent` names, from the validator's lookup; None
    without an agent)."""

    session_id: SessionId
    model: ModelName
    turns: list[Turn]
    scenario: Scenario | None = None
    user: str | None = None
    confirmation: Confirmation | None = None
    toolset: list[ToolName | ToolSpec] | None = None
    source_id: SourceId | None = None
    agent: Agent | None = None

    if TYPE_CHECKING:  # set after decoding; not Struct fields
        line: int
        extra: dict[str, Any]
        agent_pk: int | None


# The same fields, tolerant of unknown keys: used only for lines that have some.
class RunWithExtra(RunRecord, forbid_unknown_fields=False):
    pass


class SessionWithExtra(SessionRecord, forbid_unknown_fields=False):
    pass


class UserSimulator(Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """The simulated user of a conversational suite (τ-bench, τ²-bench)."""

    model: SimulatorModel
    temperature: Temperature | None = None


class RunConfig(Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """How the runs were made (docs/bundle-format.md, "run_config"); every field is
    optional, an absent one is simply not stated. Unknown keys are errors (a typo
    must not pass for an unstated setting): run_config.parse_run_config."""

    step_limit: StepLimit | None = None
    step_unit: StepUnit | None = None
    time_limit_s: Seconds | None = None
    timeout_multiplier: Multiplier | None = None
    trials: TrialsPerTask | None = None
    selection: Selection | None = None
    best_of: BestOf | None = None
    selector: Selector | None = None
    temperature: Temperature | None = None
    reasoning_effort: ReasoningEffort | None = None
    internet: bool | None = None
    hints: bool | None = None
    user_simulator: UserSimulator | None = None
    seed: Seed | None = None


class HarnessFields(Struct):
    name: HarnessName
    version: HarnessVersion
    contributors: People[Handle] = []
    minimal_baseline: bool = False
    url: HarnessUrl | None = None
    # Accounts (usernames) who may publish and change this harness besides its owner;
    # absent means unchanged. Accepted only from the owner or a maintainer.
    maintainers: People[Username] | None = None


class Harness(HarnessFields, frozen=True):
    extra: dict[str, Any] = {}


class ManifestFields(Struct):
    format: str
    created_at: AwareDatetime | None = None
    notes: str | None = None
    source: dict[str, Any] | None = None


class Manifest(Struct, frozen=True):
    format: str
    harness: Harness | None = None
    created_at: datetime | None = None
    notes: str | None = None
    source: dict[str, Any] | None = None
    # Always an object ({} when the manifest states none): Submission.run_config.
    run_config: RunConfig = RunConfig()
    extra: dict[str, Any] = {}


def normalize_trajectory_path(path: str) -> str | None:
    """`trajectories/<name>.json` (a leading ./ is dropped), or None if not such a path."""
    path = path.removeprefix("./")
    name = path.removeprefix(TRAJECTORY_DIR)
    if name == path or not name.endswith(".json") or len(name) <= len(".json"):
        return None
    if "\\" in name or "\0" in name or any(part in ("", ".", "..") for part in name.split("/")):
        return None
    return path
