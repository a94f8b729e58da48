"""Runs go to PostgreSQL as COPY text formatted by ingestion/services/copy_text.py, in a
COPY left open while the next batch is validated: every value must arrive exactly as
given, and nothing else may ever meet the connection busy with that COPY."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection

from ingestion.models import Run, Submission
from ingestion.services.copy_text import OpenCopy, copy_field
from ingestion.services.intake import submission_ingest
from tests.builders import harness_manifest, outcomes, run_line, submit, tar_gz_bundle

pytestmark = pytest.mark.django_db

AWKWARD = "tab\there, newline\nhere, return\r, back\\slash \\N, \b\v\f, «ünïcode» 🙂"


def test_it_escapes_what_copy_text_format_would_misread():
    assert copy_field("plain") == "plain"
    assert copy_field("a\tb\nc\\N\r") == "a\\tb\\nc\\\\N\\r"


def test_it_stores_awkward_values_exactly_as_given(registry, submitter):
    verifier = {"log": 'a "quoted" \\ back\\slash\n', "nested": [{"ü": None}, 1.5, True]}
    run = run_line(
        "r-odd",
        source_id=AWKWARD,
        cost_usd=0.1234567890123,
        tokens={"input": 1, "output": 0, "cached": 999_999_999_999},
        started_at="2026-11-01T10:00:00.123456+05:30",
        finished_at="2026-11-01T04:31:00Z",
        checkpoints={"passed": 2, "total": 3},
        verifier=verifier,
        trajectory=[{"role": "user", "text": AWKWARD}],
        harness_note=AWKWARD,
    )
    submission = submit(submitter, [run])
    stored = Run.objects.get(submission=submission)
    assert stored.source_key == AWKWARD
    assert stored.cost_usd == 0.1234567890123
    assert (stored.tokens_input, stored.tokens_output, stored.tokens_cached) == (
        1, 0, 999_999_999_999,
    )  # fmt: skip
    assert stored.started_at == dt.datetime(2026, 11, 1, 4, 30, 0, 123456, tzinfo=dt.UTC)
    assert stored.finished_at == dt.datetime(2026, 11, 1, 4, 31, tzinfo=dt.UTC)
    assert (stored.checkpoints_passed, stored.checkpoints_total) == (2, 3)
    assert stored.verifier == verifier
    assert stored.trajectory[0]["text"] == AWKWARD
    assert stored.extra == {"harness_note": AWKWARD}


def test_it_stores_nulls_as_nulls(registry, submitter):
    run = run_line("r-bare", cost_usd=None, tokens=None, steps=None, ttft_ms=None)
    run.update(started_at=None, finished_at=None, outcome="infra_error", infra_error="timeout")
    stored = Run.objects.get(submission=submit(submitter, [run]))
    assert stored.cost_usd is None and stored.tokens_input is None and stored.steps is None
    assert stored.started_at is None and stored.trajectory is None and stored.verifier is None
    assert (stored.infra_error, stored.source_key, stored.extra) == ("timeout", "", {})


def test_it_stores_every_batch(registry, submitter, monkeypatch):
    monkeypatch.setattr("ingestion.services.writers.RUN_BATCH", 2)
    submission = submit(submitter, outcomes("pass", "fail", "pass", "timeout", "fail"))
    assert submission.runs_count == 5
    assert Run.objects.filter(submission=submission).count() == 5


def test_it_rejects_a_bundle_whose_error_follows_a_batch_already_sent(
    registry, submitter, monkeypatch
):
    """The COPY of the first batches is still open when the bad line stops the writes:
    the queries that follow finish it first, and the bundle's own error is reported."""
    monkeypatch.setattr("ingestion.services.writers.RUN_BATCH", 2)
    runs = [*outcomes("pass", "fail", "pass"), run_line("r-bad", trial=0)]
    bundle = tar_gz_bundle(harness_manifest("H"), runs)
    submission, _ = submission_ingest(upload=bundle, user=submitter)
    assert submission.status == Submission.Status.REJECTED
    assert [(e["line"], e["field"]) for e in submission.errors] == [(4, "trial")]
    assert not Run.objects.filter(submission=submission).exists()


def test_it_finishes_an_open_copy_before_any_other_query(registry, submitter):
    submission = submit(submitter, outcomes("pass"))
    stored = Run.objects.get(submission=submission)
    columns = (
        "submission_id", "run_id", "harness_id", "model_id", "task_id", "trial", "outcome",
        "infra_error", "extra", "source_key",
    )  # fmt: skip
    row = (
        submission.pk, "r-copied", stored.harness_id, stored.model_id, stored.task_id, 7, "fail",
        "", "{}", "",
    )  # fmt: skip
    copy = OpenCopy("ingestion_run", columns)
    copy.send(("\t".join(map(str, row)) + "\n").encode())
    assert copy.is_open
    assert Run.objects.filter(submission=submission).count() == 2  # a query: COPY finished
    assert not copy.is_open
    assert connection.execute_wrappers == []
