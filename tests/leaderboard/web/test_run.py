"""The run page (leaderboard.web.run): facts and the folded trajectory."""

from __future__ import annotations

from django.urls import reverse

from ingestion.models import Submission
from tests.leaderboard.boards.builders import build_agent, trajectory


def test_it_renders_a_run_with_its_facts_and_trajectory(client, registry, submitter):
    _, _, runs = build_agent(submitter)
    run = runs["fail"]
    run.trajectory = trajectory()
    run.verifier = {"name": "tb-verifier", "version": "4.0.0", "items": [1]}
    run.save()
    html = client.get(reverse("run", args=[run.pk])).content.decode()
    assert run.task.task_id in html
    assert f'href="/tasks/terminal-bench/4.0.0/{run.task.task_id}/"' in html  # its task's page
    assert "Terminal-Bench 4.0.0" in html
    assert "✗ fail" in html
    assert "$0.05" in html and "10.0k in · 1.0k out" in html
    assert "4 min 10 s" in html
    assert "tb-verifier" in html
    assert '<span class="exit exit-bad">✗ exit 2</span>' in html
    assert '<span class="exit exit-ok">✓ exit 0</span>' in html
    assert '<ol class="conversation">' in html


def test_it_escapes_trajectory_text_and_tool_arguments(client, registry, submitter):
    _, _, runs = build_agent(submitter)
    run = runs["pass"]
    run.trajectory = trajectory()
    run.save()
    html = client.get(reverse("run", args=[run.pk])).content.decode()
    for raw in (
        "<script>alert(1)</script>",
        "<script>alert(2)</script>",
        "<img src=x",
        "<b>tool</b>",
    ):
        assert raw not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(3)&gt;" in html
    assert 'class="turn turn-other"' in html


def test_it_folds_text_over_40_lines(client, registry, submitter):
    _, _, runs = build_agent(submitter)
    run = runs["pass"]
    run.trajectory = trajectory()
    run.save()
    html = client.get(reverse("run", args=[run.pk])).content.decode()
    assert html.count("<summary>show all 60 lines</summary>") == 2
    head, rest = html.split("<summary>show all 60 lines</summary>", 1)
    assert "line 40\n" in head[-400:] or "line 40</pre>" in head
    assert "line 41" in rest.split("</details>")[0]


def test_it_says_when_a_run_has_no_trajectory(client, registry, submitter):
    _, _, runs = build_agent(submitter)
    html = client.get(reverse("run", args=[runs["infra"].pk])).content.decode()
    assert "No trajectory was submitted for this run." in html
    assert "infra error (Timeout)" in html.lower() or "Timeout" in html


def test_it_marks_a_conflict_excluded_and_a_withdrawn_run(client, registry, submitter):
    _, _, runs = build_agent(submitter)
    assert (
        'is <a href="/methodology/#conflict-of-interest">conflict-excluded</a>'
        in client.get(reverse("run", args=[runs["conflict"].pk])).content.decode()
    )
    assert (
        "submission was withdrawn"
        in client.get(reverse("run", args=[runs["withdrawn"].pk])).content.decode()
    )


def test_it_hides_runs_of_rejected_submissions(client, registry, submitter):
    _, _, runs = build_agent(submitter)
    Submission.objects.filter(pk=runs["pass"].submission_id).update(
        status=Submission.Status.REJECTED
    )
    assert client.get(reverse("run", args=[runs["pass"].pk])).status_code == 404
    assert client.get("/runs/999999/").status_code == 404
