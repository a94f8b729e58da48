"""`manage.py ingest --format agentdojo`: an AgentDojo pipeline folder lands through the
one normal ingest path; a task the registry lacks rejects the upload, naming it; the
same runs again are recognised."""

from __future__ import annotations

import json
import shutil

import pytest
from django.core.management import CommandError, call_command

from ingestion.models import Run, Submission
from tests.ingestion.importers.agentdojo_builders import agentdojo_suite_load, pipeline_folder

pytestmark = pytest.mark.django_db(transaction=True)

NATIVE = {
    "harness": "AgentDojo",
    "harness_version": "0.1.34",
    "suite": "agentdojo",
    "suite_version": "v1.1.2",
    "user": "staff",
}
TASKS = ("banking/user_task_0", "banking/user_task_1", "slack/user_task_0")


@pytest.fixture
def agentdojo_registry(registry):
    return agentdojo_suite_load(TASKS)


def test_a_pipeline_folder_is_ingested_with_task_ids_of_suite_and_user_task(
    agentdojo_registry, staff, tmp_path, capsys
):
    folder = pipeline_folder(tmp_path)
    call_command("ingest", str(folder), format="agentdojo", **NATIVE)
    submission = Submission.objects.get()
    assert submission.status == Submission.Status.INGESTED
    assert submission.native_format == "agentdojo"
    stored = {(r.task.task_id, r.outcome) for r in Run.objects.select_related("task")}
    assert stored == {
        ("banking/user_task_0", "pass"),
        ("banking/user_task_1", "fail"),
        ("slack/user_task_0", "pass"),
    }
    # The same runs from another folder name: the same bundle, nothing new.
    copy = tmp_path / "again"
    shutil.copytree(folder, copy)
    call_command("ingest", str(copy), format="agentdojo", **NATIVE)
    assert Run.objects.count() == 3


def test_a_task_the_registry_lacks_rejects_the_upload_naming_it(registry, staff, tmp_path, capsys):
    agentdojo_suite_load(TASKS[:2])  # slack/user_task_0 is not registered
    with pytest.raises(SystemExit):
        call_command("ingest", str(pipeline_folder(tmp_path)), format="agentdojo", **NATIVE)
    assert Run.objects.count() == 0
    assert Submission.objects.get().status == Submission.Status.REJECTED
    err = capsys.readouterr().err
    assert "task agentdojo v1.1.2/slack/user_task_0 is not in the registry or not approved" in err
    assert "(from slack/user_task_0/none/none.json)" in err


def test_attack_and_a_task_list_by_version_are_options(agentdojo_registry, staff, tmp_path):
    folder = pipeline_folder(tmp_path)
    lists = tmp_path / "ids.json"
    lists.write_text(json.dumps({"v1.1.2": {
        "banking": {"user_tasks": ["user_task_0"], "injection_tasks": ["injection_task_1"]},
    }}))  # fmt: skip
    call_command(
        "ingest", str(folder), format="agentdojo", attack="important_instructions",
        task_ids=lists, benchmark_version="v1.1.2", **NATIVE,
    )  # fmt: skip
    submission = Submission.objects.get()
    assert submission.native_params["attack"] == "important_instructions"
    assert submission.native_params["task_ids"] == [
        "banking/injection_task_1",
        "banking/user_task_0",
    ]
    [run] = Run.objects.all()
    assert run.extra["injection_task"] == "injection_task_1"
    assert submission.report["refused"] == {"task not in the given task list": 1}


def test_agentdojo_options_apply_to_agentdojo_only(registry, staff, tmp_path):
    with pytest.raises(CommandError, match="--attack only apply to --format agentdojo"):
        call_command(
            "ingest", str(pipeline_folder(tmp_path)), format="tau-bench", attack="direct",
            model="m", **NATIVE,
        )  # fmt: skip


# ------------------------------------------------------------------ the API


def test_the_api_takes_an_archived_pipeline_folder_with_attack_and_task_ids(
    agentdojo_registry, submitter_api, tmp_path
):
    from tests.ingestion.test_api_native import post, tar_gz_of

    folder = pipeline_folder(tmp_path)
    fields = {k: v for k, v in NATIVE.items() if k != "user"}
    response = post(
        submitter_api, tar_gz_of(folder), "pipeline.tar.gz", format="agentdojo",
        attack="important_instructions",
        task_ids=json.dumps(["banking/user_task_0", "banking/injection_task_0"]), **fields,
    )  # fmt: skip
    assert response.status_code == 202, response.json()
    detail = submitter_api.get(response.json()["url"]).json()
    assert (detail["status"], detail["runs"]) == ("ingested", 1)
    [run] = Run.objects.all()
    assert (run.extra["attack"], run.extra["injection_task"]) == (
        "important_instructions", "injection_task_0",
    )  # fmt: skip


def test_the_api_refuses_agentdojo_fields_for_other_formats(registry, submitter_api, tmp_path):
    from tests.ingestion.test_api_native import post

    response = post(
        submitter_api, b"[]", "results.json", format="tau-bench", model="m",
        task_ids="not json", attack="direct",
    )  # fmt: skip
    assert response.status_code == 400
    assert "task_ids" in response.json()
