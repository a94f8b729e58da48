"""The public read API: runs with trajectories, the OpenAPI schema, CORS."""

from __future__ import annotations

import pytest

from ingestion.models import Run, Submission
from ingestion.services.intake import submission_ingest
from tests.builders import harness_manifest, run_line, tar_gz_bundle

pytestmark = pytest.mark.django_db(transaction=True)

TRAJECTORY = [
    {"role": "user", "text": "Fix the repo <script>alert(1)</script>"},
    {
        "role": "assistant",
        "text": "ok",
        "tool_calls": [{"tool": "bash", "arguments": {"command": "git status"}, "exit_code": 0}],
    },
]


def one_run(user, **fields) -> Run:
    run = run_line("r-1", trajectory=TRAJECTORY, tokens={"input": 10, "output": 2}, **fields)
    submission, _ = submission_ingest(upload=tar_gz_bundle(harness_manifest(), [run]), user=user)
    assert submission.status == "ingested", submission.errors
    return Run.objects.get(submission=submission)


def test_it_returns_a_run_with_its_trajectory(registry, submitter, client):
    run = one_run(submitter, checkpoints={"passed": 1, "total": 2})
    body = client.get(f"/api/v1/runs/{run.pk}/").json()
    assert (body["run_id"], body["harness"], body["task_id"], body["suite_version"]) == (
        "r-1",
        "TestHarness",
        "fix-git",
        "4.0.0",
    )
    assert (body["outcome"], body["infra_error"], body["withdrawn"]) == ("pass", None, False)
    assert body["tokens"] == {"input": 10, "output": 2}
    assert body["checkpoints"] == {"passed": 1, "total": 2}
    assert body["duration_s"] == 60.0
    assert body["trajectory"] == TRAJECTORY  # JSON carries the text as given; pages escape it


def test_it_hides_runs_of_rejected_submissions(registry, submitter, client):
    run = one_run(submitter)
    Submission.objects.filter(pk=run.submission_id).update(status="rejected")
    assert client.get(f"/api/v1/runs/{run.pk}/").status_code == 404
    assert client.get("/api/v1/runs/999999/").status_code == 404


def test_it_serves_the_openapi_schema_with_every_endpoint(client):
    response = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert set(schema["paths"]) >= {
        "/api/v1/boards/", "/api/v1/boards/{slug}/", "/api/v1/signals/", "/api/v1/runs/{id}/",
        "/api/v1/submissions/", "/api/v1/submissions/{id}/",
    }  # fmt: skip


def test_it_lets_any_origin_read_the_public_api(registry, client):
    response = client.get("/api/v1/boards/", HTTP_ORIGIN="https://example.org")
    assert response["Access-Control-Allow-Origin"] == "*"
    private = client.get("/api/v1/submissions/", HTTP_ORIGIN="https://example.org")
    assert "Access-Control-Allow-Origin" not in private


@pytest.mark.django_db
def test_it_gives_each_entry_its_trajectory_and_violations(client, submitter):
    from leaderboard.methodology import stats
    from tests.ingestion.services import trace_builders

    trace_builders.two_agents(submitter)
    body = client.get(f"/api/v1/boards/{trace_builders.BOARD}/").json()
    rows = {row["harness"]: row for row in body["entries"]}
    low, high = stats.wilson_interval(1, 3)
    assert rows["Other"]["trajectory"]["exact_args"] == {
        "value": 1 / 3, "low": low, "high": high, "n": 3,
    }  # fmt: skip
    assert rows["Other"]["violations"] == {"checked": 3, "any": 1, "rules": {"no-delete": 1}}
    assert rows["Toolsmith"]["violations"] == {"checked": 3}
