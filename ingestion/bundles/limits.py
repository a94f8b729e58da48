"""The one table of limits and enumerations of `arena-bundle/1`.

The validators (msgspec `Meta` in schema.py), the models' field lengths, choices and
check constraints (ingestion/models.py) and the admin forms built on those models all
read these values, so a value the validator accepts always fits its column.
`tests/ingestion/test_limits.py` walks `FIELDS` and proves it for every entry.

Pure: no Django import (the models import this module, not the other way round).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal, get_args

# ------------------------------------------------------------------ enumerations
# Each Literal is the validator's type; its values are the model's choices.

Outcome = Literal["pass", "fail", "infra_error"]
InfraError = Literal["timeout", "network", "provider_crash", "other"]
Scenario = Literal["software_development", "workflow_automation", "general_assistant"]
Confirmation = Literal["yes", "no"]
Role = Literal["user", "assistant", "tool"]
# A user turn's labels are a set of these (empty: none of them); methodology §3.
Label = Literal["praise", "complaint", "correction", "urging", "iteration"]

# The run configuration (manifest `run_config`, a suite's `standard_run_config`).
StepUnit = Literal["step", "turn"]
# How the outcome published for one trial was chosen: the one attempt, or the best of
# k candidates picked by `selector` (`oracle`: the benchmark's own verifier or tests).
Selection = Literal["single", "best_of_k"]
Selector = Literal["oracle", "own_tests", "model_judge", "majority_vote", "other"]
# The providers' own words (OpenAI none…xhigh, Anthropic's effort low…max).
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]

OUTCOMES: tuple[str, ...] = get_args(Outcome)
INFRA_ERRORS: tuple[str, ...] = get_args(InfraError)
SCENARIOS: tuple[str, ...] = get_args(Scenario)
CONFIRMATIONS: tuple[str, ...] = get_args(Confirmation)
ROLES: tuple[str, ...] = get_args(Role)
LABELS: tuple[str, ...] = get_args(Label)
STEP_UNITS: tuple[str, ...] = get_args(StepUnit)
SELECTIONS: tuple[str, ...] = get_args(Selection)
SELECTORS: tuple[str, ...] = get_args(Selector)
REASONING_EFFORTS: tuple[str, ...] = get_args(ReasoningEffort)

# Allowed values by field name, for messages ("must be one of …"); the nullable ones
# say "or null" too.
CHOICES: dict[str, tuple[str, ...]] = {
    "outcome": OUTCOMES,
    "infra_error": INFRA_ERRORS,
    "scenario": SCENARIOS,
    "confirmation": CONFIRMATIONS,
    "role": ROLES,
    "label": LABELS,
    "labels": LABELS,
    "step_unit": STEP_UNITS,
    "selection": SELECTIONS,
    "selector": SELECTORS,
    "reasoning_effort": REASONING_EFFORTS,
}
# Whether a submission's results were signed by an active registered verifier.
VERIFICATIONS = ("self_reported", "verified")
VERIFICATION_LENGTH = 20
VERIFIER_NAME_LENGTH = 100
# The file inside a bundle that carries a verifier's signature (bundle-format).
VERIFICATION_FILE = "verification.json"
# How a suite board fits time horizons (leaderboard.methodology.time_horizon's modes).
HORIZON_MODES = ("headline", "cross_domain")
HORIZON_MODE_LENGTH = 20
FAMILY_LENGTH = 100

# Native formats the importers convert (ingestion.importers.formats dispatches on them).
NATIVE_FORMATS = (
    "harbor",
    "tau-bench",
    "tau2-bench",
    "claude-code",
    "agentdojo",
    "swebench",
    "task-matrix",
)
NATIVE_FORMAT_LENGTH = 20
NULLABLE_CHOICES = frozenset({"infra_error", "scenario", "confirmation", "label"})

# ------------------------------------------------------------------ text lengths
# bundle-format.md documents ≤ 100 for harness name and version and ≤ 200 for run_id
# and model; the others are the columns' own, unchanged, now enforced by the validator.

HARNESS_NAME_LENGTH = 100
HARNESS_VERSION_LENGTH = 100
HARNESS_URL_LENGTH = 500
# The spec names no bound; 100 is the column a handle has always been stored in, so
# no handle that could ever be stored is refused.
HANDLE_LENGTH = 100
# `harness.maintainers` names accounts: Django's username column and characters.
USERNAME_LENGTH = 150
USERNAME_PATTERN = r"^[\w.@+-]+$"
RUN_ID_LENGTH = 200
# A run's or session's identity in the system that produced it (Harbor's trial `id`,
# a Claude Code sessionId): the same trial never counts twice for a harness, nor the
# same session twice at all.
SOURCE_ID_LENGTH = 300
MODEL_NAME_LENGTH = 200
SESSION_ID_LENGTH = 200
TOOL_NAME_LENGTH = 200
# A trajectory figure's key (ingestion.traces.figures) and a suite rule's id.
TRACE_FIGURE_LENGTH = 40
RULE_ID_LENGTH = 100
# A run with more tool calls is checked against its suite's rules but gets no trajectory
# figures: pairing its calls with the reference grows with their product.
TRACE_CALLS_MAX = 1000
# Widths of the columns holding an enumeration (each value fits, see the test).
OUTCOME_LENGTH = 20
INFRA_ERROR_LENGTH = 20
SCENARIO_LENGTH = 30
CONFIRMATION_LENGTH = 3
ROLE_LENGTH = 10
LABEL_LENGTH = 12
# Where a user turn's labels came from (Turn.label_source; blank: not labelled yet).
LABEL_SOURCES = ("bundle", "extractor", "moderator")
LABEL_SOURCE_LENGTH = 10

# What a run_id may hold (importers make ids of these characters too).
RUN_ID_CHARS = "A-Za-z0-9._:/-"
# \Z, not $: in Python's re, $ also matches before a final newline ("r1\n").
RUN_ID_PATTERN = rf"^[{RUN_ID_CHARS}]+\Z"
# Django's own username rule, so that a contributor handle can name an account.
HANDLE_PATTERN = r"^[\w.@+-]+\Z"

# ---------------------------------------------------------------- numeric bounds
# Every number a bundle carries has an upper bound that no real run reaches, yet small
# enough that the boards' sums over millions of runs stay exact and finite: 10⁷ runs at
# the token bound add up to 2·10¹⁹ (summed as SQL numeric, never bigint), at the cost
# bound to 10¹³ dollars (a finite float). The check constraints of ingestion.Run are
# built from these same values (docs/decisions.md, "Bounds of every number").

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1  # PostgreSQL `integer`: the exit code is a process's own
TOKENS_MAX = 10**12  # per field (input, output, cached) of one run
COST_MIN = 0
COST_MAX = 10**6  # dollars for one run
COUNT_MAX = 10**7  # steps and tool calls of one run
TTFT_MS_MAX = 10 * 24 * 3600 * 1000  # ten days, in milliseconds
# Trials are never summed, and an older release let any `integer` through (the column
# is NOT NULL, so a migration could not clear one): the column's own range.
TRIAL_MAX = INT32_MAX
CHECKPOINTS_MAX = 10**6
RUN_DURATION_MAX_S = 10 * 24 * 3600  # finished_at − started_at: ten days
# Run timestamps: outside them a time is a clock or format error,
# and near year 1 or 9999 a time zone offset would move it out of what Python can read.
TIMESTAMP_MIN = datetime(2000, 1, 1, tzinfo=UTC)
TIMESTAMP_MAX = datetime(2100, 1, 1, tzinfo=UTC)
# Depth of any JSON value a bundle holds (arrays and objects inside each other). Real
# records nest a dozen levels; parsers, the jsonb column and the pages recurse per level.
JSON_DEPTH_MAX = 100

# The run configuration: past these a value is a unit or typing mistake (a time limit
# in milliseconds, a trial count of a training sweep), never a leaderboard run.
STEP_LIMIT_MAX = 100_000  # steps or turns per task
TIME_LIMIT_MAX_S = RUN_DURATION_MAX_S  # a limit longer than any run may last
TIMEOUT_MULTIPLIER_MAX = 100.0  # Harbor scales each task's own limit by it
TRIALS_MAX = 100  # trials per task
BEST_OF_MIN, BEST_OF_MAX = 2, 100  # candidates a best-of-k selection picks from
TEMPERATURE_MAX = 2.0  # the providers' own ceiling
SEED_MAX = 2**63 - 1
RUN_CONFIG_MODEL_LENGTH = MODEL_NAME_LENGTH  # the user simulator's model

# -------------------------------------------------------------- native values
# What native results carry beside the bundle's fields, bounded like them: a reward
# is judged on [0, 1] (1 is a pass); outside it a value is a different scale or a
# corrupt file, never a score the boards could read.
REWARD_MIN = 0.0
REWARD_MAX = 1.0

# ------------------------------------------- manifest text and archive structure
# What a manifest may name, and what an archive may be built of: a harness URL is a
# link on public pages, a name or version is a path segment of agent URLs, and a
# contributor is a row of its own.

# Contributors (and maintainers) one manifest may name; each is a person or account.
HARNESS_PEOPLE_MAX = 100
# A harness name: printable text, not blank, no space at either end, and no empty,
# "." or ".." segment between "/" ("Team/Agent" is fine, "a/../b" is not).
_NO_DOT_SEGMENT = r"(?!(?:.*/)?\.{0,2}(?:/|\Z))"
# What no name may hold: control characters, line and paragraph separators, and the
# invisible format characters (zero-width, bidirectional overrides, byte-order mark,
# tags), with which a name could look blank or read as another's.
_UNSHOWN = (
    r"\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f"
    r"\ufeff\ufff9-\ufffb\U000e0000-\U000e007f"
)
HARNESS_NAME_PATTERN = rf"^(?!\s)(?!.*\s\Z){_NO_DOT_SEGMENT}[^{_UNSHOWN}]+\Z"
# A model name is shown and linked as a harness name is: the same rule.
MODEL_NAME_PATTERN = HARNESS_NAME_PATTERN
# A version: the characters of release names (1.2.0-rc1+build.5, release/2.1, v2@sha).
HARNESS_VERSION_CHARS = "A-Za-z0-9._+:~@/-"
HARNESS_VERSION_PATTERN = rf"^{_NO_DOT_SEGMENT}[{HARNESS_VERSION_CHARS}]+\Z"
# A harness URL is a web page: http or https with a host, no spaces or control characters.
HARNESS_URL_PATTERN = (
    r"^(?:[Hh][Tt][Tt][Pp][Ss]?://[^\s\x00-\x1f\x7f/?#]+(?:[/?#][^\s\x00-\x1f\x7f]*)?)?\Z"
)
# Compression methods a zip member may use (those Python's zipfile reads).
ZIP_METHODS = {0: "stored", 8: "deflate", 12: "bzip2", 14: "lzma"}
# The compression ratio (max_compression_ratio) is judged only past this many inflated
# bytes, of one member or of the whole upload: a 6 MB session of 200,000 short turns
# compresses 400:1 and is honest; a bomb is not a bomb below it.
RATIO_FLOOR_BYTES = 64 * 1024**2

# ------------------------------------------------------------------------ errors

MAX_REPORTED_ERRORS = 200  # errors kept per submission; all of them are counted


# ------------------------------------------------------------------------- table


@dataclass(frozen=True)
class Bound:
    """The rule one bundle field obeys, and the column (`Model.field`) that stores it."""

    column: str
    max_length: int | None = None
    ge: int | None = None
    le: int | None = None
    choices: tuple[str, ...] = ()


# Bundle field (as errors name it, `[]` for any list item) → its bound. Every field
# that reaches a column with a length, a range or choices is here; the rest go to
# text or jsonb columns (turn text, verifier, extra, …) or are only looked up
# (suite, suite_version, task_id: a value too long is simply not in the registry).
FIELDS: dict[str, Bound] = {
    "manifest.harness.name": Bound("Harness.name", max_length=HARNESS_NAME_LENGTH),
    "manifest.harness.version": Bound("Harness.version", max_length=HARNESS_VERSION_LENGTH),
    "manifest.harness.url": Bound("Harness.url", max_length=HARNESS_URL_LENGTH),
    "manifest.harness.contributors[]": Bound("Person.handle", max_length=HANDLE_LENGTH),
    "runs.run_id": Bound("Run.run_id", max_length=RUN_ID_LENGTH),
    "runs.source_id": Bound("Run.source_key", max_length=SOURCE_ID_LENGTH),
    "runs.model": Bound("LanguageModel.name", max_length=MODEL_NAME_LENGTH),
    "runs.trial": Bound("Run.trial", ge=1, le=TRIAL_MAX),
    "runs.outcome": Bound("Run.outcome", max_length=OUTCOME_LENGTH, choices=OUTCOMES),
    "runs.infra_error": Bound(
        "Run.infra_error", max_length=INFRA_ERROR_LENGTH, choices=INFRA_ERRORS
    ),
    "runs.cost_usd": Bound("Run.cost_usd", ge=COST_MIN, le=COST_MAX),
    "runs.tokens.input": Bound("Run.tokens_input", ge=0, le=TOKENS_MAX),
    "runs.tokens.output": Bound("Run.tokens_output", ge=0, le=TOKENS_MAX),
    "runs.tokens.cached": Bound("Run.tokens_cached", ge=0, le=TOKENS_MAX),
    "runs.steps": Bound("Run.steps", ge=0, le=COUNT_MAX),
    "runs.tool_calls": Bound("Run.tool_calls", ge=0, le=COUNT_MAX),
    "runs.ttft_ms": Bound("Run.ttft_ms", ge=0, le=TTFT_MS_MAX),
    "runs.checkpoints.passed": Bound("Run.checkpoints_passed", ge=0, le=CHECKPOINTS_MAX),
    "runs.checkpoints.total": Bound("Run.checkpoints_total", ge=1, le=CHECKPOINTS_MAX),
    "sessions.session_id": Bound("Session.session_id", max_length=SESSION_ID_LENGTH),
    "sessions.model": Bound("LanguageModel.name", max_length=MODEL_NAME_LENGTH),
    "sessions.source_id": Bound("Session.source_key", max_length=SOURCE_ID_LENGTH),
    # The agent a session ran: a registered harness name and one of its versions.
    "sessions.agent.harness": Bound("Harness.name", max_length=HARNESS_NAME_LENGTH),
    "sessions.agent.version": Bound("Harness.version", max_length=HARNESS_VERSION_LENGTH),
    "sessions.scenario": Bound("Session.scenario", max_length=SCENARIO_LENGTH, choices=SCENARIOS),
    "sessions.confirmation": Bound(
        "Session.confirmation", max_length=CONFIRMATION_LENGTH, choices=CONFIRMATIONS
    ),
    "sessions.turns[].role": Bound("Turn.role", max_length=ROLE_LENGTH, choices=ROLES),
    # The legacy one-label form and the set; both are stored as the set Turn.labels.
    "sessions.turns[].label": Bound("Turn.labels", max_length=LABEL_LENGTH, choices=LABELS),
    "sessions.turns[].labels[]": Bound("Turn.labels", max_length=LABEL_LENGTH, choices=LABELS),
    "sessions.turns[].tool_calls[].tool": Bound("ToolCall.tool", max_length=TOOL_NAME_LENGTH),
    "sessions.turns[].tool_calls[].exit_code": Bound(
        "ToolCall.exit_code", ge=INT32_MIN, le=INT32_MAX
    ),
}


# ----------------------------------------------------------------- bundle limits


@dataclass(frozen=True)
class BundleLimits:
    """Limits of one upload (settings ARENA_MAX_* override the defaults)."""

    max_upload_bytes: int = 200 * 1024**2
    max_uncompressed_bytes: int = 2 * 1024**3
    max_members: int = 100_000
    max_compression_ratio: float = 100.0
    max_line_bytes: int = 10 * 1024**2  # also the cap for one JSON document
    # Below this many inflated bytes the ratio is not judged (honest repetitive text).
    ratio_floor_bytes: int = RATIO_FLOOR_BYTES
