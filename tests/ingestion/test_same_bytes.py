"""The same bytes sent again: the sender's own re-upload returns their submission;
another account's gets a named refusal (API 409, an error on the form, the command's
error), never a submission id it cannot read."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client

from ingestion.models import Submission
from tests.builders import harness_manifest, run_line, tar_gz_bundle
from tests.conftest import token_client

pytestmark = pytest.mark.django_db

BUNDLE = tar_gz_bundle(harness_manifest(), [run_line()])


def api_upload(user, content: bytes = BUNDLE):
    return token_client(user).post(
        "/api/v1/submissions/",
        {"file": SimpleUploadedFile("bundle.tar.gz", content)},
        format="multipart",
    )


def form_upload(user, content: bytes = BUNDLE):
    client = Client()
    client.force_login(user)
    return client.post("/submit/", {"file": SimpleUploadedFile("bundle.tar.gz", content)})


def test_it_returns_the_senders_own_submission_for_their_bytes_again(submitter):
    first = api_upload(submitter)
    again = api_upload(submitter)
    assert (first.status_code, again.status_code) == (202, 200)
    assert again.json()["id"] == first.json()["id"]


def test_it_answers_409_with_a_named_error_to_another_account(submitter, other_submitter):
    first = api_upload(submitter).json()["id"]
    response = api_upload(other_submitter)
    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "submitted_by_another"
    assert body["submission"] == first
    assert body["detail"].startswith(
        f"these bytes were already submitted by another account (submission {first})"
    )
    assert Submission.objects.count() == 1


def test_it_shows_the_refusal_on_the_web_form(submitter, other_submitter):
    first = form_upload(submitter)
    assert first.status_code == 302
    response = form_upload(other_submitter)
    assert response.status_code == 200
    assert "these bytes were already submitted by another account" in response.content.decode()
    assert not Submission.objects.filter(uploader=other_submitter).exists()


def test_it_redirects_the_sender_to_their_own_submission_on_the_web_form(submitter):
    first = form_upload(submitter)
    again = form_upload(submitter)
    assert again.status_code == 302
    assert again["Location"] == first["Location"]


def test_it_refuses_another_accounts_bytes_on_the_command_line(
    registry, submitter, other_submitter, tmp_path
):
    path = tmp_path / "bundle.tar.gz"
    path.write_bytes(BUNDLE)
    call_command("ingest", str(path), user="submitter")
    with pytest.raises(CommandError, match="already submitted by another account"):
        call_command("ingest", str(path), user="other")
