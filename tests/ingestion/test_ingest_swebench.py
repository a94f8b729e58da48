"""`ingest --format swebench|task-matrix --entry …` and the API's `entry` field: one entry
of a file of several lands through the normal ingest path; another entry of the same
file is another submission."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from ingestion.models import Run, Submission
from tests.ingestion.importers.swebench_builders import detail, entry, leaderboards, write_json

pytestmark = pytest.mark.django_db(transaction=True)

NATIVE = {
    "harness": "mini-swe-agent", "harness_version": "1.0.0",
    "suite": "terminal-bench", "suite_version": "4.0.0", "user": "staff",
}  # fmt: skip


def two_entries(tmp_path):
    a = {"fix-git": detail(True, 0.5, 10), "regex-log": detail(False, 0.25, 4)}
    b = {"fix-git": detail(False, 0.75, 20)}
    return write_json(tmp_path, leaderboards(entry("Model A", a), entry("Model B", b)))


def test_it_ingests_the_entry_named(registry, staff, tmp_path, capsys):
    path = two_entries(tmp_path)
    with pytest.raises(SystemExit):
        call_command("ingest", str(path), format="swebench", **NATIVE)
    assert "holds 2 entries: give entry, one of" in capsys.readouterr().err

    call_command("ingest", str(path), entry="Model A", model="frontier-large", **NATIVE)
    call_command("ingest", str(path), entry="Model B", model="frontier-small", **NATIVE)
    a, b = Submission.objects.filter(status="ingested").order_by("pk")
    assert (a.native_format, a.native_params["entry"], b.native_params["entry"]) == (
        "swebench", "Model A", "Model B"
    )  # fmt: skip
    assert a.report["totals"]["resolved"] == 1
    runs = {(r.model.name, r.task.task_id): (r.outcome, r.tool_calls) for r in Run.objects.all()}
    assert runs == {
        ("frontier-large", "fix-git"): ("pass", 10),
        ("frontier-large", "regex-log"): ("fail", 4),
        ("frontier-small", "fix-git"): ("fail", 20),
    }


def test_it_takes_the_entry_from_the_api(registry, submitter_api, tmp_path):
    path = tmp_path / "matrix.csv"
    path.write_text("task,agent,model,outcome\nfix-git,oh,m,pass\nfix-git,swe,m,fail\n")
    fields = {k: v for k, v in NATIVE.items() if k != "user"}
    data = {"file": SimpleUploadedFile(path.name, path.read_bytes()), "format": "task-matrix",
            "entry": "swe", **fields}  # fmt: skip
    response = submitter_api.post("/api/v1/submissions/", data, format="multipart")
    assert response.status_code == 202, response.json()
    detail_ = submitter_api.get(response.json()["url"]).json()
    assert (detail_["status"], detail_["runs"]) == ("ingested", 1)
    assert detail_["report"] == {"refused": {"another agent's row": 1}}
    assert Run.objects.get().outcome == "fail"
