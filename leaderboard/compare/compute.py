"""A comparison from a query: parse it, read what it needs, and call the statistics.

benchmark_comparison: two agents on one board's shared tasks (methodology.paired).
signal_comparison: two models on the composite signal board (methodology.two_sample).
Both raise CompareError, with a message for the visitor, for whatever they cannot
compare (a missing or malformed parameter, an agent not on the board, the same agent
twice, no shared tasks): the page shows it beside the form, the API answers 400.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from leaderboard.agent_keys import AgentRef, entry_ref, parse_agent_key
from leaderboard.boards.selectors import current_boards, pick_board
from leaderboard.compare import selectors
from leaderboard.compare.trajectories import FigureDifference, trajectory_differences
from leaderboard.methodology import paired, two_sample
from leaderboard.methodology.bootstrap import bootstrap_seed
from leaderboard.models import Board, BoardEntry, SignalEntry
from leaderboard.presentation.signals import p_value


class CompareError(ValueError):
    """What the visitor asked cannot be compared; the message says why."""


# --- benchmark boards ------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskRow:
    suite: str
    code: str
    a_passes: int
    a_trials: int
    b_passes: int
    b_trials: int
    suite_slug: str = ""  # with the version, what the task's page is named by
    suite_version: str = ""

    @property
    def difference(self) -> float:
        return self.a_passes / self.a_trials - self.b_passes / self.b_trials


@dataclass(frozen=True)
class Side:
    ref: AgentRef
    entry: BoardEntry
    passes: int  # over the shared tasks
    trials: int
    only_tasks: int  # tasks this agent ran and the other did not


@dataclass(frozen=True)
class BenchmarkComparison:
    board: Board
    a: Side
    b: Side
    rows: list[TaskRow]  # shared tasks by suite, then task id
    result: paired.PairedResult
    verdict_text: str
    counts_text: str
    # The trajectory figures both have on shared tasks, paired by task.
    trajectory: list[FigureDifference]


def board_for(slug: str) -> tuple[Board | None, list[Board]]:
    """The current board of a slug (the headline board when none is given; None when
    unknown) and every current board: the page and the API read the same one."""
    boards = current_boards()
    return pick_board(boards, slug or None), boards


def benchmark_comparison(
    board: Board | None,
    a_key: str,
    b_key: str,
    *,
    requested: str = "",
    entries: list[BoardEntry] | None = None,
) -> BenchmarkComparison:
    """`requested` is the board slug asked for (named when unknown); `entries` the
    board's entries when the caller has read them already."""
    if board is None:
        if requested:
            raise CompareError(f"No board {requested[:200]!r} in the current snapshot.")
        raise CompareError("Pick a board of the current snapshot.")
    entries = selectors.board_entries(board) if entries is None else entries
    a_entry = _entry(entries, a_key, "A", board)
    b_entry = _entry(entries, b_key, "B", board)
    if a_entry.pk == b_entry.pk:
        raise CompareError("A and B are the same agent: pick two different agents.")
    a_trials, b_trials, tasks = selectors.agents_trials(board.slug, a_entry, b_entry)
    a_map, b_map = a_trials.as_mapping(), b_trials.as_mapping()
    shared = [task for task in a_map if task in b_map]
    if not shared:
        raise CompareError(
            f"{entry_ref(a_entry).label} and {entry_ref(b_entry).label} have no counted "
            f"task in common on {board.title}: there is nothing to pair."
        )
    a_ref, b_ref = entry_ref(a_entry), entry_ref(b_entry)
    # Ordered by key text, so that A-B and B-A draw the same tasks (a mirrored interval).
    seed = bootstrap_seed(board.slug, *sorted((a_ref.text, b_ref.text)))
    result = paired.paired_comparison(a_map, b_map, seed=seed)
    rows = sorted(
        (_task_row(tasks[task], a_map[task], b_map[task]) for task in shared),
        key=lambda row: (row.suite, row.code),
    )
    a_side = _side(a_ref, a_entry, rows, len(a_map) - len(shared), "a")
    b_side = _side(b_ref, b_entry, rows, len(b_map) - len(shared), "b")
    return BenchmarkComparison(
        board=board,
        a=a_side,
        b=b_side,
        rows=rows,
        result=result,
        verdict_text=verdict_sentence(result.verdict, result.p_value, "on this board"),
        counts_text=counts_sentence(result),
        trajectory=trajectory_differences(board.slug, a_entry, b_entry, seed=seed),
    )


def _entry(entries: list[BoardEntry], key: str, side: str, board: Board) -> BoardEntry:
    if not key:
        raise CompareError(f"Pick agent {side}.")
    ref = parse_agent_key(key)
    if ref is None:
        raise CompareError(
            f"Agent {side} is not written as <harness>/<version>/<model>: {key[:200]!r}."
        )
    entry = selectors.find_entry(entries, ref)
    if entry is None:
        raise CompareError(f"Agent {side} ({ref.label}) is not on {board.title}.")
    return entry


def _task_row(info: selectors.TaskInfo, a: paired.Trials, b: paired.Trials) -> TaskRow:
    return TaskRow(
        suite=info.suite,
        code=info.code,
        a_passes=sum(passed for _, passed in a),
        a_trials=len(a),
        b_passes=sum(passed for _, passed in b),
        b_trials=len(b),
        suite_slug=info.suite_slug,
        suite_version=info.suite_version,
    )


def _side(ref: AgentRef, entry: BoardEntry, rows: list[TaskRow], only: int, which: str) -> Side:
    passes = sum(getattr(row, f"{which}_passes") for row in rows)
    trials = sum(getattr(row, f"{which}_trials") for row in rows)
    return Side(ref=ref, entry=entry, passes=passes, trials=trials, only_tasks=only)


def verdict_sentence(verdict: str, p: float | None, where: str) -> str:
    """'A is better on this board (p = 0.003)', or 'No detectable difference (p = 0.41)'."""
    shown = p_value(p)
    if verdict == paired.A_BETTER:
        return f"A is better {where} ({shown})"
    if verdict == paired.B_BETTER:
        return f"B is better {where} ({shown})"
    return f"No detectable difference ({shown})"


def counts_sentence(result: paired.PairedResult) -> str:
    """The counts the test rests on."""
    if result.test == paired.MCNEMAR and result.pairs is not None:
        pairs = result.pairs
        total = pairs.both_pass + pairs.a_only + pairs.b_only + pairs.both_fail
        return (
            f"Of {total} (task, trial) pairs, A alone passed {pairs.a_only} and B alone "
            f"passed {pairs.b_only}; both passed {pairs.both_pass}, both failed "
            f"{pairs.both_fail}."
        )
    signs = result.signs
    return (
        f"Of {result.tasks} shared tasks, A had the higher pass rate on {signs.positive}, "
        f"B on {signs.negative}, and {signs.ties} were tied (left out of the test)."
    )


def suite_groups(rows: list[TaskRow]) -> list[tuple[str, list[TaskRow]]]:
    """Rows grouped by suite, in order."""
    groups: dict[str, list[TaskRow]] = {}
    for row in rows:
        groups.setdefault(row.suite, []).append(row)
    return list(groups.items())


# --- signal boards ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SignalComparison:
    computed_at: Any
    a: SignalEntry
    b: SignalEntry
    confirmed: two_sample.Difference
    nir: two_sample.Difference
    verdict: str
    verdict_text: str
    counts_text: str


def signal_models() -> tuple[Any, list[SignalEntry]]:
    return selectors.composite_signal_entries()


def signal_comparison(
    a_model: str, b_model: str, *, models: tuple[Any, list[SignalEntry]] | None = None
) -> SignalComparison:
    """`models` is signal_models() when the caller has read it already."""
    computed_at, entries = signal_models() if models is None else models
    if not entries:
        raise CompareError("No signal board has been computed yet.")
    a = _signal_entry(entries, a_model, "A")
    b = _signal_entry(entries, b_model, "B")
    if a.pk == b.pk:
        raise CompareError("A and B are the same model: pick two different models.")
    a_x, a_n = _confirmed(a.data)
    b_x, b_n = _confirmed(b.data)
    confirmed = two_sample.proportion_difference(a_x, a_n, b_x, b_n)
    a_nir, b_nir = a.data.get("net_improvement") or {}, b.data.get("net_improvement") or {}
    nir = two_sample.estimate_difference(
        a_nir.get("value"), a_nir.get("null_sd"), b_nir.get("value"), b_nir.get("null_sd")
    )
    verdict = confirmed.verdict()
    return SignalComparison(
        computed_at=computed_at,
        a=a,
        b=b,
        confirmed=confirmed,
        nir=nir,
        verdict=verdict,
        verdict_text=verdict_sentence(verdict, confirmed.p_value, "on confirmed success"),
        counts_text=(
            f"A: {a_x} of {a_n} sessions confirmed; B: {b_x} of {b_n} (pooled score test "
            f"on the two proportions)."
        ),
    )


def _signal_entry(entries: list[SignalEntry], model: str, side: str) -> SignalEntry:
    if not model:
        raise CompareError(f"Pick model {side}.")
    found = next((entry for entry in entries if entry.model_name == model), None)
    if found is None:
        raise CompareError(f"Model {side} ({model[:200]!r}) is not on the signal board.")
    return found


def _confirmed(data: Mapping[str, Any]) -> tuple[int, int]:
    """(successes, sessions) of confirmed success; the value is stored as successes / n."""
    figure = data.get("confirmed_success") or {}
    n = int(figure.get("n") or 0)
    value = figure.get("value")
    return (round(value * n) if value is not None else 0), n
