"""The three layers side by side: each model's signal figures against its benchmark pass
rate, their rank correlation across models, and the moderators' label agreement.

A model is on the view when it is both a signal model (a composite row of the model
view) and the model of some entry of the Overall board. A model runs under several
harnesses on the benchmark boards while its signal figures pool every agent that ran
it, so its benchmark side pools too: the passes and counted runs (n) of all its Overall
entries not under review, with the Wilson interval of the pooled rate
(docs/decisions.md, "Cross-validation"). Spearman's ρ across the models and its
bootstrap interval come from leaderboard.methodology.rank_correlation.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from ingestion.aggregate_boards import OVERALL
from leaderboard.boards.label_agreement import label_agreement_published
from leaderboard.methodology.agreement import LabelAgreement
from leaderboard.methodology.rank_correlation import RankCorrelation, rank_correlation
from leaderboard.methodology.stats import wilson_interval
from leaderboard.models import Board, BoardEntry, SignalEntry
from leaderboard.signalboard.selectors import current_signal_entries
from leaderboard.signalboard.slices import COMPOSITE_SCOPE, SliceKind

# The signal figures set against the pass rate, in the order the view shows them.
SIGNAL_FIGURES = {
    "net_improvement": "Net improvement (NIR)",
    "confirmed_success": "Confirmed success",
}


@dataclass(frozen=True)
class BenchmarkSide:
    """A model's pooled Overall figures."""

    entries: int  # Overall entries pooled (harness versions and reproductions)
    passes: int
    n: int
    pass_rate: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True)
class ValidationRow:
    model: str
    signal: SignalEntry
    benchmark: BenchmarkSide

    def figure(self, name: str) -> dict[str, Any]:
        return self.signal.data.get(name) or {}


@dataclass(frozen=True)
class CrossValidation:
    computed_at: Any
    board_title: str
    rows: list[ValidationRow]
    correlations: dict[str, RankCorrelation]  # SIGNAL_FIGURES key -> ρ against pass rate
    agreement: LabelAgreement
    signal_only: list[str]  # signal models with no Overall entry
    benchmark_only: list[str]  # Overall models with no signal row


def cross_validation() -> CrossValidation:
    """The current snapshot's view (three queries and the label agreement's one)."""
    selection = current_signal_entries(kinds=[SliceKind.COMPOSITE], scope=COMPOSITE_SCOPE)
    signals = {entry.model_name: entry for entry in selection.entries}
    board = Board.objects.current().filter(slug=OVERALL.slug).first()
    pooled = _pooled(board)
    models = sorted(set(signals) & set(pooled), key=lambda m: signals[m].position)
    rows = [ValidationRow(model, signals[model], pooled[model]) for model in models]
    return CrossValidation(
        computed_at=selection.computed_at,
        board_title=board.title if board else OVERALL.title,
        rows=rows,
        correlations={name: _correlation(rows, name) for name in SIGNAL_FIGURES},
        agreement=label_agreement_published(),
        signal_only=sorted(set(signals) - set(pooled)),
        benchmark_only=sorted(set(pooled) - set(signals)),
    )


def _pooled(board: Board | None) -> dict[str, BenchmarkSide]:
    if board is None:
        return {}
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    entries = BoardEntry.objects.filter(board=board, under_review=False)
    for model, passes, n in entries.values_list("model_name", "passes", "n"):
        cell = counts[model]
        cell[0] += 1
        cell[1] += passes
        cell[2] += n
    return {model: _side(*cell) for model, cell in counts.items()}


def _side(entries: int, passes: int, n: int) -> BenchmarkSide:
    low, high = wilson_interval(passes, n)
    return BenchmarkSide(entries, passes, n, passes / n if n else None, low, high)


def _correlation(rows: list[ValidationRow], name: str) -> RankCorrelation:
    """ρ over the models with both figures."""
    pairs = [
        (row.benchmark.pass_rate, row.figure(name).get("value"))
        for row in rows
        if row.benchmark.pass_rate is not None and row.figure(name).get("value") is not None
    ]
    return rank_correlation(
        [x for x, _ in pairs], [y for _, y in pairs], seed_parts=("cross-validation", name)
    )
