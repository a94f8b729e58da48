"""`POST /api/v1/submissions/` with `format=harbor|tau-bench|tau2-bench`: converted, then
ingested."""

from __future__ import annotations

import gzip
import io
import json
import shutil
import tarfile
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from ingestion.models import Run, Submission
from ingestion.services.intake import NativeSource, submission_receive
from ingestion.services.storage import upload_path
from tests.conftest import token_client
from tests.ingestion.importers.builders import job_folder, tau_result, trial_result, write_tau
from tests.ingestion.importers.tau2_builders import (
    tau2_crash,
    tau2_results,
    tau2_simulation,
    write_tau2,
    write_tau2_folder,
)

pytestmark = pytest.mark.django_db(transaction=True)

FIELDS = {
    "harness": "Terminus", "harness_version": "2.0.0", "contributors": "dev.one, dev.two",
    "suite": "terminal-bench", "suite_version": "4.0.0",
}  # fmt: skip


def tar_gz_of(folder, mtime: float = 0) -> bytes:
    """The folder as a .tar.gz; the gzip header holds `mtime`, as `tar czf` writes now."""
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=mtime) as compressed,
        tarfile.open(fileobj=compressed, mode="w") as archive,
    ):
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


def rejection(api, response) -> list[dict]:
    """The errors of a native upload, answered 202 at once and rejected by the worker."""
    assert response.status_code == 202, response.json()
    detail = api.get(response.json()["url"]).json()
    assert detail["status"] == "rejected"
    return detail["errors"]


def test_it_refuses_a_harbor_archive_with_a_link(registry, submitter_api):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        link = tarfile.TarInfo("job/evil")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(link)
    response = post(submitter_api, buffer.getvalue(), "job.tar.gz", format="harbor")
    (error,) = rejection(submitter_api, response)
    assert "links" in error["message"]
    assert Run.objects.count() == 0


def test_it_reports_unreadable_native_files(registry, submitter_api):
    response = post(submitter_api, b"not json", "results.json", format="tau-bench", model="m")
    (error,) = rejection(submitter_api, response)
    assert (error["file"], error["message"]) == (
        "results.json",
        "must be a JSON list of results, not something else",
    )


def test_intake_only_stores_the_upload_and_its_parameters(registry, submitter, tmp_path):
    # The conversion is the worker's: until it runs, the submission waits with the
    # bytes as sent and the format and parameters they will be converted with.
    path = write_tau(tmp_path, [tau_result("fix-git", 0, 1.0)])
    source = NativeSource(
        format="tau-bench", harness="Terminus", harness_version="2.0.0", suite="terminal-bench",
        suite_version="4.0.0", model="m", contributors=("dev.one",),
    )  # fmt: skip
    submission, created = submission_receive(
        upload=path, user=submitter, filename=path.name, native=source, enqueue=False
    )
    assert (created, submission.status, submission.native_format) == (True, "queued", "tau-bench")
    assert submission.native_params == {
        "harness": "Terminus", "harness_version": "2.0.0", "contributors": ["dev.one"],
        "suite": "terminal-bench", "suite_version": "4.0.0", "model": "m",
    }  # fmt: skip
    assert upload_path(submission.sha256).read_bytes() == path.read_bytes()
    assert Run.objects.count() == 0


def test_the_same_file_with_other_parameters_is_another_submission(
    registry, submitter_api, tmp_path
):
    # Another submission, but not other runs: its τ-bench items are already stored.
    path = write_tau(tmp_path, [tau_result("fix-git", 0, 1.0)])
    first = post(submitter_api, path.read_bytes(), path.name, format="tau-bench", model="wrong")
    second = post(submitter_api, path.read_bytes(), path.name, format="tau-bench", model="right")
    assert first.json()["id"] != second.json()["id"]
    (error,) = rejection(submitter_api, second)
    assert f"already stored for this harness by submission {first.json()['id']}" in error["message"]
    assert set(Run.objects.values_list("model__name", flat=True)) == {"wrong"}


def test_a_whitespace_bomb_in_a_harbor_zip_is_a_named_rejection(registry, submitter_api):
    # 306 KB of zip holding 300 MB of whitespace once took a web worker to 894 MB: now
    # the worker refuses it by its compression ratio before inflating it (the ratio is
    # judged past a floor of inflated bytes, so this one inflates past it).
    trial = json.dumps(trial_result("fix-git", "fix-git__a", reward=1.0))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("job/fix-git__a/result.json", trial + " " * 70_000_000)
    response = post(submitter_api, buffer.getvalue(), "job.zip", format="harbor")
    (error,) = rejection(submitter_api, response)
    assert "compression ratio" in error["message"]
    assert Run.objects.count() == 0


def test_the_same_folder_archived_again_does_not_count_twice(registry, submitter_api, tmp_path):
    # Another archive of the same job (a new timestamp in its header) is new bytes, but
    # converts to the same bundle: its runs are already on the board, nothing is wrong.
    job = job_folder(tmp_path, {"fix-git__a": trial_result("fix-git", "fix-git__a")})
    first = post(submitter_api, tar_gz_of(job, mtime=1), "job.tar.gz", format="harbor")
    second = post(submitter_api, tar_gz_of(job, mtime=2), "job.tar.gz", format="harbor")
    assert first.json()["id"] != second.json()["id"]
    detail = submitter_api.get(second.json()["url"]).json()
    assert (detail["status"], detail["duplicate_of"], detail["runs"]) == (
        "ingested", first.json()["id"], 0,
    )  # fmt: skip
    assert Run.objects.count() == 1


def test_it_ingests_a_tau2_bench_file(registry, submitter_api, tmp_path):
    simulations = [tau2_simulation("fix-git", 0, 1.0), tau2_crash("fix-git", 1)]
    path = write_tau2(tmp_path, tau2_results(simulations))
    response = post(
        submitter_api, path.read_bytes(), path.name, format="tau2-bench", model="gpt-4o"
    )
    assert response.status_code == 202, response.json()
    detail = submitter_api.get(response.json()["url"]).json()
    assert (detail["status"], detail["runs"]) == ("ingested", 2)
    assert sorted(Run.objects.values_list("outcome", flat=True)) == ["infra_error", "pass"]
    # The file names its model: the parameter is not used, and the submitter is told.
    assert set(Run.objects.values_list("model__name", flat=True)) == {"claude-sonnet-4-5"}
    assert "the model parameter 'gpt-4o' was not used" in detail["report"]["warnings"][0]


def test_a_tau2_file_without_a_model_is_rejected_naming_the_field(
    registry, submitter_api, tmp_path
):
    path = write_tau2(tmp_path, tau2_results([tau2_simulation("fix-git")], llm=None))
    response = post(submitter_api, path.read_bytes(), path.name, format="tau2-bench")
    (error,) = rejection(submitter_api, response)
    assert (error["file"], error["field"]) == (path.name, "info.agent_info.llm")
    assert Run.objects.count() == 0


def test_it_ingests_an_archived_tau2_results_folder(registry, submitter_api, tmp_path):
    # τ²'s dir format: results.json beside simulations/<id>.json, uploaded packed.
    simulations = [tau2_simulation("fix-git", 0, 1.0), tau2_simulation("regex-log", 0, 0.0)]
    folder = write_tau2_folder(tmp_path, tau2_results(simulations))
    response = post(submitter_api, tar_gz_of(folder), "run.tar.gz", format="tau2-bench")
    assert response.status_code == 202, response.json()
    detail = submitter_api.get(response.json()["url"]).json()
    assert (detail["status"], detail["runs"]) == ("ingested", 2)
    assert sorted(Run.objects.values_list("outcome", flat=True)) == ["fail", "pass"]


def test_a_copy_of_a_harbor_job_folder_at_another_path_is_nothing_new(
    registry, submitter_api, tmp_path
):
    job = job_folder(tmp_path, {"fix-git__a": trial_result("fix-git", "fix-git__a")})
    first = post(submitter_api, tar_gz_of(job), "job.tar.gz", format="harbor")
    copy = shutil.copytree(job, tmp_path / "copies" / "job-2026-11-01")
    second = post(submitter_api, tar_gz_of(copy), "job-2026-11-01.tar.gz", format="harbor")

    assert second.status_code == 202, second.json()
    detail = submitter_api.get(second.json()["url"]).json()
    earlier = first.json()["id"]
    assert (detail["status"], detail["errors"], detail["runs"]) == ("ingested", [], 0)
    assert detail["duplicate_of"] == earlier
    assert detail["summary"] == f"nothing new: these runs are already submission {earlier}"
    assert submitter_api.get(first.json()["url"]).json()["duplicate_of"] is None
    # Its bytes again: the same answer, as it is.
    again = post(submitter_api, tar_gz_of(copy), "job-2026-11-01.tar.gz", format="harbor")
    assert (again.status_code, again.json()["id"]) == (200, second.json()["id"])
    assert again.json()["detail"].endswith(
        f"nothing new: these runs are already submission {earlier}"
    )
    assert Run.objects.count() == 1


def test_a_tau_bench_file_written_again_under_another_name_is_nothing_new(
    registry, submitter_api, tmp_path
):
    items = [tau_result("fix-git", 0, 1.0), tau_result("regex-log", 0, 0.0)]
    path = write_tau(tmp_path, items)
    first = post(submitter_api, path.read_bytes(), path.name, format="tau-bench", model="m")
    compact = json.dumps(items).encode()  # the same results, other bytes and run ids
    second = post(submitter_api, compact, "airline-copy.json", format="tau-bench", model="m")

    detail = submitter_api.get(second.json()["url"]).json()
    earlier = first.json()["id"]
    assert (detail["status"], detail["duplicate_of"], detail["errors"]) == ("ingested", earlier, [])
    assert detail["summary"] == f"nothing new: these runs are already submission {earlier}"
    assert Run.objects.count() == 2


def test_the_same_native_runs_from_another_account_are_rejected(
    registry, submitter_api, other_submitter, tmp_path
):
    job = job_folder(tmp_path, {"fix-git__a": trial_result("fix-git", "fix-git__a")})
    first = post(submitter_api, tar_gz_of(job), "job.tar.gz", format="harbor")
    copy = shutil.copytree(job, tmp_path / "theirs")
    other = post(token_client(other_submitter), tar_gz_of(copy), "theirs.tar.gz", format="harbor")

    (error,) = rejection(token_client(other_submitter), other)
    assert error["message"].startswith(
        f"these runs were already submitted by another account (submission {first.json()['id']})"
    )
    detail = token_client(other_submitter).get(other.json()["url"]).json()
    assert detail["duplicate_of"] is None
    assert Run.objects.count() == 1
