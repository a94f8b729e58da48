"""The task pages' reads (leaderboard.boards.task_selectors): per-entry solve rates and
first tries of one task, and a board's tasks by difficulty."""

from __future__ import annotations

import pytest

from ingestion.models import Harness, LanguageModel, Person, Task
from leaderboard.boards import task_selectors
from leaderboard.methodology import stats
from leaderboard.models import Board
from leaderboard.recompute.services import boards_recompute
from tests.leaderboard.boards.builders import make_run, make_submission

pytestmark = pytest.mark.django_db

SUITE_BOARD = "terminal-bench-4.0.0"


def agent(user, name: str, model: str = "frontier-large"):
    harness, _ = Harness.objects.get_or_create(name=name, version="1.0")
    found, _ = LanguageModel.objects.get_or_create(name=model)
    return make_submission(user, harness), found


def task(task_id: str) -> Task:
    return Task.objects.get(suite__slug="terminal-bench", task_id=task_id)


def suite_board() -> Board:
    return Board.objects.get(snapshot__is_current=True, slug=SUITE_BOARD)


def rows_by_harness(found: Task) -> dict[str, task_selectors.TaskEntry]:
    return {
        row.entry.harness_name: row for row in task_selectors.task_entries(found, suite_board())
    }


def test_it_counts_a_tasks_runs_per_entry_as_the_board_does(registry, submitter):
    target = task("regex-log")
    submission, model = agent(submitter, "Alpha")
    for trial, outcome in enumerate(["fail", "pass", "pass", "infra_error"], start=1):
        make_run(submission, model, target, trial, outcome)
    boards_recompute()
    row = rows_by_harness(target)["Alpha"]
    assert (row.runs, row.solve.n, row.solve.passes) == (4, 3, 2)
    assert (row.solve.wilson_low, row.solve.wilson_high) == stats.wilson_interval(2, 3)
    assert [(link.trial, link.status) for link in row.links] == [
        (1, "fail"), (2, "pass"), (3, "pass"), (4, "infra_error"),
    ]  # fmt: skip
    assert (row.first_try.n, row.first_try.passes) == (1, 0)


def test_the_first_try_is_the_lowest_counted_trial_of_every_submission(registry, submitter):
    target = task("regex-log")
    first, model = agent(submitter, "Beta")
    second = make_submission(submitter, first.harness)
    make_run(first, model, target, 1, "infra_error")  # not an attempt of the agent's
    make_run(first, model, target, 2, "pass")
    make_run(second, model, target, 2, "fail")
    make_run(second, model, target, 3, "fail")
    boards_recompute()
    row = rows_by_harness(target)["Beta"]
    # Trial 2 is the first counted one, and both submissions hold one.
    assert (row.first_try.n, row.first_try.passes) == (2, 1)


def test_it_counts_nothing_of_a_conflict_excluded_pair(registry, submitter):
    authored = Task.objects.filter(authors__handle="mira.chen", suite__slug="terminal-bench")[0]
    submission, model = agent(submitter, "Gamma")
    submission.harness.contributors.add(Person.objects.get(handle="mira.chen"))
    make_run(submission, model, authored, 1, "pass")
    make_run(submission, model, task("regex-log"), 1, "pass")  # an entry on the board
    boards_recompute()
    row = rows_by_harness(authored)["Gamma"]
    assert row.conflict_excluded and (row.solve.n, row.first_try.n) == (0, 0)
    assert row.runs == 1 and [link.status for link in row.links] == ["conflict"]


def test_it_links_the_first_runs_and_counts_the_rest(registry, submitter):
    target = task("regex-log")
    submission, model = agent(submitter, "Delta")
    for trial in range(1, task_selectors.RUN_LINKS + 4):
        make_run(submission, model, target, trial, "pass")
    boards_recompute()
    row = rows_by_harness(target)["Delta"]
    assert [link.trial for link in row.links] == list(range(1, task_selectors.RUN_LINKS + 1))
    assert row.more_runs == 3


def test_it_puts_the_most_solved_entry_first(registry, submitter, other_submitter):
    target = task("regex-log")
    weak, model = agent(submitter, "Weak")
    strong, _ = agent(other_submitter, "Strong")
    for trial in range(1, 5):
        make_run(weak, model, target, trial, "fail" if trial > 1 else "pass")
        make_run(strong, model, target, trial, "pass")
    boards_recompute()
    rows = task_selectors.task_entries(target, suite_board())
    assert [row.entry.harness_name for row in rows] == ["Strong", "Weak"]


def test_it_lists_a_boards_tasks_the_least_solved_first(registry, submitter, other_submitter):
    easy, hard = task("regex-log"), task("fix-git")
    unsolved, unsure = task("git-multibranch"), task("sqlite-db-truncate")
    one, model = agent(submitter, "One")
    two, _ = agent(other_submitter, "Two")
    for trial in range(1, 5):
        make_run(one, model, easy, trial, "pass")
        make_run(two, model, easy, trial, "pass" if trial < 4 else "fail")
        make_run(one, model, hard, trial, "fail")
        make_run(two, model, hard, trial, "pass" if trial == 1 else "fail")
        make_run(one, model, unsolved, trial, "fail")
        make_run(two, model, unsolved, trial, "fail")
    make_run(one, model, unsure, 1, "fail")
    boards_recompute()
    tasks = task_selectors.hardest_tasks(SUITE_BOARD)
    order = [t.task_id for t in tasks]
    # 0 of 8 and 0 of 1 share the lowest rate: the surer (the lower upper end) first.
    assert order[:4] == ["git-multibranch", "sqlite-db-truncate", "fix-git", "regex-log"]
    by_id = {t.task_id: t for t in tasks}
    assert (by_id["fix-git"].solve.n, by_id["fix-git"].solve.passes) == (8, 1)
    assert (by_id["fix-git"].agents, by_id["fix-git"].solved_by) == (2, 1)
    assert (by_id["regex-log"].agents, by_id["regex-log"].solved_by) == (2, 2)
    # Every task of the suite is listed; those without counted runs last.
    assert len(tasks) == Task.objects.filter(suite__slug="terminal-bench", approved=True).count()
    assert all(t.solve.n == 0 for t in tasks[4:])


def test_it_lists_the_tasks_of_a_category_board_across_suites(registry, submitter):
    submission, model = agent(submitter, "Epsilon")
    make_run(submission, model, task("fix-git"), 1, "pass")
    boards_recompute()
    tasks = task_selectors.hardest_tasks("category-bugfix")
    suites = {t.suite_slug for t in tasks}
    assert {"terminal-bench", "core"} <= suites and {t.category for t in tasks} == {"bugfix"}
