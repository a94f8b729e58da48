"""Display models of the board, agent and run pages: plain dataclasses the templates read.

The task grid (suite → category → task → one cell per run) and a stored trajectory as
turns and tool calls with long texts folded. Everything here is built from values the
selectors read; bundle text stays text for the template to escape, never markup.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ingestion.models import Outcome
from ingestion.traces import Call, trajectory_calls

if TYPE_CHECKING:
    from ingestion.models import Harness, LanguageModel, Submission
    from leaderboard.models import BoardEntry

# ---------------------------------------------------------------------------------
# Board page


@dataclass
class BoardTable:
    """A board's rows as asked for: ranked ones, then the unranked, and the board's size."""

    ranked: list[BoardEntry]
    unranked: list[BoardEntry]
    total: int
    # The first ranked entry of the whole board, whatever the filters.
    leader: BoardEntry | None = None

    @property
    def entries(self) -> list[BoardEntry]:
        return self.ranked + self.unranked


# ---------------------------------------------------------------------------------
# Agent page: the task grid

GRID_SYMBOLS = {
    "pass": ("✓", "pass"),
    "fail": ("✗", "fail"),
    "infra_error": ("!", "infra error"),
    "conflict": ("⊘", "conflict-excluded"),
}


@dataclass(frozen=True)
class GridCell:
    run_pk: int
    trial: int
    status: str

    @property
    def symbol(self) -> str:
        return GRID_SYMBOLS[self.status][0]

    @property
    def label(self) -> str:
        return GRID_SYMBOLS[self.status][1]


@dataclass
class TaskRow:
    task_id: str
    cells: list[GridCell]


@dataclass
class CategoryGroup:
    name: str
    tasks: list[TaskRow]


@dataclass
class SuiteGroup:
    name: str
    categories: list[CategoryGroup]
    # The suite's slug and version: its tasks' pages are /tasks/<slug>/<version>/<id>/.
    slug: str = ""
    version: str = ""


@dataclass
class AgentProfile:
    harness: Harness
    model: LanguageModel
    contributors: list
    board_rows: list[BoardEntry]
    grid: list[SuiteGroup]
    status_counts: dict[str, int]
    submissions: list[Submission]
    pass_k_entry: BoardEntry | None = None
    runs_total: int = field(default=0)
    # For an independent run: the maintainers' row of the same version, when published.
    original: Harness | None = None

    @property
    def home_url(self) -> str:
        """The harness's URL; an independent run shows the maintainers' (it has none)."""
        return self.harness.url or (self.original.url if self.original else "")


def run_status(outcome: str, conflict_excluded: bool) -> str:
    """One grid status: an infra error stays one; otherwise exclusion wins over the outcome."""
    if outcome == Outcome.INFRA_ERROR:
        return "infra_error"
    return "conflict" if conflict_excluded else outcome


# A suite as the grid names it: (title "<name> <version>", slug, version).
SuiteKey = tuple[str, str, str]
GridRow = tuple[SuiteKey, str, str, GridCell]


def group_grid(cells: Iterable[GridRow]) -> list[SuiteGroup]:
    """Nest ordered grid rows as suite → category → task → cells."""
    suites = []
    for (suite, slug, version), in_suite in itertools.groupby(cells, key=lambda row: row[0]):
        categories = []
        for category, in_category in itertools.groupby(in_suite, key=lambda row: row[1]):
            tasks = [
                TaskRow(task, [row[3] for row in in_task])
                for task, in_task in itertools.groupby(in_category, key=lambda row: row[2])
            ]
            categories.append(CategoryGroup(category, tasks))
        suites.append(SuiteGroup(suite, categories, slug, version))
    return suites


# ---------------------------------------------------------------------------------
# Run page: the trajectory

FOLD_LINES = 40


@dataclass(frozen=True)
class FoldedText:
    """Text shown up to FOLD_LINES lines, the rest behind a "show all" disclosure."""

    head: str
    rest: str
    lines: int

    @property
    def folded(self) -> bool:
        return bool(self.rest)


def fold(text: str | None, limit: int = FOLD_LINES) -> FoldedText | None:
    if text is None or text == "":
        return None
    lines = text.splitlines()
    return FoldedText("\n".join(lines[:limit]), "\n".join(lines[limit:]), len(lines))


@dataclass(frozen=True)
class ToolCallView:
    # Its place among the run's calls (0-based), as the trace's alignment counts them
    # (ingestion.traces.calls); None for a call the trace does not count (one in a tool
    # turn, or without a tool name).
    position: int | None
    tool: str
    command: FoldedText | None
    arguments: FoldedText | None
    exit_code: int | None
    output: FoldedText | None
    # Failed by the trace's rule without an exit code: its answer began "Error".
    answered_error: bool = False

    @property
    def failed(self) -> bool:
        return self.exit_code not in (None, 0)


KNOWN_ROLES = frozenset({"user", "assistant", "tool", "system"})


@dataclass(frozen=True)
class TurnView:
    role: str
    text: FoldedText | None
    tool_calls: list[ToolCallView]

    @property
    def role_class(self) -> str:
        """A CSS class from a fixed set: the role itself is bundle text."""
        return self.role if self.role in KNOWN_ROLES else "other"


def trajectory_turns(raw: Any) -> list[TurnView] | None:
    """A stored trajectory as turns to display; None when there is none to show.

    Bundles are validated at ingest, but this reads defensively anyway: whatever the
    JSON holds becomes text for the template to escape, never markup.
    """
    if not isinstance(raw, list):
        return None
    # Positions and failures as the trace reads them (ingestion.traces.calls), so the
    # page's call numbers are the alignment's and the rules'; a call the trace does not
    # count (in a tool turn, or without a tool name) gets no number.
    traced = {(call.turn, call.slot): call for call in trajectory_calls(raw)}
    return [
        _turn_view(index, turn, traced) for index, turn in enumerate(raw) if isinstance(turn, dict)
    ]


def _turn_view(index: int, turn: dict, traced: dict[tuple[int, int], Call]) -> TurnView:
    calls = turn.get("tool_calls") if isinstance(turn.get("tool_calls"), list) else []
    return TurnView(
        role=str(turn.get("role") or "?"),
        text=fold(_as_text(turn.get("text"))),
        tool_calls=[
            _tool_call_view(call, traced.get((index, slot)))
            for slot, call in enumerate(calls)
            if isinstance(call, dict)
        ],
    )


def _tool_call_view(call: dict, traced: Call | None) -> ToolCallView:
    arguments = call.get("arguments")
    arguments = dict(arguments) if isinstance(arguments, dict) else {"arguments": arguments}
    command = arguments.pop("command", None)
    if command is not None and not isinstance(command, str):
        arguments["command"], command = command, None
    exit_code = call.get("exit_code")
    return ToolCallView(
        position=traced.position if traced is not None else None,
        answered_error=traced is not None and traced.failed,
        tool=str(call.get("tool") or "?"),
        command=fold(command),
        arguments=fold(json.dumps(arguments, indent=2, ensure_ascii=False)) if arguments else None,
        exit_code=exit_code
        if isinstance(exit_code, int) and not isinstance(exit_code, bool)
        else None,
        output=fold(_as_text(call.get("output"))),
    )


def verifier_facts(verifier: Any) -> list[tuple[str, str]]:
    """The verifier record as (key, text) pairs, name and version first."""
    if not isinstance(verifier, dict):
        return [] if verifier is None else [("verifier", _as_text(verifier) or "")]
    first = [key for key in ("name", "version") if key in verifier]
    keys = first + sorted(key for key in verifier if key not in first)
    return [(str(key), _as_text(verifier[key]) or "—") for key in keys]


def _as_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, indent=2, ensure_ascii=False)
