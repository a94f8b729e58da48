"""Verified results at ingest: a valid signature of an active registered verifier makes
the submission Verified; every other signed bundle is refused with a named error, and
a bundle without verification.json is Self-reported."""

from __future__ import annotations

import pytest

from ingestion.models import Run, Submission
from ingestion.services.intake import submission_ingest
from ingestion.services.verification import verification_label
from tests.builders import harness_manifest, outcomes, tar_gz_bundle
from tests.ingestion.bundles.archives import tar_gz
from tests.ingestion.bundles.signing import (
    OTHER_KEY,
    VERIFIER,
    run_bundle_files,
    signed,
    signed_bundle,
    verifier_register,
)

pytestmark = pytest.mark.django_db

RUNS = outcomes("pass", "fail")


def ingest(upload: bytes, user) -> Submission:
    submission, _ = submission_ingest(upload=upload, user=user)
    return submission


def only_error(submission: Submission) -> dict:
    assert submission.status == "rejected"
    [error] = submission.errors
    assert error["file"] == "verification.json"
    return error


def test_it_marks_a_bundle_signed_by_an_active_verifier_verified(registry, staff):
    verifier = verifier_register()
    submission = ingest(signed_bundle(RUNS), staff)
    assert submission.status == "ingested", submission.errors
    submission.refresh_from_db()
    assert (submission.verification, submission.verifier) == ("verified", verifier)
    assert verification_label(submission) == f"Verified by {VERIFIER}"
    assert Run.objects.filter(submission=submission).count() == 2


def test_it_leaves_a_bundle_without_verification_self_reported(registry, staff):
    verifier_register()
    submission = ingest(tar_gz_bundle(harness_manifest(), RUNS), staff)
    submission.refresh_from_db()
    assert (submission.status, submission.verification, submission.verifier) == (
        "ingested", "self_reported", None,
    )  # fmt: skip
    assert verification_label(submission) == "Self-reported"


def test_it_refuses_a_tampered_bundle_naming_the_file_and_stores_nothing(registry, staff):
    verifier_register()
    submission = ingest(signed_bundle(RUNS, tamper=True), staff)
    error = only_error(submission)
    assert error["field"] == "files.runs.jsonl"
    assert error["message"].startswith("digest mismatch: runs.jsonl")
    assert not Run.objects.exists()
    submission.refresh_from_db()
    assert (submission.verification, submission.verifier) == ("self_reported", None)


def test_it_refuses_an_inactive_verifier(registry, staff):
    verifier_register(active=False)
    error = only_error(ingest(signed_bundle(RUNS), staff))
    assert error["message"].startswith(f"inactive verifier '{VERIFIER}'")


def test_it_refuses_an_unknown_verifier_and_another_key(registry, staff):
    verifier_register()
    unknown = only_error(ingest(signed_bundle(RUNS, verifier="Nobody"), staff))
    assert unknown["message"].startswith("unknown verifier 'Nobody'")
    forged = only_error(ingest(signed_bundle(RUNS, key=OTHER_KEY, tamper=False), staff))
    assert forged["message"].startswith("bad signature")


def test_it_names_a_deactivated_verifier_on_a_verified_submission(registry, staff):
    verifier = verifier_register()
    submission = ingest(signed_bundle(RUNS), staff)
    verifier.active = False
    verifier.save()
    submission.refresh_from_db()
    assert verification_label(submission) == (
        f"Verified by {VERIFIER} — verifier deactivated, counted as Self-reported"
    )


def test_it_refuses_a_signed_bundle_another_account_repacked_as_its_own(registry, staff, submitter):
    """The staff persona's Verified bundle, unpacked and packed again by the submitter
    persona (other bytes, the same signed files): never the submitter's Verified entry."""
    verifier_register()
    files = signed(run_bundle_files(RUNS), account="staff")
    assert ingest(tar_gz(files), staff).status == "ingested"
    repacked = tar_gz(dict(reversed(files.items())))
    error = only_error(ingest(repacked, submitter))
    assert (error["field"], error["message"]) == (
        "account",
        "account mismatch: signed for account 'staff', uploaded by 'submitter'"
        " (a signature is good for the account it names only)",
    )
    assert not Run.objects.filter(submission__uploader=submitter).exists()
