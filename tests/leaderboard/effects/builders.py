"""A board where several harnesses ran several models on the same tasks, built as runs
and rollups (what the recompute reads), for the harness × model tests."""

from __future__ import annotations

import datetime as dt

from ingestion.models import Harness, LanguageModel, Run, Task
from ingestion.services.rollups import rollups_rebuild
from tests.leaderboard.boards.builders import make_submission

BOARD = "terminal-bench-4.0.0"
TRIALS = 4
STARTED = dt.datetime(2026, 11, 1, 10, 0, tzinfo=dt.UTC)


def grid_tasks(count: int = 6) -> list[Task]:
    return list(
        Task.objects.approved_official().filter(suite__slug="terminal-bench").order_by("pk")[:count]
    )


def harness_model_grid(
    user,
    harnesses: dict[str, list[str]],
    *,
    tasks: list[Task],
    minimal: str | None = "Minimal",
    shift: int = 0,
) -> dict[str, Harness]:
    """Runs of each harness with each of its models on every task: TRIALS trials each,
    passes varying with harness, model and task (never all or none on a task), one
    submission per harness. Returns the harnesses by name."""
    built = {}
    for i, (name, models) in enumerate(harnesses.items()):
        harness, _ = Harness.objects.get_or_create(
            name=name, version="1.0", defaults={"minimal_baseline": name == minimal}
        )
        submission = make_submission(user, harness)
        runs = []
        for j, model_name in enumerate(models):
            model, _ = LanguageModel.objects.get_or_create(name=model_name)
            for k, task in enumerate(tasks):
                passes = (i + 2 * j + k + shift) % (TRIALS + 1)
                runs += [
                    _run(submission, model, task, trial, "pass" if trial <= passes else "fail")
                    for trial in range(1, TRIALS + 1)
                ]
        Run.objects.bulk_create(runs)
        rollups_rebuild(submission_ids=[submission.pk])
        built[name] = harness
    return built


def _run(submission, model, task, trial: int, outcome: str) -> Run:
    return Run(
        submission=submission, run_id=f"{task.task_id}-{trial}-{submission.pk}-{model.pk}",
        harness=submission.harness, model=model, task=task, trial=trial, outcome=outcome,
        cost_usd=0.05, tokens_input=1000, tokens_output=100, steps=3, tool_calls=2,
        ttft_ms=500, started_at=STARTED, finished_at=STARTED + dt.timedelta(minutes=2),
        infra_error="",
    )  # fmt: skip
