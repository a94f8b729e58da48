"""An entry's time horizon at recompute: from its counted runs on the tasks with human
minutes, in its board's mode, seeded by its identity; degenerate fits stored as null
with their reason, never as an infinity."""

from __future__ import annotations

import math

import pytest
from django.db import connection

from ingestion.models import Harness, Suite
from ingestion.services.registry import registry_load
from leaderboard.boards.horizons import HORIZON_DRAWS, HORIZON_KEYS, horizon_seed
from leaderboard.methodology.time_horizon import headline_weights, horizon_fit
from leaderboard.methodology.time_horizon_bootstrap import HorizonRun, horizon_interval
from leaderboard.models import BoardEntry
from leaderboard.recompute.services import boards_recompute
from tests.builders import outcomes, submit
from tests.ingestion.services.registry_builders import a_registry, a_suite, a_task

pytestmark = pytest.mark.django_db(transaction=True)

SUITE = {"suite": "horizon-bench", "suite_version": "1.0.0"}
BOARD = "horizon-bench-1.0.0"
TASKS = [
    a_task("short", human_minutes=2, family="parsing", authors=[]),
    a_task("mid", human_minutes=16, family="parsing", authors=[]),
    a_task("long", human_minutes=128, family="systems", authors=[]),
    a_task("unmeasured", authors=[]),
]
# Agent A's counted runs on the tasks with minutes: (minutes, family, successes).
A_RUNS = [
    ("short", 2.0, "parsing", [1, 1, 0]),
    ("mid", 16.0, "parsing", [1, 0]),
    ("long", 128.0, "systems", [0, 0]),
]


def runs(task: str, *results: str, model: str = "m") -> list[dict]:
    return outcomes(*results, task=task, model=model, **SUITE)


@pytest.fixture
def horizons(submitter) -> dict[tuple[str, str], BoardEntry]:
    registry_load(
        data=a_registry([a_suite("horizon-bench", horizon_mode="cross_domain", tasks=TASKS)])
    )
    a = runs("short", "pass", "pass", "fail") + runs("mid", "pass", "fail")
    # An infra error and a task without minutes count for no horizon.
    a += runs("long", "fail", "fail", "timeout") + runs("unmeasured", "pass", "pass")
    submit(submitter, a, harness="A")
    submit(submitter, runs("short", "pass", "pass") + runs("mid", "pass"), harness="AllPass")
    submit(submitter, runs("short", "fail") + runs("mid", "fail", "fail"), harness="AllFail")
    submit(submitter, runs("short", "pass") + runs("unmeasured", "fail"), harness="OneTask")
    snapshot = boards_recompute()
    entries = BoardEntry.objects.filter(board__snapshot=snapshot)
    return {(e.board.slug, e.harness_name): e for e in entries.select_related("board")}


def a_runs(family_prefix: str = "") -> list[HorizonRun]:
    return [
        HorizonRun(task, family_prefix + family, minutes, float(success))
        for task, minutes, family, successes in A_RUNS
        for success in sorted(successes, reverse=True)
    ]


def expected(mode: str, board: str, family_prefix: str = "") -> dict:
    found = a_runs(family_prefix)
    ids = [run.task_id for run in found]
    weights = headline_weights(ids, [r.family for r in found]) if mode == "headline" else None
    fit = horizon_fit(
        [r.minutes for r in found], [r.success for r in found], weights=weights, mode=mode
    )
    seed = horizon_seed(board, {"harness": "A", "harness_version": "1.0.0", "model": "m"})
    interval = horizon_interval(found, mode=mode, seed=seed, draws=HORIZON_DRAWS)
    return {"fit": fit, "interval": interval}


def as_stored(bound: float) -> float | None:
    return None if math.isinf(bound) else pytest.approx(bound, rel=1e-12)


def test_it_fits_the_suite_board_in_its_mode_from_the_counted_runs(horizons):
    horizon = horizons[(BOARD, "A")].horizon
    want = expected("cross_domain", BOARD)
    fit, interval = want["fit"], want["interval"]
    assert set(horizon) == set(HORIZON_KEYS)
    assert horizon["mode"] == "cross_domain"
    assert (horizon["tasks"], horizon["runs"], horizon["degenerate"]) == (3, 7, None)
    assert horizon["p50"] == pytest.approx(fit.p50_minutes, rel=1e-12)
    assert horizon["p80"] == pytest.approx(fit.p80_minutes, rel=1e-12)
    assert horizon["slope"] == pytest.approx(fit.slope, rel=1e-12) and fit.slope < 0
    for bound in ("p50_low", "p50_high", "p80_low", "p80_high"):
        assert horizon[bound] == as_stored(getattr(interval, bound)), bound
    # Seven runs on three tasks: some draws are all failures or separated, and the
    # upper bounds fall beyond the longest task (null, not infinity).
    assert horizon["p50_high"] is None
    assert (horizon["shortest"], horizon["longest"]) == (2.0, 128.0)
    # [minutes, pass rate, tasks, trials]: one point per task here.
    assert horizon["points"] == [[2.0, 2 / 3, 1, 3], [16.0, 0.5, 1, 2], [128.0, 0.0, 1, 2]]


def test_it_fits_an_aggregate_board_in_the_headline_mode(horizons):
    suite = Suite.objects.get(slug="horizon-bench")
    horizon = horizons[("overall", "A")].horizon
    fit = expected("headline", "overall", f"{suite.pk}/")["fit"]
    assert horizon["mode"] == "headline"
    assert horizon["p50"] == pytest.approx(fit.p50_minutes, rel=1e-12)
    # Weighted and penalised: not the suite board's unweighted fit.
    assert horizon["p50"] != pytest.approx(horizons[(BOARD, "A")].horizon["p50"], rel=1e-3)


def test_it_stores_degenerate_horizons_as_null_with_their_reason(horizons):
    every = horizons[(BOARD, "AllPass")].horizon
    assert (every["p50"], every["p80"], every["degenerate"]) == (None, None, "all_success")
    assert every["p50_high"] is None and every["slope"] is None
    none = horizons[(BOARD, "AllFail")].horizon
    assert (none["p50"], none["degenerate"]) == (None, "all_failure")
    with connection.cursor() as cursor:
        cursor.execute("SELECT horizon::text FROM leaderboard_boardentry")
        stored = " ".join(text for (text,) in cursor.fetchall())
    assert "Infinity" not in stored and "NaN" not in stored


def test_it_needs_two_tasks_with_human_minutes(horizons):
    assert horizons[(BOARD, "OneTask")].horizon == {}


def test_it_publishes_the_same_interval_again_and_carries_it_over(horizons, submitter):
    before = horizons[(BOARD, "A")].horizon
    again = boards_recompute()
    assert (
        BoardEntry.objects.get(board__snapshot=again, board__slug=BOARD, harness_name="A").horizon
        == before
    )
    # An ingest of another harness recomputes only that one: A's horizon is carried over.
    submit(submitter, runs("short", "pass") + runs("long", "fail"), harness="Late")
    late = Harness.objects.get(name="Late")
    snapshot = boards_recompute(harness_ids=[late.pk])
    entries = BoardEntry.objects.filter(board__snapshot=snapshot, board__slug=BOARD)
    assert entries.get(harness_name="A").horizon == before
    assert entries.get(harness_name="Late").horizon["degenerate"] == "separated"
