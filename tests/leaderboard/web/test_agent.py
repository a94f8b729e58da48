"""The agent page (leaderboard.web.agent): board rows and the task grid."""

from __future__ import annotations

import re

from django.urls import reverse

from ingestion.models import Category, Harness, LanguageModel, Suite, Task
from leaderboard.models import ConflictDecision
from tests.leaderboard.boards.builders import (
    agent_figures,
    build_agent,
    build_snapshot,
    make_run,
    make_submission,
)


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
    # Each task of the grid opens its page.
    assert f'href="/tasks/terminal-bench/4.0.0/{runs["pass"].task.task_id}/"' in html


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


# -- pass^k of the board the visitor picks ------------------------------------------


def two_boards_of_pass_k() -> None:
    """The agent on Overall and on Terminal-Bench, each with its own pass^k figures."""

    def figures(value: float, tasks: int) -> dict:
        return agent_figures("OpenHarness", "0.9.2", "frontier-large", pass_hat_k={
            "1": {"value": value, "pass_at_k": value, "tasks": tasks},
            "2": {"value": value / 2, "pass_at_k": value, "tasks": tasks - 1},
        })  # fmt: skip

    build_snapshot({"overall": [figures(0.8, 31)], "terminal-bench-4.0.0": [figures(0.4, 17)]})


def agent_page(client, headers: dict | None = None, **query):
    url = reverse("agent", args=["OpenHarness", "0.9.2", "frontier-large"])
    return client.get(url, query, **(headers or {}))


def pass_k_rows(html: str) -> list[str]:
    """The `tasks` column of the pass^k table, which differs between the two boards."""
    section = html[html.index('id="pass-k-section"') :]
    return re.findall(r'<td class="num">(\d+)</td></tr>', section)


def test_it_shows_overall_pass_k_by_default_and_links_each_board(client, registry, submitter):
    build_agent(submitter)
    two_boards_of_pass_k()
    html = agent_page(client).content.decode()
    assert "Reliability: pass^k (Overall board)" in html
    assert pass_k_rows(html) == ["31", "30"]
    path = "/agents/OpenHarness/0.9.2/frontier-large/"
    assert f'href="{path}?board=terminal-bench-4.0.0#pass-k"' in html
    assert f'hx-get="{path}?board=terminal-bench-4.0.0"' in html
    assert f'href="{path}?board=overall#pass-k" hx-get="{path}?board=overall"' in html


def test_it_shows_the_pass_k_of_the_board_picked(client, registry, submitter):
    build_agent(submitter)
    two_boards_of_pass_k()
    html = agent_page(client, board="terminal-bench-4.0.0").content.decode()
    assert "Reliability: pass^k (Terminal-Bench 4.0.0 board)" in html
    assert pass_k_rows(html) == ["17", "16"]
    assert ">40.0%<" in html and ">20.0%<" in html


def test_it_answers_the_picker_s_htmx_request_with_the_section_only(client, registry, submitter):
    build_agent(submitter)
    two_boards_of_pass_k()
    headers = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "pass-k-section"}
    response = agent_page(client, board="terminal-bench-4.0.0", headers=headers)
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="pass-k-section"')
    assert "<h1>" not in html
    assert pass_k_rows(html) == ["17", "16"]
    assert "HX-Request" in response["Vary"]


def test_it_falls_back_to_overall_with_a_notice_for_a_board_it_is_not_on(
    client, registry, submitter
):
    build_agent(submitter)
    two_boards_of_pass_k()
    response = agent_page(client, board="no-such-board")
    html = response.content.decode()
    assert response.status_code == 200
    assert "no pass^k on a board &#x27;no-such-board&#x27;" in html
    assert "showing Overall" in html
    assert pass_k_rows(html) == ["31", "30"]


def test_it_lists_the_task_grid_in_natural_order(client, registry, submitter):
    harness, _ = Harness.objects.get_or_create(name="OpenHarness", version="0.9.2")
    model, _ = LanguageModel.objects.get_or_create(name="frontier-large")
    suite = Suite.objects.create(slug="numbered", version="1.0.0", name="Numbered", official=True)
    category = Category.objects.create(name="numbered-tasks")
    submission = make_submission(submitter, harness)
    ids = [str(n) for n in range(13)] + ["task-10", "task-2"]
    for task_id in reversed(ids):
        make_run(submission, model, Task.objects.create(suite=suite, task_id=task_id,
                                                        category=category), 1)  # fmt: skip
    html = agent_page(client).content.decode()
    shown = re.findall(r'<a class="task-name" href="[^"]*" title="[^"]*">([^<]*)</a>', html)
    assert shown == [*map(str, range(13)), "task-2", "task-10"]
