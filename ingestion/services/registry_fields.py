"""The fields of the registry file format (`arena-registry/1`): every table, in one place.

The checks (registry_format), `load_registry --help` and /methodology/ all read these
tables, so what a file may hold is written once.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from decimal import Decimal

from ingestion.aggregate_boards import AGGREGATE_SLUGS
from ingestion.bundles.limits import FAMILY_LENGTH, HORIZON_MODES
from ingestion.bundles.run_config import FIELDS as RUN_CONFIG_FIELDS

REGISTRY_FORMAT = "arena-registry/1"
GROUPS = AGGREGATE_SLUGS  # the aggregate boards a suite may join
GROUP_NAMES = ", ".join(f'"{group}"' for group in GROUPS)
# How a suite board's time horizons are fitted (leaderboard.methodology.time_horizon).
HORIZON_MODE_DEFAULT = HORIZON_MODES[0]
HORIZON_MODE_NAMES = ", ".join(f'"{mode}"' for mode in HORIZON_MODES)
SLUG_PATTERN = re.compile(r"^[-a-zA-Z0-9_]+$")
# LanguageModel prices are numeric(10, 4): 4 decimals, 6 digits before the point.
PRICE_DECIMALS = 4
PRICE_DIGITS = 10
PRICE_LIMIT = 10 ** (PRICE_DIGITS - PRICE_DECIMALS)
PRICE_STEP = Decimal(1).scaleb(-PRICE_DECIMALS)
_PRICE_TEXT = f", rounded to {PRICE_DECIMALS} decimals; at least 0 and below {PRICE_LIMIT}."
# A model's two legacy price fields are one period in force since always.
LEGACY_PRICE_FROM = datetime.date(1970, 1, 1)


@dataclass(frozen=True)
class Field:
    name: str
    # "string", "slug", "boolean", "strings", "groups", "price", "objects", "run_config";
    # "described" for a run configuration field, whose `described` says its type.
    kind: str
    required: bool
    meaning: str
    max_length: int | None = None
    described: str = ""

    @property
    def kind_text(self) -> str:
        if self.described:
            return self.described
        return {
            "string": "string",
            "slug": "string (letters, digits, - and _)",
            "boolean": "true or false",
            "strings": "list of strings",
            "groups": f"list of {GROUP_NAMES}",
            "price": "number or null",
            "date": "string YYYY-MM-DD",
            "objects": "list of objects",
            "run_config": "object (below) or null",
            "trajectory": "object (below)",
            "rules": "list of objects (below)",
            "references": "list of objects (below) or null",
            "minutes": "number > 0",
            "horizon_mode": f"one of {HORIZON_MODE_NAMES}",
        }[self.kind]


FILE_FIELDS = (
    Field("format", "string", True, f'Always "{REGISTRY_FORMAT}".'),
    Field("coding_categories", "strings", False, "Task categories whose tasks count on Coding."),
    Field("suites", "objects", False, "The suites, each with its tasks (below)."),
    Field("models", "objects", False, "The listed models with their aliases (below)."),
)
SUITE_FIELDS = (
    Field("slug", "slug", True, "The suite's short name, as bundles name it.", 100),
    Field("version", "string", True, "The suite version; one board per version.", 50),
    Field("name", "string", False, "Display name (default: the slug).", 200),
    Field("official", "boolean", False, "Official suites get a board (default false)."),
    Field(
        "joins",
        "groups",
        False,
        "Aggregate boards an official suite's tasks also count on: Overall, and Coding for "
        "its tasks of coding categories (default both; [] for a board of its own only).",
    ),
    Field("execution", "string", False, "Execution profile (sandbox, resources, network)."),
    Field("scoring", "string", False, "How a run is scored."),
    Field("limitations", "string", False, "Known limitations, shown on /methodology/."),
    Field(
        "standard_run_config",
        "run_config",
        False,
        "The suite's standard run configuration: a run stating another value of a field "
        "it states is non-standard; fields it leaves out are not compared (default: none).",
    ),
    Field(
        "trajectory",
        "trajectory",
        False,
        "How its runs' tool calls are read against its tasks' reference calls: which "
        "tools write, which are ignored, how each argument is compared (default: every "
        "tool reads, none ignored, every argument exact, extra arguments ignored).",
    ),
    Field(
        "rules",
        "rules",
        False,
        "Written rules every run's trace is checked against; an entry shows the count "
        "of runs that broke each, budgeted at zero (/methodology/#rules).",
    ),
    Field(
        "horizon_mode",
        "horizon_mode",
        False,
        'How its board fits time horizons (/methodology/#time-horizon): "headline" '
        '(METR\'s weights and slope penalty; default) or "cross_domain" (unweighted '
        "maximum likelihood). Aggregate boards always use headline.",
    ),
    Field("tasks", "objects", False, "The suite's tasks (below)."),
)
TRAJECTORY_FIELDS = (
    Field("write_tools", "strings", False, "Tools that change state (the write-only figures)."),
    Field(
        "ignored_tools",
        "strings",
        False,
        "Tools left out of every trajectory figure, such as a scratchpad `think`.",
    ),
    Field(
        "arguments",
        "described",
        False,
        "How arguments are compared: {default, by_name: {argument: rule}, by_tool: {tool: "
        '{argument: rule}}}, a rule being "exact", "ignored", "normalised" or '
        '{"tolerance": number}; by_tool beats by_name beats default ("exact").',
        described="object",
    ),
    Field(
        "extra_arguments",
        "described",
        False,
        'Arguments a call passes that its reference call lacks: "ignored" (default) or '
        '"counted" (the call then does not match).',
        described='"ignored" or "counted"',
    ),
)
RULE_FIELDS = (
    Field("id", "slug", True, "The rule's short name, unique in its suite.", 100),
    Field("title", "string", True, "What the rule asks, in one sentence.", 200),
    Field(
        "kind",
        "described",
        True,
        "forbidden_tool {tools}, required_before {tool, before}, max_calls {tools, max}, "
        "max_calls_per_turn {max} or argument_schema {tool, schema (JSON Schema)}.",
        described="string",
    ),
    Field("source", "string", False, "The written policy the rule comes from.", 1000),
)
# A suite's standard_run_config holds the fields of a bundle's run_config (bundle format).
RUN_CONFIG_TABLE = tuple(
    Field(f.name, "described", False, f.meaning[0].upper() + f.meaning[1:] + ".", described=f.kind)
    for f in RUN_CONFIG_FIELDS
)
TASK_FIELDS = (
    Field("task_id", "string", True, "The task's id within its suite.", 200),
    Field("category", "slug", True, "The task's category; coding categories join Coding.", 100),
    Field("approved", "boolean", False, "Runs of unapproved tasks count nowhere (default true)."),
    Field(
        "authors", "strings", False, "Handles of the task's authors (conflict of interest).", 100
    ),
    Field(
        "published",
        "date",
        False,
        "When the task was first published: an entry's pass rate on the tasks published "
        "after its model's knowledge cutoff is shown beside its headline.",
    ),
    Field(
        "reference_calls",
        "references",
        False,
        "The calls a correct run makes, in order: {tool, arguments, write (default: the "
        "suite's write_tools)}; its runs get the trajectory figures ([] expects no call). "
        "Left out, the stored calls stay; null removes them.",
    ),
    Field(
        "human_minutes",
        "minutes",
        False,
        "How long the task takes a skilled human, in minutes (a finite number above 0): "
        "its board's entries get a time horizon from the tasks that have one.",
    ),
    Field(
        "family",
        "string",
        False,
        "The task's family for the time horizon's weights and bootstrap (tasks of one "
        "family count less each; default: its category).",
        FAMILY_LENGTH,
    ),
)
MODEL_FIELDS = (
    Field("name", "string", True, "The canonical model name boards show.", 200),
    Field("provider", "string", False, "Who serves the model (anthropic, openai, …).", 100),
    Field("organisation", "string", False, "Who made the model (Anthropic, Meta, …).", 100),
    Field(
        "open_weights",
        "boolean",
        False,
        "Whether its weights are published (boards filter on it; default: not known).",
    ),
    Field("release_date", "date", False, "When the model was released (boards filter on it)."),
    Field(
        "knowledge_cutoff",
        "date",
        False,
        "The last date of its training data, as its maker states it.",
    ),
    Field(
        "aliases",
        "strings",
        False,
        "Other spellings files use (anthropic/claude-opus-4-6); none may be another "
        "model's name or alias.",
        200,
    ),
    Field(
        "input_price_per_mtok", "price", False, f"US dollars per million input tokens{_PRICE_TEXT}"
    ),
    Field(
        "output_price_per_mtok",
        "price",
        False,
        f"US dollars per million output tokens{_PRICE_TEXT}",
    ),
    Field(
        "prices",
        "objects",
        False,
        "The model's price history (below), which replaces the stored one; without it, "
        "the two fields above are one period in force since always.",
    ),
)
PRICE_FIELDS = (
    Field(
        "effective_from",
        "date",
        True,
        "The UTC date from which these prices apply, until the next period's; a run is "
        "priced with the period in force on its start date (else its upload date).",
    ),
    Field("input_price_per_mtok", "price", False, f"Dollars per million input tokens{_PRICE_TEXT}"),
    Field(
        "output_price_per_mtok", "price", False, f"Dollars per million output tokens{_PRICE_TEXT}"
    ),
    Field(
        "cached_input_price_per_mtok",
        "price",
        False,
        "Dollars per million input tokens read from the cache (runs' tokens.cached, part "
        "of their input); default the input price.",
    ),
)
FIELD_TABLES = (
    ("The file", FILE_FIELDS),
    ("A suite", SUITE_FIELDS),
    ("A standard_run_config (a bundle's run_config alike)", RUN_CONFIG_TABLE),
    ("A suite's trajectory", TRAJECTORY_FIELDS),
    ("A suite's rule (rules)", RULE_FIELDS),
    ("A task", TASK_FIELDS),
    ("A model", MODEL_FIELDS),
    ("A model's price period (prices)", PRICE_FIELDS),
)
