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

from ingestion.models import Session, Submission, ToolCall, Turn
from leaderboard.models import SessionScore
from leaderboard.signalboard.compute import signal_rows
from leaderboard.signalboard.loading import load_sessions
from leaderboard.signalboard.scoring import sessions_score_pending
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
    again = submitter_api.get(second.json()["url"]).json()
    assert (again["status"], again["errors"], again["duplicate_of"]) == (
        "ingested", [], first.json()["id"],
    )  # fmt: skip
    assert (
        again["summary"]
        == f"nothing new: these sessions are already submission {first.json()['id']}"
    )
    assert Session.objects.count() == 3


def test_a_malformed_upload_is_rejected_naming_the_line(submitter_api, tmp_path):
    path = next(project(tmp_path).glob(f"{SESSION}.jsonl"))
    content = path.read_bytes().replace(b"\n", b"\n{oops\n", 1)
    response = post(submitter_api, content, path.name, format="claude-code")
    detail = submitter_api.get(response.json()["url"]).json()
    assert detail["status"] == "rejected"
    assert [(e["file"], e["line"]) for e in detail["errors"]] == [(path.name, 2)]


def test_a_rejected_session_is_named_at_its_transcript_line(submitter_api, tmp_path):
    t = Transcript()
    t.prompt("Use the browser")
    t.say(text("Opening it."), tool("x" * 201, url="https://example.org"))
    path = t.write(tmp_path)
    response = post(submitter_api, path.read_bytes(), path.name, format="claude-code")
    detail = submitter_api.get(response.json()["url"]).json()
    assert detail["status"] == "rejected"
    too_long = "must be at most 200 characters (got 201)"
    # The call names the tool, and the session's toolset lists it: both are refused.
    assert [(e["file"], e["line"], e["field"], e["message"]) for e in detail["errors"]] == [
        (path.name, 1, "turns[1].tool_calls[0].tool", too_long),
        (path.name, 1, "toolset[0].name", too_long),
    ]


# ------------------------------------------------------------------ sessions that grew


def stored_turns(session_id: str) -> list[tuple]:
    """(id, position, role, text, labels) of the session's stored turns, in order."""
    turns = Turn.objects.filter(session__session_id=session_id).order_by("position")
    return list(turns.values_list("id", "position", "role", "text", "labels"))


def score_of(session_id: str) -> dict:
    """The session's stored score, without when and from which rows it was written."""
    row = SessionScore.objects.filter(session__session_id=session_id).values().get()
    return {k: v for k, v in row.items() if k not in ("scored_at", "turns_seen", "calls_seen")}


def resumed(t: Transcript) -> None:
    """The conversation resumed (`claude --resume`): more lines in the same file."""
    again = bash("pytest -q tests/test_login.py")
    t.prompt("Now run the login tests as well")
    t.say(text("Looking."), again)
    t.bash_failed(again, 1, "1 failed")
    fixed = bash("pytest -q tests/test_login.py -p no:randomly")
    t.say(text("It depends on the order; pinned it."), fixed)
    t.bash_ok(fixed, "4 passed")
    t.prompt("Perfect, thank you!")


def test_it_stores_the_new_turns_of_a_grown_session_and_rescores_it(staff, tmp_path, capsys):
    t = Transcript()
    t.prompt("Run the tests in /Users/jeyeng/Desktop/APP")
    first_run = bash("pytest -q")
    t.say(text("Running them."), first_run)
    t.bash_ok(first_run, "3 passed")
    folder = tmp_path / "-Users-jeyeng-Desktop-APP"
    t.write(folder)
    call_command("ingest", str(folder), format="claude-code", user="staff")
    first = Submission.objects.get()
    before = stored_turns(SESSION)
    assert [turn[2] for turn in before] == ["user", "assistant"]
    old_score = score_of(SESSION)

    resumed(t)
    t.write(folder)
    newer = Transcript("1f2e3d4c-0000-4000-8000-000000000002")
    newer.prompt("What does this repo do?")
    newer.say(text("It is a shop."))
    newer.write(folder)
    capsys.readouterr()
    call_command("ingest", str(folder), format="claude-code", user="staff", check=True)
    added = f"added: 1 session grew by 4 turns (stored in submission {first.pk}), 1 new session"
    assert added in capsys.readouterr().out
    assert stored_turns(SESSION) == before  # a check stores nothing
    call_command("ingest", str(folder), format="claude-code", user="staff")

    second = Submission.objects.exclude(pk=first.pk).get()
    out = capsys.readouterr().out
    assert f"submission {second.pk} ingested: 0 runs, 1 sessions" in out
    assert (
        f"added: 1 session grew by 4 turns (stored in submission {first.pk}), 1 new session" in out
    )
    assert second.report["grown"] == {"sessions": 1, "turns": 4, "submissions": {str(first.pk): 1}}
    # The stored turns stay as they were (ids, labels); the new ones follow them.
    after = stored_turns(SESSION)
    assert after[:2] == before
    assert [(position, role, text) for _, position, role, text, _ in after[2:]] == [
        (2, "user", "Now run the login tests as well"),
        (3, "assistant", "Looking."),
        (4, "assistant", "It depends on the order; pinned it."),
        (5, "user", "Perfect, thank you!"),
    ]
    assert Session.objects.get(session_id=SESSION).submission == first
    calls = ToolCall.objects.filter(turn__session__session_id=SESSION).order_by("turn__position")
    assert list(calls.values_list("exit_code", flat=True)) == [0, 1, 0]
    # Scored again, whole, by the recompute after the ingest: as scoring it afresh does.
    new_score = score_of(SESSION)
    assert (old_score["assistant_turns"], new_score["assistant_turns"]) == (1, 3)
    assert [labels for _, _, role, _, labels in stored_turns(SESSION) if role == "user"] == [
        [], ["iteration"], ["praise"],
    ]  # fmt: skip
    assert (old_score["praise_complaint"], new_score["praise_complaint"]) == (None, True)
    assert (old_score["episodes"], new_score["episodes"]) == (0, 1)  # a failure, then fixed
    SessionScore.objects.all().delete()
    assert sessions_score_pending() == 2
    assert score_of(SESSION) == new_score
