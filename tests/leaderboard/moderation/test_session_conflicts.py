"""Session conflicts: an organisation's accounts uploading sessions of a model it makes
or serves are left out of that model's signal ranking, until a moderator dismisses it."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from ingestion.models import LanguageModel, Organisation
from leaderboard.models import RecomputeRequest, SignalEntry, SignalUploader
from leaderboard.moderation.session_conflicts import (
    session_conflict_decide,
    session_conflict_queue,
)
from tests.leaderboard.signalboard.helpers import publish
from tests.leaderboard.signalboard.provenance_builders import two_accounts_board


def composite(snapshot, model: str) -> SignalEntry:
    return SignalEntry.objects.get(snapshot=snapshot, scope="all", by="model", model_name=model)


@pytest.fixture
def lab(submitter) -> Organisation:
    """`submitter` works for the lab that serves alpha (the registry's provider)."""
    organisation = Organisation.objects.create(name="Example Lab")
    organisation.members.add(submitter)
    return organisation


def provider(model: str, name: str) -> None:
    LanguageModel.objects.filter(name=model).update(provider=name)


def test_it_excludes_the_sessions_a_models_own_provider_uploaded(
    registry, submitter, other_submitter, lab
):
    two_accounts_board(submitter, other_submitter)
    provider("alpha", " example lab")  # the rule ignores case and surrounding spaces

    snapshot = publish()

    alpha = composite(snapshot, "alpha")
    assert alpha.sessions == 1  # `other`'s one session; `submitter`'s three are out
    assert alpha.data["provenance"]["conflict_excluded"] == 3
    assert alpha.data["provenance"]["accounts"] == 1
    row = SignalUploader.objects.get(snapshot=snapshot, model_name="alpha", account=submitter)
    assert (row.sessions, row.conflict_excluded) == (0, 3)
    pair = session_conflict_queue().get(account=submitter)
    assert (pair.state, pair.needs_review, pair.shown_by_data) == ("excluded", True, True)
    assert (pair.organisations, pair.sessions_affected) == (["Example Lab"], 3)
    # beta is no model of the lab: its sessions all count.
    assert composite(snapshot, "beta").data["provenance"]["conflict_excluded"] == 0


def test_it_counts_them_again_once_a_moderator_dismisses_it_with_a_reason(
    registry, submitter, other_submitter, lab, moderator
):
    two_accounts_board(submitter, other_submitter)
    provider("alpha", "Example Lab")
    model = LanguageModel.objects.get(name="alpha")
    RecomputeRequest.objects.all().delete()

    record = session_conflict_decide(
        account=submitter, model=model, decision="dismiss", reason="a user study", user=moderator
    )

    request = RecomputeRequest.objects.get()
    assert (request.sessions, request.harness_ids, request.cause_kind) == (
        True, [], "conflict_decision",
    )  # fmt: skip
    assert (record.decided_by, record.reason) == (moderator, "a user study")
    snapshot = publish()
    alpha = composite(snapshot, "alpha")
    assert (alpha.sessions, alpha.data["provenance"]["conflict_excluded"]) == (4, 0)
    pair = session_conflict_queue().get(account=submitter)
    assert (pair.state, pair.needs_review, pair.latest_decision) == ("dismissed", False, record)


def test_it_excludes_a_pair_a_moderator_confirms_though_no_organisation_shows_it(
    registry, submitter, other_submitter, moderator
):
    two_accounts_board(submitter, other_submitter)
    beta = LanguageModel.objects.get(name="beta")
    session_conflict_decide(
        account=other_submitter,
        model=beta,
        decision="confirm",
        reason="works there",
        user=moderator,
    )
    snapshot = publish()
    assert not SignalEntry.objects.filter(snapshot=snapshot, model_name="beta").exists()
    row = SignalUploader.objects.get(snapshot=snapshot, model_name="beta")
    assert (row.sessions, row.conflict_excluded) == (0, 4)
    pair = session_conflict_queue().get(account=other_submitter, model=beta)
    assert (pair.state, pair.shown_by_data, pair.organisations) == ("confirmed", False, [])


def test_it_names_models_listed_by_hand_under_the_organisation(
    registry, submitter, other_submitter, lab
):
    two_accounts_board(submitter, other_submitter)
    lab.made_models.add(LanguageModel.objects.get(name="alpha"))
    assert composite(publish(), "alpha").data["provenance"]["conflict_excluded"] == 3


@pytest.mark.parametrize(
    ("persona", "reason", "error"),
    [
        ("moderator", "  ", ValidationError),
        ("submitter", "mine", PermissionDenied),
    ],
)
def test_it_refuses_a_decision_without_a_reason_or_the_permission(
    registry, submitter, moderator, persona, reason, error, request
):
    model = LanguageModel.objects.create(name="gamma")
    with pytest.raises(error):
        session_conflict_decide(
            account=submitter,
            model=model,
            decision="dismiss",
            reason=reason,
            user=request.getfixturevalue(persona),
        )
    assert not session_conflict_queue().exists()
