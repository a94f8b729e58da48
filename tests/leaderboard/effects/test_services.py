"""The recompute stores each board's harness × model effects (leaderboard.effects.services)."""

from __future__ import annotations

import pytest

from leaderboard.effects.services import effects_snapshot_write
from leaderboard.models import BoardDecomposition, BoardEffect, BoardSnapshot
from leaderboard.recompute.services import boards_recompute
from tests.leaderboard.effects.builders import BOARD, grid_tasks, harness_model_grid

pytestmark = pytest.mark.django_db

GRID = {
    "Minimal": ["model-a", "model-b"],
    "Alpha": ["model-a", "model-b", "model-c"],
    "Beta": ["model-b", "model-c"],
}


def _effects(snapshot: BoardSnapshot, slug: str = BOARD) -> list[tuple]:
    rows = BoardEffect.objects.filter(board__snapshot=snapshot, board__slug=slug)
    return list(
        rows.order_by("kind", "position").values_list(
            "kind", "name", "is_reference", "tasks", "runs", "estimate", "low", "high"
        )
    )


def recompute(capture, **kwargs) -> BoardSnapshot:
    """A recompute and what it asks for on commit: the fit, run in place (eager Celery)."""
    with capture(execute=True):
        return boards_recompute(**kwargs)


def test_it_stores_effects_relative_to_the_minimal_baseline_and_the_most_run_model(
    registry, staff, django_capture_on_commit_callbacks
) -> None:
    harness_model_grid(staff, GRID, tasks=grid_tasks())
    snapshot = recompute(django_capture_on_commit_callbacks)
    fit = BoardDecomposition.objects.get(board__snapshot=snapshot, board__slug=BOARD)
    assert fit.thin_reason == ""
    assert fit.baseline_is_minimal and fit.harness_reference == "Minimal 1.0"
    assert fit.model_reference == "model-b"  # run by all three harnesses
    assert fit.tasks_fitted == 6 and fit.runs_fitted == 7 * 6 * 4
    effects = _effects(snapshot)
    harnesses = {name: row for kind, name, *row in effects if kind == "harness"}
    assert set(harnesses) == {"Minimal 1.0", "Alpha 1.0", "Beta 1.0"}
    assert harnesses["Minimal 1.0"][0] is True and harnesses["Minimal 1.0"][3] == 0.0
    _, tasks, runs, estimate, low, high = harnesses["Alpha 1.0"]
    assert (tasks, runs) == (6, 3 * 6 * 4)
    assert low < estimate < high
    assert fit.cells_fitted == 7 * 6


def test_it_fits_after_the_recompute_commits_not_inside_it(registry, staff) -> None:
    harness_model_grid(staff, GRID, tasks=grid_tasks())
    snapshot = boards_recompute()  # the test's transaction never commits: no fit ran
    assert not BoardDecomposition.objects.filter(board__snapshot=snapshot).exists()
    assert effects_snapshot_write(snapshot_id=snapshot.pk) is True
    # One decomposition per board of the snapshot, category boards included.
    boards = snapshot.boards.count()
    assert boards >= 5
    assert BoardDecomposition.objects.filter(board__snapshot=snapshot).count() == boards
    # A second fit of the same snapshot (a retried task) finds it done.
    assert effects_snapshot_write(snapshot_id=snapshot.pk) is False
    assert effects_snapshot_write(snapshot_id=snapshot.pk + 1000) is False


def test_it_fits_the_same_effects_after_an_incremental_recompute_as_after_a_full_one(
    registry, staff, django_capture_on_commit_callbacks
) -> None:
    tasks = grid_tasks()
    harness_model_grid(staff, GRID, tasks=tasks)
    recompute(django_capture_on_commit_callbacks)
    added = harness_model_grid(staff, {"Gamma": ["model-a", "model-c"]}, tasks=tasks, shift=3)
    incremental = recompute(django_capture_on_commit_callbacks, harness_ids=[added["Gamma"].pk])
    full = recompute(django_capture_on_commit_callbacks)
    assert _effects(incremental) == _effects(full)
    assert _effects(incremental, "overall") == _effects(full, "overall")
    assert any(name == "Gamma 1.0" for _, name, *_ in _effects(full))


def test_it_stores_why_a_board_is_too_thin(
    registry, staff, django_capture_on_commit_callbacks
) -> None:
    harness_model_grid(staff, {"Minimal": ["model-a"], "Alpha": ["model-a"]}, tasks=grid_tasks())
    snapshot = recompute(django_capture_on_commit_callbacks)
    fit = BoardDecomposition.objects.get(board__snapshot=snapshot, board__slug=BOARD)
    assert "same model" in fit.thin_reason
    assert all(row[5] is None for row in _effects(snapshot))
