"""Rollups written at ingest equal a rebuild from the runs, whatever happened since, and
the boards read from them publish the runs' own figures (ingestion.services.rollups)."""

from __future__ import annotations

import importlib

import pytest
from django.db import connection

from ingestion.models import Harness, LanguageModel, LatencyRollup, RunRollup, Task
from ingestion.services.language_models import models_merge
from ingestion.services.rollups import rollups_rebuild
from leaderboard.models import BoardEntry
from leaderboard.moderation.conflicts import conflict_decide
from leaderboard.moderation.withdrawals import submission_restore, submission_withdraw
from leaderboard.recompute.services import boards_recompute
from tests.builders import outcomes, submit

pytestmark = pytest.mark.django_db


def stored_rollups() -> set[tuple]:
    rows = set()
    for model in (RunRollup, LatencyRollup):
        fields = [f.attname for f in model._meta.concrete_fields if f.attname != "id"]
        rows |= {
            (model.__name__, *map(_hashable, row)) for row in model.objects.values_list(*fields)
        }
    return rows


def _hashable(value):
    return tuple(value) if isinstance(value, list) else value


def varied(task: str, model: str, prefix: str, n: int) -> list[dict]:
    results = ["pass", "fail", "timeout"] * n
    runs = outcomes(*results[:n], task=task, model=model, prefix=prefix)
    for i, run in enumerate(runs):
        run["ttft_ms"] = 100 + 37 * i
        run["finished_at"] = f"2026-11-01T10:{1 + i % 50:02d}:0{i % 10}+00:00"
    return runs


def test_it_equals_a_rebuild_after_ingests_withdrawals_restores_decisions_and_merges(
    registry, submitter, moderator, superuser
):
    first = submit(
        submitter, varied("regex-log", "m", "a", 9) + varied("fix-git", "alias-m", "b", 5)
    )
    second = submit(submitter, varied("regex-log", "m", "c", 7), harness="Other")
    submission_withdraw(submission=first, reason="bad runs", user=moderator)
    submission_restore(submission=first, reason="fixed", user=moderator)
    task = Task.objects.get(task_id="regex-log", suite__slug="terminal-bench")
    conflict_decide(
        harness=second.harness, task=task, decision="confirm", reason="author", user=moderator
    )
    models_merge(
        source=LanguageModel.objects.get(name="alias-m"), target=LanguageModel.objects.get(name="m")
    )

    before = stored_rollups()
    rollups_rebuild()

    assert before and stored_rollups() == before


def percentile_from_runs(harness: Harness, q: float) -> float:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT percentile_cont(%s) WITHIN GROUP (ORDER BY ttft_ms) FROM ingestion_run"
            " WHERE harness_id = %s AND outcome <> 'infra_error'",
            [q, harness.pk],
        )
        return cursor.fetchone()[0]


def test_it_publishes_the_exact_percentile_of_a_small_entry(registry, submitter):
    submission = submit(submitter, varied("regex-log", "m", "a", 11))
    boards_recompute()
    entry = BoardEntry.objects.filter(board__slug="overall").get()
    assert entry.ttft_ms_p50 == percentile_from_runs(submission.harness, 0.5)
    assert entry.ttft_ms_p95 == percentile_from_runs(submission.harness, 0.95)


def test_it_publishes_a_large_entry_percentile_within_one_percent(registry, submitter):
    runs = varied("regex-log", "m", "a", 600)
    submission = submit(submitter, runs)
    boards_recompute()
    entry = BoardEntry.objects.filter(board__slug="overall").get()
    assert entry.ttft_ms_p95 == pytest.approx(
        percentile_from_runs(submission.harness, 0.95), rel=0.01
    )
    assert entry.ttft_ms_p50 == pytest.approx(
        percentile_from_runs(submission.harness, 0.5), rel=0.01
    )


def test_it_leaves_conflict_excluded_runs_out_of_the_percentiles(registry, submitter, moderator):
    submission = submit(
        submitter, varied("regex-log", "m", "a", 6) + varied("fix-git", "m", "b", 4)
    )
    task = Task.objects.get(task_id="fix-git", suite__slug="terminal-bench")
    conflict_decide(
        harness=submission.harness, task=task, decision="confirm", reason="author", user=moderator
    )
    boards_recompute()
    entry = BoardEntry.objects.filter(board__slug="overall").get()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY r.ttft_ms) FROM ingestion_run r"
            " JOIN ingestion_task t ON t.id = r.task_id"
            " WHERE t.task_id = 'regex-log' AND r.outcome <> 'infra_error'"
        )
        assert entry.ttft_ms_p50 == cursor.fetchone()[0]


def test_it_keeps_exact_latency_sums_per_group(registry, submitter):
    submit(submitter, varied("regex-log", "m", "a", 7))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT sum(ttft_ms), sum(EXTRACT(EPOCH FROM finished_at - started_at))"
            " FROM ingestion_run WHERE outcome = 'pass'"
        )
        ttft, duration = cursor.fetchone()
    group = RunRollup.objects.get(outcome="pass")
    assert (group.ttft_sum, group.duration_sum) == (ttft, duration)


def test_it_rebuilds_existing_rollups_as_the_ingest_writes_them(registry, submitter):
    submit(submitter, varied("regex-log", "m", "a", 9) + varied("fix-git", "m", "b", 4))
    before = stored_rollups()
    RunRollup.objects.update(ttft_sum=None, duration_sum=None, run_date=None, tokens_input=None)
    migration = importlib.import_module("ingestion.migrations.0019_price_list_and_rollup_dates")
    with connection.schema_editor() as editor:
        migration.rollups_rebuild(None, editor)
    assert stored_rollups() == before


def test_it_plans_the_run_rollups_without_nested_loops_and_restores_the_setting(
    registry, submitter
):
    # A submission's runs just COPYed have no statistics: planned as one row, the
    # per-figure CTEs were joined in nested loops, quadratic in the groups.
    from psycopg import sql

    settings_seen = []

    def note_setting(execute, statement, params, many, context):
        if isinstance(statement, sql.Composable):
            text = statement.as_string(context["connection"].connection)
            if "INSERT INTO ingestion_runrollup" in text:
                context["cursor"].execute("SHOW enable_nestloop")
                settings_seen.append(context["cursor"].fetchone()[0])
        return execute(statement, params, many, context)

    with connection.execute_wrapper(note_setting):
        submit(submitter, varied("regex-log", "m", "a", 5))
    assert settings_seen == ["off"]
    assert RunRollup.objects.filter(runs__gt=0).exists()
    with connection.cursor() as cursor:
        cursor.execute("SHOW enable_nestloop")
        assert cursor.fetchone()[0] == "on"
