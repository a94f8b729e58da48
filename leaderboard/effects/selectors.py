"""Reads of the harness × model effects of a current board (two queries)."""

from __future__ import annotations

from dataclasses import dataclass, field

from leaderboard.models import Board, BoardDecomposition, BoardEffect, EffectKind

METHOD = (
    "logit P(pass) = intercept + harness + model + task (task fixed effects), binomial "
    "maximum likelihood on counted runs per (harness, model, task); effects are log-odds "
    "differences from the reference with 95% Wald intervals (estimate ± 1.96 SE)"
)


@dataclass(frozen=True)
class BoardEffects:
    board: Board
    # None for a snapshot written before effects were fitted.
    fit: BoardDecomposition | None
    harnesses: list[BoardEffect] = field(default_factory=list)
    models: list[BoardEffect] = field(default_factory=list)

    model = METHOD

    @property
    def fitted_at(self):
        """When the snapshot the effects were fitted on was computed (None: not yet)."""
        return self.fit.board.snapshot.computed_at if self.fit else None

    @property
    def from_earlier_snapshot(self) -> bool:
        """True while the current snapshot's own fit is still running."""
        return self.fit is not None and self.fit.board_id != self.board.pk

    @property
    def thin_reason(self) -> str | None:
        """Why the board's design is too thin to separate harness and model, or None."""
        if self.fit is None:
            return (
                "not fitted yet: the effects are fitted shortly after each recompute of the boards"
            )
        return self.fit.thin_reason or None

    # The fit's bookkeeping, None before the first fit (the API's fields).
    @property
    def harness_reference(self) -> str | None:
        return self.fit.harness_reference or None if self.fit else None

    @property
    def baseline_is_minimal(self) -> bool:
        return bool(self.fit and self.fit.baseline_is_minimal)

    @property
    def model_reference(self) -> str | None:
        return self.fit.model_reference or None if self.fit else None

    @property
    def tasks_fitted(self) -> int:
        return self.fit.tasks_fitted if self.fit else 0

    @property
    def tasks_uninformative(self) -> int:
        return self.fit.tasks_uninformative if self.fit else 0

    @property
    def runs_fitted(self) -> int:
        return self.fit.runs_fitted if self.fit else 0


def board_fitted(board: Board) -> bool:
    """Whether this board's own fit is done (part of the page's cache key: the page of
    a snapshot whose fit is still running must not be cached as that snapshot's)."""
    return BoardDecomposition.objects.filter(board=board).exists()


def board_effects(board: Board) -> BoardEffects:
    """The effects fitted for this board, or, while the fit of its snapshot is still
    running (it follows each recompute), those of the latest earlier snapshot."""
    fit = (
        BoardDecomposition.objects.filter(
            board__slug=board.slug, board__snapshot__computed_at__lte=board.snapshot.computed_at
        )
        .select_related("board__snapshot")
        .order_by("-board__snapshot__computed_at")
        .first()
    )
    fitted_board = fit.board if fit else board
    effects = list(BoardEffect.objects.filter(board=fitted_board).order_by("kind", "position"))
    return BoardEffects(
        board=board,
        fit=fit,
        harnesses=[e for e in effects if e.kind == EffectKind.HARNESS],
        models=[e for e in effects if e.kind == EffectKind.MODEL],
    )
