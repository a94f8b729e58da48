"""The dry run (`bundle_check`): the upload's own validation, nothing kept."""

from __future__ import annotations

import pytest

from ingestion.evidence import evidence_changed
from ingestion.models import Harness, Run, Session, Submission
from ingestion.services.checking import bundle_check
from ingestion.services.storage import upload_dir
from tests.builders import harness_manifest, late_bundle, outcomes, run_line, tar_gz_bundle

pytestmark = pytest.mark.django_db


@pytest.fixture
def announcements():
    heard = []

    def listener(**kwargs):
        heard.append(kwargs)

    evidence_changed.connect(listener, dispatch_uid="test-checking-listener")
    yield heard
    evidence_changed.disconnect(dispatch_uid="test-checking-listener")


def _nothing_kept() -> None:
    assert not Submission.objects.exists()
    assert not Run.objects.exists()
    assert not Session.objects.exists()
    assert not Harness.objects.filter(name="Checked").exists()
    assert list(upload_dir().iterdir()) == []


def test_it_summarises_a_valid_bundle_and_keeps_nothing(registry, submitter, announcements):
    runs = outcomes("pass", "fail", "timeout", task="fix-git", model="frontier-large")
    runs += outcomes("pass", task="fix-git", model="open-weights-8b")
    bundle = tar_gz_bundle(harness_manifest("Checked", "2.0"), runs)

    check = bundle_check(upload=bundle, user=submitter, filename="b.tar.gz")

    assert check.valid
    assert (check.runs, check.sessions) == (len(runs), 0)
    assert check.harness == "Checked 2.0"
    assert check.suites == ["terminal-bench 4.0.0"]
    assert check.models == ["frontier-large", "open-weights-8b"]
    assert not check.held_for_review
    assert announcements == []
    _nothing_kept()


def test_it_names_the_errors_an_upload_would_be_rejected_with(registry, submitter):
    bundle = tar_gz_bundle(
        harness_manifest("Checked"), [run_line("r-1"), run_line("r-2", cost_usd=-1, trial=2)]
    )

    check = bundle_check(upload=bundle, user=submitter, filename="b.tar.gz")

    assert not check.valid
    assert check.error_count == 1
    assert (check.errors[0].file, check.errors[0].line, check.errors[0].field) == (
        "runs.jsonl", 2, "cost_usd",
    )  # fmt: skip
    _nothing_kept()


def test_it_looks_tasks_up_in_the_registry(registry, submitter):
    check = bundle_check(upload=late_bundle(trials=2), user=submitter)

    assert check.error_count == 2
    assert "not in the registry" in check.errors[0].message
    assert not Submission.objects.exists()


def test_it_reports_exactly_the_errors_the_upload_is_rejected_with(registry, submitter):
    from ingestion.services.intake import submission_ingest

    bundle = late_bundle(trials=30)

    check = bundle_check(upload=bundle, user=submitter)
    submission, _ = submission_ingest(upload=bundle, user=submitter)

    assert submission.status == "rejected"
    assert [error.to_json() for error in check.errors] == submission.errors
    assert check.error_count == submission.error_count == 30


def test_it_says_a_newcomers_upload_would_wait_for_review(registry, newcomer):
    bundle = tar_gz_bundle(harness_manifest("Checked"), outcomes("pass", task="fix-git"))

    check = bundle_check(upload=bundle, user=newcomer)

    assert check.valid and check.held_for_review
