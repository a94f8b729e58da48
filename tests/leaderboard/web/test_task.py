"""The task page and a board's hardest tasks (leaderboard.web.task, web.board_tasks)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from ingestion.models import Harness, LanguageModel, Task
from leaderboard.methodology import stats
from leaderboard.presentation.figures import percent
from leaderboard.recompute.services import boards_recompute
from tests.leaderboard.boards.builders import agent_order, make_run, make_submission

pytestmark = pytest.mark.django_db


def task_path(task_id: str, suite: str = "terminal-bench", version: str = "4.0.0") -> str:
    return reverse("task", args=[suite, version, task_id])


def runs_of(user, count: int, task_ids: list[str]) -> None:
    """`count` agents, each with three trials of every task named, then a recompute."""
    model, _ = LanguageModel.objects.get_or_create(name="frontier-large")
    tasks = list(Task.objects.filter(task_id__in=task_ids))
    for i in range(count):
        harness, _ = Harness.objects.get_or_create(name=f"Agent{i}", version="1.0")
        submission = make_submission(user, harness)
        for found in tasks:
            for trial in (1, 2, 3):
                make_run(submission, model, found, trial, "pass" if (i + trial) % 2 else "fail")
    boards_recompute()


def test_it_renders_the_task_page(client, registry, submitter):
    runs_of(submitter, 2, ["fix-git"])
    response = client.get(task_path("fix-git"))
    html = response.content.decode()
    assert response.status_code == 200
    assert "<title>fix-git · Terminal-Bench 4.0.0 · Arena</title>" in html
    assert '<h1 class="task-title">fix-git</h1>' in html
    assert "mira.chen" in html and "bugfix" in html
    assert html.count('<th scope="row" class="agent">') == 2
    assert 'href="/boards/terminal-bench-4.0.0/"' in html
    assert 'href="/boards/category-bugfix/"' in html  # it counts on its category's board
    assert 'href="/runs/' in html and 'href="/agents/Agent0/1.0/frontier-large/"' in html


def test_it_shows_each_entrys_solve_rate_with_its_interval_and_first_try_rate(
    client, registry, submitter
):
    # Agent0 passes trials 1 and 3 of 3, Agent1 only trial 2: the first tries differ
    # from the solve rates, so each figure is read from its own column.
    runs_of(submitter, 2, ["fix-git"])
    html = client.get(task_path("fix-git")).content.decode()
    rows = html.split('<th scope="row" class="agent">')[1:]
    assert agent_order(html) == ["Agent0", "Agent1"]
    for row, passes, first_passes in zip(rows, (2, 1), (1, 0), strict=True):
        low, high = stats.wilson_interval(passes, 3)
        assert f'<span class="pass-value">{percent(passes / 3)}</span>' in row
        assert f"95% CI {percent(low)}–{percent(high)} (Wilson, z = {stats.Z})" in row
        first_try = f'<span title="{first_passes} of 1 first tries passed">'
        assert f"{first_try}{percent(float(first_passes))}</span>" in row


def test_it_finds_a_task_whose_id_holds_a_slash(client, registry, submitter):
    runs_of(submitter, 1, ["cpp/all-your-base"])
    path = task_path("cpp/all-your-base", "aider-polyglot", "1.0.0")
    assert path == "/tasks/aider-polyglot/1.0.0/cpp/all-your-base/"
    assert client.get(path).status_code == 200


def test_it_answers_404_for_an_unknown_task(client, registry, submitter):
    runs_of(submitter, 1, ["fix-git"])
    assert client.get(task_path("no-such-task")).status_code == 404
    assert client.get(task_path("fix-git", version="9.9.9")).status_code == 404


def test_it_escapes_the_tasks_text(client, registry, submitter):
    found = Task.objects.get(task_id="fix-git")
    found.task_id = "<script>alert(1)</script>"
    found.save()
    runs_of(submitter, 1, [found.task_id])
    html = client.get(task_path(found.task_id)).content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


@pytest.mark.parametrize("count", [2, 12])
def test_the_task_page_reads_a_fixed_number_of_queries(
    client, registry, submitter, django_assert_max_num_queries, count
):
    runs_of(submitter, count, ["fix-git"])
    # The current boards, the task, its rollups, its runs, the entries.
    with django_assert_max_num_queries(6):
        html = client.get(task_path("fix-git")).content.decode()
    assert html.count('<th scope="row" class="agent">') == count
    with django_assert_max_num_queries(1):  # cached: which boards are current
        assert client.get(task_path("fix-git")).status_code == 200


def test_it_lists_a_suites_tasks_the_hardest_first(client, registry, submitter):
    runs_of(submitter, 2, ["fix-git", "regex-log"])
    response = client.get(reverse("board-tasks", args=["terminal-bench-4.0.0"]))
    html = response.content.decode()
    assert response.status_code == 200
    assert "<h1>Hardest tasks: Terminal-Bench 4.0.0</h1>" in html
    assert f'href="{task_path("fix-git")}"' in html and f'href="{task_path("regex-log")}"' in html
    assert "2 of 2" in html  # solved by both agents


@pytest.mark.parametrize("count", [2, 12])
def test_the_hardest_tasks_read_a_fixed_number_of_queries(
    client, registry, submitter, django_assert_max_num_queries, count
):
    runs_of(submitter, count, ["fix-git", "regex-log"])
    with django_assert_max_num_queries(2):  # the current boards, the tasks' totals
        response = client.get(reverse("board-tasks", args=["overall"]))
    assert response.status_code == 200
    assert "Aider Polyglot" in response.content.decode()  # a pooled board names the suite


def test_the_hardest_tasks_of_an_unknown_board_are_404(client, registry, submitter):
    runs_of(submitter, 1, ["fix-git"])
    assert client.get(reverse("board-tasks", args=["no-such-board"])).status_code == 404
