"""The submission API: token auth, ownership, idempotency, rate limits, rejections."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from ingestion.models import Run, Submission
from tests.builders import (
    EXAMPLE_RUN_BUNDLES,
    harness_manifest,
    late_bundle,
    run_line,
    tar_gz_bundle,
)
from tests.conftest import token_client

pytestmark = pytest.mark.django_db(transaction=True)

QUILL = next(p for p in EXAMPLE_RUN_BUNDLES if "quill" in p.name)


def upload(client: APIClient, content: bytes, name: str = "bundle.tar.gz"):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return client.post(
        "/api/v1/submissions/", {"file": SimpleUploadedFile(name, content)}, format="multipart"
    )


def test_it_ingests_a_multipart_upload_and_reports_counts(registry, submitter_api):
    response = upload(submitter_api, QUILL.read_bytes(), QUILL.name)
    assert response.status_code == 202
    body = response.json()
    assert set(body) >= {"id", "status", "url"}
    detail = submitter_api.get(body["url"]).json()
    assert detail["status"] == "ingested"
    assert (detail["runs"], detail["sessions"], detail["errors"]) == (300, 0, [])
    assert len(detail["sha256"]) == 64
    assert Run.objects.filter(submission_id=body["id"]).count() == 300


def test_it_returns_the_existing_submission_for_the_same_bytes(registry, submitter_api):
    first = upload(submitter_api, QUILL.read_bytes())
    again = upload(submitter_api, QUILL.read_bytes())
    assert (first.status_code, again.status_code) == (202, 200)
    assert again.json()["id"] == first.json()["id"]
    assert Submission.objects.count() == 1
    assert Run.objects.count() == 300


def test_it_accepts_a_json_bundle_body(registry, submitter_api):
    bundle = {"manifest": harness_manifest(), "runs": [run_line("a"), run_line("b", trial=2)]}
    response = submitter_api.post(
        "/api/v1/submissions/", data=json.dumps(bundle), content_type="application/json"
    )
    assert response.status_code == 202
    detail = submitter_api.get(response.json()["url"]).json()
    assert (detail["status"], detail["runs"]) == ("ingested", 2)


def test_a_json_bundle_over_djangos_memory_limit_is_streamed_not_refused(
    registry, submitter_api, settings
):
    # DATA_UPLOAD_MAX_MEMORY_SIZE bounds what Django holds in memory; a JSON bundle is
    # streamed to disk instead, so only the bundle limit applies to it.
    notes = "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    bundle = {"manifest": {**harness_manifest(), "notes": notes}, "runs": [run_line("a")]}
    response = submitter_api.post(
        "/api/v1/submissions/", data=json.dumps(bundle), content_type="application/json"
    )
    assert response.status_code == 202, response.content[:200]
    detail = submitter_api.get(response.json()["url"]).json()
    assert (detail["status"], detail["runs"]) == ("ingested", 1), detail["errors"]
    assert Submission.objects.get().size_bytes > settings.DATA_UPLOAD_MAX_MEMORY_SIZE


@pytest.mark.parametrize("dry_run", ["", "?dry_run=1"])
def test_it_refuses_a_json_bundle_over_the_document_cap_while_it_streams(
    registry, submitter_api, settings, dry_run
):
    bundle = {"manifest": harness_manifest(), "runs": [run_line(f"r{i}") for i in range(50)]}
    body = json.dumps(bundle)
    settings.ARENA_MAX_LINE_BYTES = len(body) - 1
    response = submitter_api.post(
        f"/api/v1/submissions/{dry_run}", data=body, content_type="application/json"
    )
    assert response.status_code == 413
    assert f"limit of {len(body) - 1:,} bytes for one JSON document" in response.json()["detail"]
    assert Submission.objects.count() == 0
    assert not list(settings.ARENA_UPLOAD_DIR.glob("*.part"))


def test_it_lists_errors_of_a_rejected_bundle_without_a_500(registry, submitter_api):
    bad = tar_gz_bundle(harness_manifest(), [run_line("a", outcome="maybe")])
    response = upload(submitter_api, bad)
    assert response.status_code == 202
    detail = submitter_api.get(response.json()["url"]).json()
    assert detail["status"] == "rejected"
    assert detail["errors"][0]["file"] == "runs.jsonl"
    assert detail["errors"][0]["line"] == 1
    assert detail["errors"][0]["field"] == "outcome"
    assert Run.objects.count() == 0


def test_it_requires_a_token(registry):
    anonymous = APIClient()
    assert anonymous.get("/api/v1/submissions/").status_code == 401
    assert upload(anonymous, QUILL.read_bytes()).status_code == 401
    bad = APIClient()
    bad.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert bad.get("/api/v1/submissions/").status_code == 401
    assert Submission.objects.count() == 0


def test_it_hides_other_accounts_submissions(registry, submitter_api, other_submitter):
    mine = upload(submitter_api, QUILL.read_bytes()).json()
    other_api = token_client(other_submitter)
    assert other_api.get(f"/api/v1/submissions/{mine['id']}/").status_code == 404
    assert other_api.get("/api/v1/submissions/").json() == []
    assert [s["id"] for s in submitter_api.get("/api/v1/submissions/").json()] == [mine["id"]]


def test_it_rate_limits_uploads_per_account(registry, submitter_api, other_submitter, settings):
    from django.core.cache import cache

    cache.clear()
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"uploads": "2/hour"},
    }
    from rest_framework.settings import api_settings
    from rest_framework.throttling import ScopedRateThrottle

    # A class attribute read once at import: restored below, or every later test
    # would be limited to two uploads an hour.
    rates_before = ScopedRateThrottle.THROTTLE_RATES
    ScopedRateThrottle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
    try:
        bundles = [
            tar_gz_bundle(harness_manifest(version=f"0.{i}"), [run_line()]) for i in range(3)
        ]
        codes = [upload(submitter_api, b).status_code for b in bundles]
        assert codes == [202, 202, 429]
        assert upload(token_client(other_submitter), bundles[2]).status_code == 202
        assert submitter_api.get("/api/v1/submissions/").status_code == 200
    finally:
        ScopedRateThrottle.THROTTLE_RATES = rates_before
        cache.clear()


def test_it_refuses_an_upload_over_the_size_limit(registry, submitter_api, settings):
    settings.ARENA_MAX_UPLOAD_BYTES = 1000
    response = upload(submitter_api, b"x" * 2000)
    assert response.status_code == 413
    assert "1,000 bytes" in response.json()["detail"]
    assert Submission.objects.count() == 0
    assert (
        not any(settings.ARENA_UPLOAD_DIR.glob("*")) if settings.ARENA_UPLOAD_DIR.exists() else True
    )


def test_it_lets_only_staff_submit_the_minimal_baseline(registry, submitter_api, staff_api):
    minimal = tar_gz_bundle(harness_manifest("Minimal", minimal_baseline=True), [run_line()])
    refused = submitter_api.get(upload(submitter_api, minimal).json()["url"]).json()
    assert refused["status"] == "rejected"
    assert "staff" in refused["errors"][0]["message"]
    other_bytes = tar_gz_bundle(harness_manifest("Minimal", minimal_baseline=True), [run_line("x")])
    accepted = staff_api.get(upload(staff_api, other_bytes).json()["url"]).json()
    assert accepted["status"] == "ingested"


def test_it_returns_repeated_errors_grouped_by_cause_with_counts(registry, submitter_api):
    response = upload(submitter_api, late_bundle(trials=200))
    detail = submitter_api.get(response.json()["url"]).json()
    assert (detail["status"], detail["error_count"], len(detail["errors"])) == ("rejected", 200, 21)
    assert [(e["line"], e["count"]) for e in detail["errors"][:2]] == [(1, None), (2, None)]
    grouped = detail["errors"][-1]
    assert (grouped["file"], grouped["line"], grouped["field"], grouped["count"]) == (
        "runs.jsonl", None, "suite_version", 180,
    )  # fmt: skip
    assert grouped["message"] == "suite late-bench 1.0.0 is not in the registry"


def test_it_dry_runs_a_bundle_with_200_and_a_summary_storing_nothing(registry, submitter_api):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.builders import harness_manifest, outcomes, tar_gz_bundle

    bundle = tar_gz_bundle(harness_manifest("Dry"), outcomes("pass", "fail", task="fix-git"))
    upload = SimpleUploadedFile("b.tar.gz", bundle)

    response = submitter_api.post(
        "/api/v1/submissions/", {"file": upload, "dry_run": "1"}, format="multipart"
    )

    assert response.status_code == 200
    body = response.json()
    assert body["dry_run"] is True and body["valid"] is True
    assert (body["runs"], body["sessions"], body["harness"]) == (2, 0, "Dry 1.0.0")
    assert body["suites"] == ["terminal-bench 4.0.0"]
    assert not Submission.objects.exists()


def test_it_dry_runs_an_invalid_bundle_naming_its_errors(registry, submitter_api):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.conftest import INVALID_DIR

    upload = SimpleUploadedFile("bad.tar.gz", (INVALID_DIR / "negative-cost.tar.gz").read_bytes())

    response = submitter_api.post(
        "/api/v1/submissions/?dry_run=1", {"file": upload}, format="multipart"
    )

    assert response.status_code == 200
    body = response.json()
    assert body["valid"] is False and body["error_count"] >= 1
    assert body["errors"][0]["field"] == "cost_usd"
    assert body["errors"][0]["file"] == "runs.jsonl"
    assert not Submission.objects.exists()


def test_it_dry_runs_a_json_bundle_body_given_the_query_string(registry, submitter_api):
    bundle = {"manifest": harness_manifest(), "runs": [run_line("a"), run_line("b", trial=2)]}

    response = submitter_api.post(
        "/api/v1/submissions/?dry_run=1", data=json.dumps(bundle), content_type="application/json"
    )

    assert response.status_code == 200
    assert (response.json()["valid"], response.json()["runs"]) == (True, 2)
    assert not Submission.objects.exists()
