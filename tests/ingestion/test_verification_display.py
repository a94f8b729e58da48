"""The submission page and the API say how a submission's results are verified."""

from __future__ import annotations

import pytest
from django.urls import reverse

from ingestion.services.intake import submission_ingest
from tests.builders import harness_manifest, outcomes, tar_gz_bundle
from tests.conftest import token_client
from tests.ingestion.bundles.signing import VERIFIER, signed_bundle, verifier_register
from tests.test_admin import logged_in

pytestmark = pytest.mark.django_db

DEACTIVATED = f"Verified by {VERIFIER} — verifier deactivated, counted as Self-reported"


def test_it_shows_who_verified_a_submission_on_its_page_and_in_the_api(registry, staff):
    verifier = verifier_register()
    submission, _ = submission_ingest(upload=signed_bundle(outcomes("pass")), user=staff)
    page = reverse("submission-detail", args=[submission.pk])
    api = reverse("api-submission-detail", args=[submission.pk])

    assert f"Verified by {VERIFIER}" in logged_in(staff).get(page).content.decode()
    body = token_client(staff).get(api).json()
    assert (body["verification"], body["verifier"]) == (
        "verified", {"name": VERIFIER, "active": True},
    )  # fmt: skip
    assert body["verification_text"] == f"Verified by {VERIFIER}"

    verifier.active = False
    verifier.save()
    assert DEACTIVATED in logged_in(staff).get(page).content.decode()
    assert token_client(staff).get(api).json()["verification_text"] == DEACTIVATED


def test_it_shows_a_submission_without_signature_as_self_reported(registry, staff):
    bundle = tar_gz_bundle(harness_manifest(), outcomes("pass"))
    submission, _ = submission_ingest(upload=bundle, user=staff)
    page = logged_in(staff).get(reverse("submission-detail", args=[submission.pk]))
    assert "Self-reported" in page.content.decode()
    body = token_client(staff).get(reverse("api-submission-detail", args=[submission.pk])).json()
    assert (body["verification"], body["verifier"]) == ("self_reported", None)


def test_it_documents_the_signed_bytes_on_the_methodology_page(client):
    html = client.get(reverse("methodology")).content.decode()
    assert "<code>verification.json</code>" in html
    assert "<code>arena-verification/2</code>" in html
    assert "account mismatch" in html
