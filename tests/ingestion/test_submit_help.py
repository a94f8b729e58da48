"""Submitting without help: the format page, the example bundle, "Check only", and the
links from a submission to the board rows and agent pages it produced."""

from __future__ import annotations

import io
import tarfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from ingestion.example_bundle import EXAMPLE_FILENAME
from ingestion.models import Run, Submission
from ingestion.services.checking import bundle_check
from tests.builders import harness_manifest, outcomes, tar_gz_bundle
from tests.conftest import INVALID_DIR

pytestmark = pytest.mark.django_db


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_it_links_the_submit_page_to_the_format_the_example_and_the_check(submitter):
    page = logged_in(submitter).get("/submit/").content.decode()

    assert 'href="/submit/format/"' in page
    assert 'href="/submit/example-bundle.tar.gz"' in page
    assert 'name="check_only"' in page


def test_it_renders_the_bundle_format_from_the_spec_copy(client, settings):
    from pathlib import Path

    spec = (Path(settings.BASE_DIR) / "docs" / "bundle-format.md").read_text(encoding="utf-8")
    first_heading = spec.splitlines()[0].lstrip("# ").replace("`", "")

    response = client.get("/submit/format/")

    assert response.status_code == 200
    page = response.content.decode()
    assert '<h2 id="manifestjson">manifest.json</h2>' in page
    assert "<table>" in page
    assert first_heading.split(" ")[0] in page  # "Run bundle format …"
    assert "<h1" in page and "arena-bundle/1" in page


def test_it_serves_an_example_bundle_that_passes_the_validator(client, registry, submitter):
    response = client.get("/submit/example-bundle.tar.gz")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/gzip"
    assert EXAMPLE_FILENAME in response["Content-Disposition"]
    with tarfile.open(fileobj=io.BytesIO(response.content), mode="r:gz") as archive:
        names = set(archive.getnames())
    assert {"manifest.json", "runs.jsonl", "sessions.jsonl"} <= names
    assert any(name.startswith("trajectories/") for name in names)

    check = bundle_check(upload=response.content, user=submitter, filename=EXAMPLE_FILENAME)

    assert check.valid, check.errors
    assert (check.runs, check.sessions) == (3, 1)


def test_it_generates_the_same_example_twice(client, registry):
    first = client.get("/submit/example-bundle.tar.gz").content
    assert client.get("/submit/example-bundle.tar.gz").content == first


def test_it_checks_through_the_form_without_storing(registry, submitter):
    bundle = tar_gz_bundle(harness_manifest("Formed"), outcomes("pass", "fail", task="fix-git"))
    upload = SimpleUploadedFile("formed.tar.gz", bundle)

    response = logged_in(submitter).post("/submit/", {"file": upload, "check_only": "1"})

    assert response.status_code == 200
    page = response.content.decode()
    assert "Check passed: formed.tar.gz would be accepted" in page
    assert "terminal-bench 4.0.0" in page
    assert not Submission.objects.exists()


def test_it_lists_the_form_checks_errors_by_file_line_and_field(registry, submitter):
    upload = SimpleUploadedFile("bad.tar.gz", (INVALID_DIR / "negative-cost.tar.gz").read_bytes())

    response = logged_in(submitter).post("/submit/", {"file": upload, "check_only": "1"})

    page = response.content.decode()
    assert "Check failed: bad.tar.gz would be rejected" in page
    assert "<td>cost_usd</td>" in page
    assert not Submission.objects.exists()


def test_it_links_an_ingested_submission_to_its_agent_pages(registry, submitter):
    from tests.builders import submit

    submission = submit(submitter, outcomes("pass", "fail", task="fix-git", model="m-1"))

    page = logged_in(submitter).get(f"/submissions/{submission.pk}/").content.decode()

    assert 'href="/agents/H/1.0.0/m-1/"' in page
    assert f'hx-get="/submissions/{submission.pk}/preview/"' in page


def test_it_links_the_produced_rows_to_their_filtered_boards(registry, submitter):
    from tests.builders import submit

    submission = submit(submitter, outcomes("pass", "fail", task="fix-git", model="m-1"))
    assert Run.objects.filter(submission=submission).count() == 2

    page = logged_in(submitter).get(f"/submissions/{submission.pk}/preview/").content.decode()

    assert "Board rows it produced" in page
    assert "?harness=H+1.0.0&amp;model=m-1" in page
    assert 'href="/agents/H/1.0.0/m-1/"' in page
