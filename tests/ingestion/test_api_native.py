"""`POST /api/v1/submissions/` with `format=harbor|tau-bench`: converted, then ingested."""

from __future__ import annotations

import io
import tarfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from ingestion.models import Run, Submission
from tests.ingestion.importers.builders import job_folder, tau_result, trial_result, write_tau

pytestmark = pytest.mark.django_db(transaction=True)

FIELDS = {
    "harness": "Terminus", "harness_version": "2.0.0", "contributors": "dev.one, dev.two",
    "suite": "terminal-bench", "suite_version": "4.0.0",
}  # fmt: skip


def tar_gz_of(folder) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(folder, arcname=folder.name)
    return buffer.getvalue()


def post(api, content: bytes, name: str, **fields):
    data = {"file": SimpleUploadedFile(name, content), **FIELDS, **fields}
    return api.post("/api/v1/submissions/", data, format="multipart")


def test_it_ingests_an_archived_harbor_job_folder(registry, submitter_api, tmp_path):
    job = job_folder(tmp_path, {
        "fix-git__a": trial_result("fix-git", "fix-git__a", reward=1.0),
        "fix-git__b": trial_result("fix-git", "fix-git__b", reward=None, exception="EnvironmentStartTimeoutError"),
    })  # fmt: skip
    response = post(submitter_api, tar_gz_of(job), "job.tar.gz", format="harbor")
    assert response.status_code == 202, response.json()
    detail = submitter_api.get(response.json()["url"]).json()
    assert (detail["status"], detail["runs"]) == ("ingested", 2)
    assert sorted(Run.objects.values_list("outcome", flat=True)) == ["infra_error", "pass"]
    again = post(submitter_api, tar_gz_of(job), "job.tar.gz", format="harbor")
    assert (again.status_code, again.json()["id"]) == (200, response.json()["id"])


def test_it_ingests_a_tau_bench_file(registry, submitter_api, tmp_path):
    path = write_tau(tmp_path, [tau_result("fix-git", 0, 1.0), tau_result("fix-git", 1, 0.0)])
    response = post(submitter_api, path.read_bytes(), path.name, format="tau-bench", model="gpt-4o")
    assert response.status_code == 202, response.json()
    assert submitter_api.get(response.json()["url"]).json()["runs"] == 2


def test_it_asks_for_the_model_of_a_tau_bench_file(registry, submitter_api, tmp_path):
    path = write_tau(tmp_path, [tau_result("fix-git", 0, 1.0)])
    response = post(submitter_api, path.read_bytes(), path.name, format="tau-bench")
    assert response.status_code == 400
    assert "model" in response.json()
    assert not Submission.objects.exists()


def test_it_refuses_a_harbor_archive_with_a_link(registry, submitter_api):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        link = tarfile.TarInfo("job/evil")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(link)
    response = post(submitter_api, buffer.getvalue(), "job.tar.gz", format="harbor")
    assert response.status_code == 400
    assert "links" in response.json()["errors"][0]["message"]
    assert not Submission.objects.exists()


def test_it_reports_unreadable_native_files(registry, submitter_api):
    response = post(submitter_api, b"not json", "results.json", format="tau-bench", model="m")
    assert response.status_code == 400
    assert response.json()["errors"]
