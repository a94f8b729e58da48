"""Claude Code transcripts through `manage.py ingest` and `POST /api/v1/submissions/`:
converted into sessions, ingested, and scored on the signal boards."""

from __future__ import annotations

import gzip
import io
import tarfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import transaction

from ingestion.models import Session, Submission
from leaderboard.signalboard.compute import signal_rows
from leaderboard.signalboard.loading import load_sessions
from tests.ingestion.importers.transcripts.builders import (
    REJECT_WITH_REASON,
    SESSION,
    SONNET,
    Transcript,
    bash,
    text,
    tool,
)

pytestmark = pytest.mark.django_db(transaction=True)


def project(tmp_path):
    """A project folder of ~/.claude/projects: a session that recovers from a failing
    command, is corrected, then switches model; and a second, short session."""
    t = Transcript()
    t.prompt("Run the tests in /Users/jeyeng/Desktop/APP")
    failing, fixed, rejected = (
        bash("pytest -q"),
        bash("pytest -q -p no:cacheprovider"),
        bash("pip install x"),
    )
    t.say(text("Running them."), failing)
    t.bash_failed(failing, 1, "1 failed")
    t.say(fixed)
    t.bash_ok(fixed, "3 passed")
    t.say(rejected)
    t.result(rejected, REJECT_WITH_REASON + "No, use the py311 environment.", is_error=True)
    t.prompt("Great, thanks!")
    t.command("model", "sonnet")
    t.prompt("Now write the changelog")
    t.say(text("Written."), model=SONNET)
    other = Transcript("1f2e3d4c-0000-4000-8000-000000000001")
    other.prompt("What does this repo do?")
    other.say(text("It is a shop."))
    folder = tmp_path / "-Users-jeyeng-Desktop-APP"
    t.write(folder)
    other.write(folder)
    return folder


def counted_sessions() -> dict[str, dict]:
    with transaction.atomic():
        return {s["model"]: s for s in load_sessions()}


def test_it_ingests_a_project_folder_into_the_signal_boards(staff, tmp_path, capsys):
    folder = project(tmp_path)
    call_command("ingest", str(folder), format="claude-code", scenario="software_development",
                 user="staff")  # fmt: skip

    submission = Submission.objects.get()
    assert f"submission {submission.pk} ingested: 0 runs, 3 sessions" in capsys.readouterr().out
    assert sorted(Session.objects.values_list("session_id", flat=True)) == [
        SESSION, f"{SESSION}~2", "1f2e3d4c-0000-4000-8000-000000000001",
    ]  # fmt: skip
    assert set(Session.objects.values_list("scenario", flat=True)) == {"software_development"}
    opus = next(s for s in load_sessions_of("claude-opus-4-7") if len(s["turns"]) > 2)
    # "Now write the changelog" asks for the next requirement: iteration, not correction.
    assert [t["labels"] for t in opus["turns"] if t["role"] == "user"] == [
        [], ["correction"], ["praise"], ["iteration"],
    ]  # fmt: skip
    assert [c["exit_code"] for t in opus["turns"] for c in t.get("tool_calls", [])] == [1, 0, None]
    assert "jeyeng" not in opus["turns"][0]["text"]
    composite = {r["model_name"]: r for r in signal_rows() if r["slice_kind"] == "composite"}
    assert {model: row["sessions"] for model, row in composite.items()} == {
        "claude-opus-4-7": 2, SONNET: 1,
    }  # fmt: skip


def load_sessions_of(model: str) -> list[dict]:
    with transaction.atomic():
        return [s for s in load_sessions() if s["model"] == model]


def test_auto_detection_finds_transcripts_and_ingesting_again_changes_nothing(
    staff, tmp_path, capsys
):
    folder = project(tmp_path)
    call_command("ingest", str(folder), user="staff")
    call_command("ingest", str(folder), user="staff")

    out = capsys.readouterr().out
    submission = Submission.objects.get()
    assert submission.native_format == "claude-code"
    assert f"already uploaded: submission {submission.pk} ingested: 0 runs, 3 sessions" in out
    assert Session.objects.count() == 3


# ------------------------------------------------------------------ the API


def tar_gz_of(folder, mtime: float = 0) -> bytes:
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=mtime) as compressed,
        tarfile.open(fileobj=compressed, mode="w") as archive,
    ):
        archive.add(folder, arcname=folder.name)
    return buffer.getvalue()


def post(api, content: bytes, name: str, **fields):
    data = {"file": SimpleUploadedFile(name, content), **fields}
    return api.post("/api/v1/submissions/", data, format="multipart")


def test_it_ingests_an_uploaded_transcript_file(submitter_api, tmp_path):
    path = next(project(tmp_path).glob(f"{SESSION}.jsonl"))
    response = post(submitter_api, path.read_bytes(), path.name, format="claude-code",
                    scenario="software_development", confirmation="yes")  # fmt: skip
    assert response.status_code == 202, response.json()
    detail = submitter_api.get(response.json()["url"]).json()
    assert (detail["status"], detail["runs"], detail["sessions"]) == ("ingested", 0, 2)
    assert set(Session.objects.values_list("confirmation", flat=True)) == {"yes"}


def test_it_ingests_an_archived_project_folder_once(submitter_api, tmp_path):
    folder = project(tmp_path)
    first = post(submitter_api, tar_gz_of(folder, mtime=1), "project.tar.gz", format="claude-code")
    second = post(submitter_api, tar_gz_of(folder, mtime=2), "project.tar.gz", format="claude-code")

    assert first.status_code == 202, first.json()
    assert submitter_api.get(first.json()["url"]).json()["sessions"] == 3
    rejected = submitter_api.get(second.json()["url"]).json()
    assert rejected["status"] == "rejected"
    assert "already submitted" in rejected["errors"][0]["message"]
    assert Session.objects.count() == 3


def test_a_malformed_upload_is_rejected_naming_the_line(submitter_api, tmp_path):
    path = next(project(tmp_path).glob(f"{SESSION}.jsonl"))
    content = path.read_bytes().replace(b"\n", b"\n{oops\n", 1)
    response = post(submitter_api, content, path.name, format="claude-code")
    detail = submitter_api.get(response.json()["url"]).json()
    assert detail["status"] == "rejected"
    assert [(e["file"], e["line"]) for e in detail["errors"]] == [(path.name, 2)]


def test_a_rejected_session_line_points_back_at_its_transcript_line(submitter_api, tmp_path):
    t = Transcript()
    t.prompt("Use the browser")
    t.say(text("Opening it."), tool("x" * 201, url="https://example.org"))
    path = t.write(tmp_path)
    response = post(submitter_api, path.read_bytes(), path.name, format="claude-code")
    detail = submitter_api.get(response.json()["url"]).json()
    assert detail["status"] == "rejected"
    assert [(e["file"], e["line"]) for e in detail["errors"]] == [("sessions.jsonl", 1)]
    assert detail["errors"][0]["message"].endswith(f"(from {path.name}:1)")
