"""The agent page (leaderboard.boards.views.agent): board rows and the task grid."""

from __future__ import annotations

from django.urls import reverse

from leaderboard.models import ConflictDecision
from tests.leaderboard.boards.builders import agent_figures, build_agent, build_snapshot


def test_it_renders_the_agent_page(client, registry, submitter):
    build_agent(submitter)
    build_snapshot({"overall": [agent_figures("OpenHarness", "0.9.2", "frontier-large",
                                              pass_hat_k={"1": {"value": 0.7, "pass_at_k": 0.7, "tasks": 3},
                                                          "2": {"value": 0.5, "pass_at_k": 0.9, "tasks": 2}})]})  # fmt: skip
    response = client.get(reverse("agent", args=["OpenHarness", "0.9.2", "frontier-large"]))
    html = response.content.decode()
    assert response.status_code == 200
    assert "<h1>OpenHarness 0.9.2 · frontier-large</h1>" in html
    assert "Dev One" in html and "mira.chen" in html
    assert 'href="/boards/overall/"' in html
    assert '<td class="num">1</td>' in html
    assert '<script id="pass-k-figure" type="application/json">' in html
    assert "Withdrawn (not counted)" in html


def test_it_draws_the_task_grid_with_symbols_and_run_links(client, registry, submitter):
    _, _, runs = build_agent(submitter)
    html = client.get(
        reverse("agent", args=["OpenHarness", "0.9.2", "frontier-large"])
    ).content.decode()
    for key, status, symbol in [("pass", "pass", "✓"), ("fail", "fail", "✗"),
                                ("infra", "infra_error", "!"), ("conflict", "conflict", "⊘")]:  # fmt: skip
        run = runs[key]
        assert f'<a class="cell cell-{status}" href="/runs/{run.pk}/"' in html
        assert f">{symbol}</a>" in html
    assert f'href="/runs/{runs["withdrawn"].pk}/"' not in html
    assert "conflict-excluded</a> (1)" in html
    assert "Terminal-Bench 4.0.0" in html


def test_it_keeps_a_dismissed_conflict_counted(client, registry, submitter):
    harness, _, runs = build_agent(submitter)
    ConflictDecision.objects.create(harness=harness, task=runs["conflict"].task, decision="dismiss")
    html = client.get(
        reverse("agent", args=["OpenHarness", "0.9.2", "frontier-large"])
    ).content.decode()
    assert f'<a class="cell cell-pass" href="/runs/{runs["conflict"].pk}/"' in html


def test_it_shows_a_shared_rank_on_the_agent_page(client, registry, submitter):
    build_agent(submitter)
    build_snapshot({"overall": [agent_figures("OpenHarness", "0.9.2", "frontier-large", passes=70),
                                agent_figures("Quill", "2.1.0", "frontier-large", passes=70)]})  # fmt: skip
    html = client.get(
        reverse("agent", args=["OpenHarness", "0.9.2", "frontier-large"])
    ).content.decode()
    assert '<td class="num">=1</td>' in html


def test_it_escapes_markup_in_a_harness_name_on_the_agent_page(client, registry, submitter):
    # A name with a "/" cannot be a URL segment, so this one has none.
    name = "<img src=x onerror=alert(1)>"
    build_agent(submitter, harness_name=name)
    response = client.get(reverse("agent", args=[name, "0.9.2", "frontier-large"]))
    html = response.content.decode()
    assert response.status_code == 200
    assert name not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_it_returns_404_for_an_unknown_agent(client, db):
    assert client.get("/agents/Nobody/1.0/none/").status_code == 404
