"""The session conflict queue in the admin: a moderator dismisses with a reason."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from ingestion.models import LanguageModel, Organisation
from leaderboard.models import RecomputeRequest, SessionConflictDecision, SessionConflictPair
from tests.leaderboard.signalboard.provenance_builders import two_accounts_board
from tests.test_admin import logged_in, offered_actions, run_action

QUEUE = "admin:leaderboard_sessionconflictpair_changelist"


@pytest.fixture
def queue(registry, submitter, other_submitter, moderator_group):
    two_accounts_board(submitter, other_submitter)
    lab = Organisation.objects.create(name="Example Lab")
    lab.members.add(submitter)
    LanguageModel.objects.filter(name="alpha").update(provider="Example Lab")
    return SessionConflictPair.objects.get()


def test_it_lets_a_moderator_dismiss_a_session_conflict_with_a_reason(queue, moderator):
    client, url = logged_in(moderator), reverse(QUEUE)
    page = client.get(url).content.decode()
    assert "Example Lab" in page and "excluded, not reviewed" in page
    assert offered_actions(client, url) >= {"confirm_conflicts", "dismiss_conflicts"}

    asked = run_action(client, url, "dismiss_conflicts", [queue.pk])
    assert asked.status_code == 200 and "reason" in asked.content.decode()
    run_action(client, url, "dismiss_conflicts", [queue.pk], reason="a published user study")

    decision = SessionConflictDecision.objects.get()
    assert (decision.decision, decision.reason, decision.decided_by) == (
        "dismiss", "a published user study", moderator,
    )  # fmt: skip
    assert SessionConflictPair.objects.get().state == "dismissed"


def test_it_offers_no_decision_to_an_account_without_the_permission(queue, staff):
    staff.user_permissions.add(Permission.objects.get(codename="view_sessionconflictpair"))
    client, url = logged_in(staff), reverse(QUEUE)
    assert client.get(url).status_code == 200
    assert not offered_actions(client, url) & {"confirm_conflicts", "dismiss_conflicts"}


def test_it_recomputes_the_signal_boards_when_an_organisation_gains_a_member(
    registry, superuser, submitter
):
    lab = Organisation.objects.create(name="Example Lab")
    RecomputeRequest.objects.all().delete()  # the registry's own load asked for one
    url = reverse("admin:ingestion_organisation_change", args=[lab.pk])
    response = logged_in(superuser).post(
        url, {"name": "Example Lab", "members": [submitter.pk], "made_models": []}
    )
    assert response.status_code == 302
    assert list(lab.members.all()) == [submitter]
    request = RecomputeRequest.objects.get()
    assert (request.sessions, request.harness_ids) == (True, [])
