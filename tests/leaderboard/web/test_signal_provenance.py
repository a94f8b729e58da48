"""Provenance on the Signals page, the model's signal page and the signals API: the
concentrated and conflict-excluded chips for everyone, the accounts for moderators."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from ingestion.models import LanguageModel, Organisation
from leaderboard.moderation.session_conflicts import session_conflict_decide
from tests.leaderboard.signalboard.helpers import api_entries, publish, scores_of
from tests.leaderboard.signalboard.provenance_builders import two_accounts_board


@pytest.fixture
def board(registry, submitter, other_submitter):
    """alpha: 3 of its 4 sessions from `submitter` (concentrated); beta: all `other`'s."""
    two_accounts_board(submitter, other_submitter)
    return publish()


@pytest.fixture
def lab_board(registry, submitter, other_submitter):
    """The same sessions, `submitter` working for the lab that serves alpha."""
    two_accounts_board(submitter, other_submitter)
    lab = Organisation.objects.create(name="Example Lab")
    lab.members.add(submitter)
    LanguageModel.objects.filter(name="alpha").update(provider="Example Lab")
    return publish()


def model_page(model: str) -> str:
    return reverse("signal-model", args=[model])


def test_it_marks_the_concentrated_row_with_the_figures_without_its_largest_account(client, board):
    content = client.get("/signals/").content.decode()
    assert content.count('class="chip chip-warn chip-concentrated"') == 2  # alpha and beta
    # alpha without `submitter` (by hand in tests/leaderboard/signalboard): NIR +60.0 pp,
    # confirmed success 100.0% (its one session left).
    assert "without top account: +60.0 pp" in content
    assert "without top account: 100.0%" in content
    assert "75.0% of its sessions come from one account (above 50.0%)" in content


def test_it_shows_the_conflict_excluded_sessions_on_the_row(client, lab_board):
    content = client.get("/signals/").content.decode()
    assert "Conflict-excluded: 3 sessions</a>" in content  # alpha's row
    assert "Conflict-excluded: 3 sessions of 1 model</a>" in content  # the board's note
    assert 'href="/methodology/#session-conflicts"' in content


def test_it_publishes_provenance_and_conflicts_in_the_api(board):
    alpha = scores_of(api_entries())["alpha"]["provenance"]
    assert (alpha["accounts"], alpha["largest_share"], alpha["concentrated"]) == (2, 0.75, True)
    assert alpha["without_largest"]["net_improvement"]["value"] == pytest.approx(0.6)
    assert alpha["conflict_excluded"] == 0
    # Slices and the agent view carry none.
    assert all(e["provenance"] is None for e in api_entries(scenario="general_assistant"))


def test_it_writes_provenance_columns_in_the_csv(client, board):
    lines = client.get("/api/v1/signals/?format=csv").content.decode().splitlines()
    header = lines[0].split(",")
    alpha = next(line for line in lines if ",alpha," in line).split(",")
    row = dict(zip(header, alpha, strict=True))
    assert (row["provenance.accounts"], row["provenance.largest_share"]) == ("2", "0.75")
    assert row["provenance.concentrated"] == "True"  # as the CSV writes `greyed`


@pytest.mark.parametrize(
    ("persona", "sees_accounts"),
    [(None, False), ("submitter", False), ("moderator", True), ("superuser", True)],
)
def test_it_shows_the_accounts_on_the_model_page_to_moderators_only(
    client, board, moderator_group, persona, sees_accounts, request
):
    if persona is not None:
        client.force_login(request.getfixturevalue(persona))
    response = client.get(model_page("alpha"))
    content = response.content.decode()
    assert response.status_code == 200
    assert "Sessions from 2 accounts; the largest contributed 75.0%." in content
    assert ("Sessions per uploading account" in content) is sees_accounts
    assert ('<th scope="row">other</th>' in content) is sees_accounts


def test_it_never_puts_the_accounts_in_the_public_cache(client, board, moderator):
    client.force_login(moderator)
    assert "Sessions per uploading account" in client.get(model_page("alpha")).content.decode()
    client.logout()
    anonymous = client.get(model_page("alpha"))
    assert "Sessions per uploading account" not in anonymous.content.decode()
    assert "public" in anonymous["Cache-Control"]


def test_it_lists_each_accounts_share_for_a_moderator(client, board, moderator):
    client.force_login(moderator)
    content = client.get(model_page("alpha")).content.decode()
    assert '<th scope="row">submitter</th><td class="num">3</td><td class="num">75.0%</td>' in (
        content
    )
    assert '<th scope="row">other</th><td class="num">1</td><td class="num">25.0%</td>' in content


def test_it_keeps_a_page_for_a_model_whose_every_session_is_excluded(client, lab_board, moderator):
    beta = LanguageModel.objects.get(name="beta")
    other = get_user_model().objects.get(username="other")
    session_conflict_decide(
        account=other, model=beta, decision="confirm", reason="works there", user=moderator
    )
    publish()
    content = client.get(model_page("beta")).content.decode()
    assert "Every session of beta is conflict-excluded" in content
    assert "Conflict-excluded: 4 sessions" in content


def test_it_answers_404_for_a_model_with_no_signal_row(client, board):
    assert client.get(model_page("no-such-model")).status_code == 404


def test_it_lists_the_validation_endpoint_and_provenance_in_the_schema(client):
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    assert "/api/v1/signals/validation/" in schema["paths"]
    assert "conflict_excluded" in schema["components"]["schemas"]["Provenance"]["properties"]
