"""The board change log (page and API) and the agent page's History section."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from leaderboard.history.selectors import agent_history, board_change_log
from leaderboard.models import SubmissionDecision
from leaderboard.moderation.withdrawals import submission_withdraw
from leaderboard.recompute.services import boards_recompute_pending
from tests.builders import outcomes, submit

pytestmark = pytest.mark.django_db

AGENT = ("H", "1.0.0", "m")


@pytest.fixture
def history(registry, submitter, moderator):
    """An agent submitted twice (new, then changed) and a second agent withdrawn."""
    first = submit(submitter, outcomes("pass", "fail"))
    boards_recompute_pending()
    second = submit(submitter, outcomes("pass", "pass", prefix="b"))
    withdrawn = submit(submitter, outcomes("fail"), harness="W")
    boards_recompute_pending()
    submission_withdraw(submission=withdrawn, reason="duplicate", user=moderator)
    boards_recompute_pending()
    return {"first": first, "second": second, "withdrawn": withdrawn}


def test_it_lists_each_change_with_its_public_cause_for_a_visitor(history):
    response = Client().get(reverse("board-changes", args=["overall"]))
    assert response.status_code == 200
    page = response.content.decode()
    assert f"New submission: submission #{history['second'].pk}" in page
    assert f"Submission withdrawn: submission #{history['withdrawn'].pk} withdrawn" in page
    assert "/methodology/#history" in page
    assert "/submissions/" not in page and "/admin/" not in page  # closed to visitors
    assert "removed" in page and "new" in page
    assert "50.0% [" in page and "→ 75.0% [" in page  # the pass rate from → to


def test_it_links_the_records_behind_each_cause_for_a_moderator(history, moderator):
    client = Client()
    client.force_login(moderator)
    page = client.get(reverse("board-changes", args=["overall"])).content.decode()
    decision = SubmissionDecision.objects.get()
    assert reverse("admin:leaderboard_submissiondecision_change", args=[decision.pk]) in page
    assert reverse("submission-detail", args=[history["second"].pk]) in page


def test_it_answers_404_for_an_unknown_board(history):
    assert Client().get(reverse("board-changes", args=["nope"])).status_code == 404
    assert Client().get(reverse("api-board-changes", args=["nope"])).status_code == 404


def test_it_serves_the_change_log_in_the_api(history):
    response = Client().get(reverse("api-board-changes", args=["overall"]))
    assert response.status_code == 200
    data = response.json()
    assert (data["board"], data["page"], data["count"]) == ("overall", 1, 3)
    newest = data["results"][0]
    decision = SubmissionDecision.objects.get()
    assert [(c["kind"], c["record_id"]) for c in newest["causes"]] == [("withdrawal", decision.pk)]
    assert [(c["change"], c["harness"], c["after"]) for c in newest["changes"]] == [
        ("removed", "W", None)
    ]
    changed = next(c for c in data["results"][1]["changes"] if c["harness"] == "H")
    assert (changed["before"]["n"], changed["after"]["n"]) == (2, 4)
    assert "/api/v1/boards/{slug}/changes/" in Client().get(reverse("api-schema")).content.decode()


def test_it_reads_a_change_log_page_in_a_fixed_number_of_queries(
    history, django_assert_max_num_queries
):
    # Count, page of snapshot ids, changed rows, independent accounts, causes.
    with django_assert_max_num_queries(5):
        log = board_change_log(slug="overall", title="Overall", page_number="1")
    assert len(log.snapshots) == 3
    with django_assert_max_num_queries(3):
        rows = agent_history(harness_id=history["first"].harness_id, model_id=1).points
    assert rows is not None


def test_it_shows_the_agent_history_chart_and_table(history):
    page = Client().get(reverse("agent", args=AGENT)).content.decode()
    assert 'id="history"' in page
    assert 'id="history-figure"' in page  # two states on a board: a chart
    assert "New submission" in page and "75.0% [" in page


def test_it_says_so_when_an_agent_has_one_recorded_state(registry, submitter):
    submit(submitter, outcomes("pass"))
    boards_recompute_pending()
    page = Client().get(reverse("agent", args=AGENT)).content.decode()
    assert "Only one recorded state so far" in page
    assert 'id="history-figure"' not in page


def test_it_does_not_call_several_changes_one_state_when_none_makes_a_line(history):
    # W was published, then withdrawn: on each board one figure, then "left the board".
    page = Client().get(reverse("agent", args=("W", "1.0.0", "m"))).content.decode()
    table = page.split('class="board history-table"')[1]
    rows = table.split("<tbody>")[1].split("</tbody>")[0].count("<tr")
    assert rows > 1 and "left the board" in page
    assert "Only one recorded state so far" not in page
    assert f"Each of its {rows} recorded changes is listed below." in page
    assert 'id="history-figure"' not in page
