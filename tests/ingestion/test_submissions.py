"""The ingest service: whole or nothing, idempotent, every example counted exactly."""

from __future__ import annotations

import pytest

from ingestion.models import Harness, LanguageModel, Run, Session, Submission, ToolCall, Turn
from ingestion.services.intake import submission_ingest, submission_receive
from ingestion.services.storage import upload_path
from tests.builders import (
    EXAMPLE_RUN_BUNDLES,
    EXAMPLE_SESSIONS_BUNDLE,
    harness_manifest,
    run_line,
    tar_gz_bundle,
)
from tests.conftest import INVALID_DIR

pytestmark = pytest.mark.django_db(transaction=True)

# What each invalid example's error must mention (its README's reason, in our words).
INVALID_EXAMPLES = {
    "absolute-path.tar.gz": "absolute",
    "bad-format.tar.gz": "arena-bundle/1",
    "bad-outcome.tar.gz": "outcome",
    "bomb.tar.gz": "compression ratio",
    "checkpoints-over.tar.gz": "checkpoints",
    "duplicate-run-id.tar.gz": "run_id",
    "infra-without-kind.tar.gz": "infra_error",
    "kind-without-infra.tar.gz": "infra_error",
    "long-run-id.tar.gz": "run_id",
    "nan-cost.tar.gz": "cost_usd",
    "negative-cost.tar.gz": "cost_usd",
    "no-harness.tar.gz": "harness",
    "no-manifest.zip": "manifest.json",
    "not-an-archive.tar.gz": "not a valid",
    "not-json-line.tar.gz": "JSON",
    "not-utf8.tar.gz": "UTF-8",
    "path-traversal.tar.gz": "..",
    "string-number.tar.gz": "tokens",
    "symlink.tar.gz": "link",
    "time-reversed.tar.gz": "finished_at",
    "unknown-task.tar.gz": "registry",
}


def nothing_stored() -> bool:
    return not (Run.objects.exists() or Session.objects.exists() or Turn.objects.exists())


def test_it_covers_every_invalid_example():
    assert {p.name for p in INVALID_DIR.iterdir() if p.name != "README.md"} == set(INVALID_EXAMPLES)


@pytest.mark.parametrize("name", sorted(INVALID_EXAMPLES))
def test_it_rejects_each_invalid_example_whole(registry, staff, name):
    submission, _ = submission_ingest(upload=INVALID_DIR / name, user=staff, filename=name)
    assert submission.status == Submission.Status.REJECTED
    messages = " | ".join(f"{e['field']}: {e['message']}" for e in submission.errors)
    assert INVALID_EXAMPLES[name] in messages
    assert submission.error_count >= 1
    assert nothing_stored()
    assert not upload_path(submission.sha256).exists()


@pytest.mark.parametrize("path", EXAMPLE_RUN_BUNDLES, ids=lambda p: p.name)
def test_it_ingests_each_example_run_bundle_exactly(registry, staff, path):
    submission, created = submission_ingest(upload=path, user=staff, filename=path.name)
    assert created
    assert submission.status == Submission.Status.INGESTED, submission.errors
    assert (submission.runs_count, submission.sessions_count) == (300, 0)
    assert Run.objects.filter(submission=submission).count() == 300
    assert not upload_path(submission.sha256).exists()


def test_it_ingests_the_example_sessions_with_turns_and_calls(registry, staff):
    submission, _ = submission_ingest(upload=EXAMPLE_SESSIONS_BUNDLE, user=staff)
    assert submission.status == Submission.Status.INGESTED, submission.errors
    assert (submission.runs_count, submission.sessions_count) == (0, 300)
    assert Session.objects.count() == 300
    assert Turn.objects.count() == 2258
    assert ToolCall.objects.exists()
    # every user turn of the example carries a label key, so every label is the bundle's
    user_turns = Turn.objects.filter(role="user")
    assert set(user_turns.values_list("label_source", flat=True)) == {"bundle"}


def test_it_stores_user_ids_only_as_salted_hashes(registry, staff, settings):
    settings.ARENA_USER_HASH_SALT = "pepper"
    submission_ingest(upload=EXAMPLE_SESSIONS_BUNDLE, user=staff)
    hashes = set(Session.objects.values_list("user_hash", flat=True))
    assert all(len(h) == 64 for h in hashes)
    assert not any(h.startswith("u0") for h in hashes)
    assert not Session.objects.filter(extra__has_key="user").exists()


@pytest.fixture
def nobody_listening():
    """Ingestion alone: the recompute room's listener is off for the test."""
    from ingestion.evidence import evidence_changed
    from leaderboard.recompute.receivers import evidence_changed_received

    uid = "leaderboard.recompute.evidence_changed"
    evidence_changed.disconnect(dispatch_uid=uid)
    yield
    evidence_changed.connect(evidence_changed_received, dispatch_uid=uid)


def test_it_stores_only_the_bundles_own_labels(registry, staff, nobody_listening):
    session = {
        "session_id": "s-1", "model": "m", "scenario": None, "confirmation": None,
        "turns": [
            {"role": "user", "text": "Great, thanks!"},
            {"role": "assistant", "text": "Anything else?"},
            {"role": "user", "text": "Perfect work", "label": None},
            {"role": "user", "text": "No, use the other config", "label": "correction"},
        ],
    }  # fmt: skip
    bundle = tar_gz_bundle({"format": "arena-bundle/1"}, sessions=[session])
    submission, _ = submission_ingest(upload=bundle, user=staff)
    assert submission.status == "ingested", submission.errors
    turns = Turn.objects.filter(role="user").order_by("position")
    # Labelling is the leaderboard's (methodology): ingestion leaves the first unlabelled.
    assert [(t.labels, t.label_source) for t in turns] == [
        ([], ""),
        ([], "bundle"),
        (["correction"], "bundle"),
    ]


def test_it_returns_the_existing_submission_for_the_same_bytes(registry, staff):
    path = EXAMPLE_RUN_BUNDLES[0]
    first, created = submission_ingest(upload=path, user=staff)
    again, created_again = submission_ingest(upload=path, user=staff)
    assert (created, created_again) == (True, False)
    assert again.pk == first.pk
    assert Run.objects.count() == 300


def test_it_leaves_nothing_when_the_last_line_fails(registry, submitter):
    runs = [run_line(f"r-{i}", trial=i + 1) for i in range(12_000)]
    runs[-1]["cost_usd"] = -1
    submission, _ = submission_ingest(
        upload=tar_gz_bundle(harness_manifest(), runs), user=submitter
    )
    assert submission.status == Submission.Status.REJECTED
    assert submission.errors == [
        {
            "file": "runs.jsonl",
            "line": 12_000,
            "field": "cost_usd",
            "message": submission.errors[0]["message"],
        }
    ]
    assert nothing_stored()
    assert not Harness.objects.filter(submissions__isnull=False).exists()


def test_it_reports_20_errors_then_one_per_cause_with_the_total(registry, submitter):
    runs = [run_line(f"r-{i}", trial=i + 1, outcome="maybe") for i in range(250)]
    submission, _ = submission_ingest(
        upload=tar_gz_bundle(harness_manifest(), runs), user=submitter
    )
    assert submission.status == Submission.Status.REJECTED
    assert (len(submission.errors), submission.error_count) == (21, 250)
    assert [e["line"] for e in submission.errors[:3]] == [1, 2, 3]
    assert (submission.errors[-1]["line"], submission.errors[-1]["count"]) == (None, 230)


def test_it_keeps_unknown_fields_as_extra_metadata(registry, submitter):
    runs = [run_line("r-1", harness_commit="abc123", notes={"seed": 7})]
    submission, _ = submission_ingest(
        upload=tar_gz_bundle(harness_manifest(), runs), user=submitter
    )
    assert submission.status == "ingested", submission.errors
    assert Run.objects.get().extra == {"harness_commit": "abc123", "notes": {"seed": 7}}


def test_it_stores_every_field_of_a_run(registry, submitter):
    trajectory = [
        {
            "role": "assistant",
            "text": "ls",
            "tool_calls": [{"tool": "bash", "arguments": {"command": "ls"}, "exit_code": 0}],
        }
    ]
    run = run_line(
        "r-1", tokens={"input": 10, "output": 5, "cached": 2}, checkpoints={"passed": 3, "total": 5},
        verifier={"name": "tb-verifier", "version": "4.0.0"}, trajectory=trajectory,
    )  # fmt: skip
    submission_ingest(upload=tar_gz_bundle(harness_manifest(), [run]), user=submitter)
    stored = Run.objects.select_related("task", "model", "harness").get()
    assert (stored.task.task_id, stored.model.name, stored.harness.name) == (
        "fix-git",
        "frontier-large",
        "TestHarness",
    )
    assert (stored.tokens_input, stored.tokens_output, stored.tokens_cached) == (10, 5, 2)
    assert (stored.checkpoints_passed, stored.checkpoints_total) == (3, 5)
    assert stored.verifier == {"name": "tb-verifier", "version": "4.0.0"}
    assert stored.trajectory[0]["tool_calls"][0]["arguments"] == {"command": "ls"}
    assert stored.duration_s == 60.0


def test_it_reads_a_trajectory_file_from_the_archive(registry, submitter):
    import json

    run = run_line("r-1", trajectory="trajectories/r-1.json")
    files = {"trajectories/r-1.json": json.dumps([{"role": "assistant", "text": "hello"}]).encode()}
    bundle = tar_gz_bundle(harness_manifest(), [run], extra_files=files)
    submission, _ = submission_ingest(upload=bundle, user=submitter)
    assert submission.status == "ingested", submission.errors
    assert Run.objects.get().trajectory == [{"role": "assistant", "text": "hello"}]


def test_it_ingests_a_directory_bundle_like_its_archive(registry, staff, tmp_path):
    import tarfile

    with tarfile.open(EXAMPLE_RUN_BUNDLES[0]) as archive:
        archive.extractall(tmp_path / "bundle", filter="data")
    submission, _ = submission_ingest(upload=tmp_path / "bundle", user=staff)
    assert submission.status == "ingested", submission.errors
    assert submission.runs_count == 300
    again, created = submission_ingest(upload=tmp_path / "bundle", user=staff)
    assert (again.pk, created) == (submission.pk, False)


def test_it_keeps_runs_of_different_submissions_apart(registry, submitter, other_submitter):
    a, _ = submission_ingest(
        upload=tar_gz_bundle(harness_manifest(), [run_line("same-id")]), user=submitter
    )
    b, _ = submission_ingest(
        upload=tar_gz_bundle(harness_manifest(), [run_line("same-id", outcome="fail")]),
        user=other_submitter,
    )
    assert a.pk != b.pk
    assert sorted(Run.objects.values_list("submission_id", "outcome")) == [
        (a.pk, "pass"),
        (b.pk, "fail"),
    ]


def test_it_never_removes_contributors_named_before(registry, submitter):
    first = harness_manifest(contributors=["mira.chen"])
    later = harness_manifest(contributors=["dev.one"])
    submission_ingest(upload=tar_gz_bundle(first, [run_line("a")]), user=submitter)
    submission_ingest(upload=tar_gz_bundle(later, [run_line("b")]), user=submitter)
    handles = Harness.objects.get().contributors.values_list("handle", flat=True)
    assert sorted(handles) == ["dev.one", "mira.chen"]


def test_it_refuses_to_flip_an_existing_harness_minimal_flag(registry, staff):
    submission_ingest(
        upload=tar_gz_bundle(harness_manifest("Minimal", minimal_baseline=True), [run_line("a")]),
        user=staff,
    )
    flipped, _ = submission_ingest(
        upload=tar_gz_bundle(harness_manifest("Minimal"), [run_line("b")]), user=staff
    )
    assert flipped.status == "rejected"
    assert "minimal_baseline=true" in flipped.errors[0]["message"]


def test_it_processes_a_submission_only_once(registry, submitter):
    from ingestion.services.processing import submission_process

    submission, _ = submission_receive(
        upload=tar_gz_bundle(harness_manifest(), [run_line()]), user=submitter, enqueue=False
    )
    first = submission_process(submission_id=submission.pk)
    second = submission_process(submission_id=submission.pk)
    assert (first.status, second.status) == ("ingested", "ingested")
    assert Run.objects.count() == 1
    assert LanguageModel.objects.count() == 1


def test_it_takes_again_a_submission_whose_worker_died(registry, submitter):
    from datetime import timedelta

    from django.utils import timezone

    from ingestion.services.processing import submission_process

    submission, _ = submission_receive(
        upload=tar_gz_bundle(harness_manifest(), [run_line()]), user=submitter, enqueue=False
    )
    an_hour_ago = timezone.now() - timedelta(hours=1)
    Submission.objects.filter(pk=submission.pk).update(status="processing", started_at=an_hour_ago)
    assert submission_process(submission_id=submission.pk).status == "ingested"
    assert Run.objects.count() == 1


def test_it_leaves_a_claim_to_its_live_worker(registry, submitter):
    import psycopg
    from django.db import connection
    from django.utils import timezone

    from arena.embedded_db import database_url_of
    from ingestion.services.processing import INGEST_LOCK, submission_process

    submission, _ = submission_receive(
        upload=tar_gz_bundle(harness_manifest(), [run_line()]), user=submitter, enqueue=False
    )
    Submission.objects.filter(pk=submission.pk).update(
        status="processing", started_at=timezone.now()
    )
    # A live worker holds the submission's lock for as long as its connection lives.
    with psycopg.connect(database_url_of(connection.settings_dict), autocommit=True) as worker:
        worker.execute("SELECT pg_advisory_lock(%s, %s)", [INGEST_LOCK, submission.pk])
        assert submission_process(submission_id=submission.pk).status == "processing"
    assert not Run.objects.exists()
