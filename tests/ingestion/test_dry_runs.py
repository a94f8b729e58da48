"""Dry runs in the worker (ingestion.services.dry_runs): with a broker the request only
keeps the upload and answers with the dry run to poll; the page polls it (htmx, or a
refresh without JavaScript) and shows the result once the worker has checked it."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from arena.celery import app as celery_app
from ingestion.models import DryRun, Submission
from ingestion.services.dry_runs import (
    dry_run_execute,
    dry_run_path,
    dry_runs_requeue_stuck,
)
from leaderboard.recompute.tasks import recompute_sweep
from tests.builders import harness_manifest, outcomes, tar_gz_bundle
from tests.e2e.conftest import broker_down

pytestmark = pytest.mark.django_db


@pytest.fixture
def with_broker():
    """Tasks are sent, not run here. Inside the test's transaction nothing commits, so
    nothing is sent either: the dry run waits until the test runs it as the worker would."""
    celery_app.conf.CELERY_TASK_ALWAYS_EAGER = False
    yield
    celery_app.conf.CELERY_TASK_ALWAYS_EAGER = True


def bundle_upload() -> SimpleUploadedFile:
    runs = outcomes("pass", "fail", task="fix-git")
    return SimpleUploadedFile("dry.tar.gz", tar_gz_bundle(harness_manifest("Dry"), runs))


def test_it_answers_a_dry_run_with_202_and_the_result_once_the_worker_checked_it(
    registry, submitter_api, with_broker
):
    response = submitter_api.post(
        "/api/v1/submissions/", {"file": bundle_upload(), "dry_run": "1"}, format="multipart"
    )

    assert response.status_code == 202
    body = response.json()
    assert (body["dry_run"], body["status"]) == (True, "queued")
    assert "valid" not in body
    assert body["url"] == f"http://testserver/api/v1/dry-runs/{body['id']}/"
    assert dry_run_path(body["id"]).exists()  # kept for the worker
    assert submitter_api.get(body["url"]).json()["status"] == "queued"

    dry_run_execute(dry_run_id=body["id"])

    done = submitter_api.get(body["url"]).json()
    assert (done["status"], done["valid"], done["runs"], done["harness"]) == (
        "done", True, 2, "Dry 1.0.0",
    )  # fmt: skip
    assert not dry_run_path(body["id"]).exists()
    assert not Submission.objects.exists()


def test_it_shows_a_waiting_check_page_that_polls_until_the_result(
    registry, submitter, with_broker
):
    client = Client()
    client.force_login(submitter)

    response = client.post("/submit/", {"file": bundle_upload(), "check_only": "1"})

    dry_run = DryRun.objects.get()
    assert response.status_code == 302 and response.url == f"/submit/checks/{dry_run.pk}/"
    waiting = client.get(response.url).content.decode()
    assert f'hx-get="/submit/checks/{dry_run.pk}/" hx-trigger="every 2s"' in waiting
    assert '<noscript><meta http-equiv="refresh" content="3"></noscript>' in waiting
    assert "Checking" in waiting

    dry_run_execute(dry_run_id=dry_run.pk)

    fragment = client.get(response.url, headers={"HX-Request": "true"}).content.decode()
    assert "Check passed: dry.tar.gz would be accepted" in fragment
    assert "hx-trigger" not in fragment and "<html" not in fragment
    assert "http-equiv" not in client.get(response.url).content.decode()


def test_it_shows_a_dry_run_to_its_uploader_only(registry, submitter, other_submitter):
    client = Client()
    client.force_login(submitter)
    client.post("/submit/", {"file": bundle_upload(), "check_only": "1"})
    dry_run = DryRun.objects.get()
    assert dry_run.status == "done"  # eager: checked within the request

    other = Client()
    other.force_login(other_submitter)
    assert other.get(f"/submit/checks/{dry_run.pk}/").status_code == 404
    assert client.get(f"/submit/checks/{dry_run.pk}/").status_code == 200


def test_it_checks_a_dry_run_once_however_often_it_is_delivered(registry, submitter, with_broker):
    from ingestion.services.dry_runs import dry_run_queue

    dry_run = dry_run_queue(upload=bundle_upload(), user=submitter, filename="dry.tar.gz")
    first = dry_run_execute(dry_run_id=dry_run.pk)
    again = dry_run_execute(dry_run_id=dry_run.pk)
    assert first.result == again.result and first.result["valid"] is True


# -- A broker that is down keeps the check in the worker --------------------------------


@pytest.mark.django_db(transaction=True)  # the send happens on commit
def test_it_keeps_a_dry_run_queued_while_the_broker_is_down_and_the_sweep_sends_it(
    registry, submitter_api, caplog
):
    with broker_down(), caplog.at_level(logging.ERROR):
        response = submitter_api.post(
            "/api/v1/submissions/", {"file": bundle_upload(), "dry_run": "1"}, format="multipart"
        )
        assert response.status_code == 202
        body = response.json()
        assert (body["status"], body["url"]) == (
            "queued", f"http://testserver/api/v1/dry-runs/{body['id']}/",
        )  # fmt: skip
        # Not checked in the request, and in no queue: the sweep's to send.
        dry_run = DryRun.objects.get(pk=body["id"])
        assert (dry_run.status, dry_run.result, dry_run.enqueued_at) == ("queued", None, None)
        assert dry_run_path(dry_run.pk).exists()

        assert dry_runs_requeue_stuck() == [dry_run.pk]  # still down: tried, kept
        assert DryRun.objects.filter(pk=dry_run.pk, status="queued", enqueued_at=None).exists()
    assert "could not queue dry run" in caplog.text

    recompute_sweep.apply().get()  # the broker is back (eager here: sending checks it)

    done = submitter_api.get(body["url"]).json()
    assert (done["status"], done["valid"], done["runs"]) == ("done", True, 2)
    assert not dry_run_path(dry_run.pk).exists()
    assert not Submission.objects.exists()


def a_dry_run(user, *, age: timedelta, sent: timedelta | None, status: str = "queued") -> int:
    """A dry run made `age` ago, its check last sent `sent` ago (None: never reached
    the broker), its bytes kept."""
    dry_run = DryRun.objects.create(uploader=user, original_name="dry.tar.gz")
    dry_run_path(dry_run.pk).write_bytes(bundle_upload().read())
    now = timezone.now()
    DryRun.objects.filter(pk=dry_run.pk).update(
        status=status, created_at=now - age, enqueued_at=None if sent is None else now - sent
    )
    return dry_run.pk


def test_it_sends_again_only_the_dry_runs_no_queue_holds(registry, submitter, settings):
    settings.ARENA_REQUEUE_AFTER_S = 60
    minutes = timedelta(minutes=5)
    unsent = a_dry_run(submitter, age=minutes, sent=None)
    lost = a_dry_run(submitter, age=minutes, sent=minutes)  # sent, never taken
    waiting = a_dry_run(submitter, age=minutes, sent=timedelta(seconds=1))
    given_up = a_dry_run(submitter, age=timedelta(hours=2), sent=None)  # reads as failed
    checking = a_dry_run(submitter, age=minutes, sent=minutes, status="checking")

    # Eager here: sending it checks it.
    assert dry_runs_requeue_stuck() == [unsent, lost]
    statuses = dict(DryRun.objects.values_list("pk", "status"))
    assert statuses == {
        unsent: "done", lost: "done", waiting: "queued", given_up: "queued", checking: "checking",
    }  # fmt: skip
    assert DryRun.objects.get(pk=lost).result["valid"] is True
