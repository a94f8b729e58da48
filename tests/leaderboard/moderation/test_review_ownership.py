"""Review before publication and harness ownership: a bundle held for review changes
nothing public (name, URL, contributors, maintainers, rows) until a moderator approves
it, and a rejection leaves everything as it was.

Personas: the owner (trusted, first to publish a name), an untrusted account (its uploads
are held), an untrusted maintainer the owner's manifest names, and a moderator.
"""

from __future__ import annotations

import pytest

from ingestion.models import Harness, HarnessOwner, Run
from ingestion.services.intake import submission_ingest
from ingestion.services.trust import trusted_group
from leaderboard.moderation.review import NotPublishable, submission_approve, submission_reject
from leaderboard.moderation.withdrawals import submission_withdraw
from tests.builders import harness_manifest, outcomes, submit, tar_gz_bundle
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

TRUDY = "Trudy Harness"


@pytest.fixture
def untrusted(db):
    return make_user("untrusted", trusted=False)


@pytest.fixture
def untrusted_maintainer(db):
    return make_user("helper", trusted=False)


def held(user, *, name: str = "H", prefix: str = "x", **harness):
    """An upload of an untrusted account: stored, pending review."""
    bundle = tar_gz_bundle(
        harness_manifest(name, "1.0.0", **harness), outcomes("pass", prefix=prefix)
    )
    submission, _ = submission_ingest(upload=bundle, user=user)
    assert submission.status == "pending_review", submission.errors
    return submission


def public_state(name: str = "H") -> dict:
    """Everything visitors can learn about a harness name from its rows."""
    ownership = HarnessOwner.objects.filter(name=name).first()
    rows = Harness.objects.maintained().filter(name=name).order_by("version")
    return {
        "owner": ownership.owner.username if ownership else None,
        "maintainers": sorted(ownership.maintainers.values_list("username", flat=True))
        if ownership
        else [],
        "rows": [
            (row.version, row.url, sorted(row.contributors.values_list("handle", flat=True)))
            for row in rows
        ],
        "runs": sorted(Run.objects.filter(harness__in=rows).values_list("run_id", flat=True)),
    }


def approve(submission, moderator):
    submission_approve(submission=submission, moderator=moderator, reason="genuine")
    submission.refresh_from_db()
    return submission


def reject(submission, moderator):
    submission_reject(submission=submission, moderator=moderator, reason="not theirs")


# -- an untrusted maintainer or owner --------------------------------------------------


def owner_with_untrusted_maintainer(owner) -> None:
    submit(owner, outcomes("pass"), contributors=["dev.one"], url="https://h.example/",
           maintainers=["helper"])  # fmt: skip


def test_it_holds_an_untrusted_maintainers_metadata_until_approval(
    registry, owner, untrusted_maintainer, moderator
):
    owner_with_untrusted_maintainer(owner)
    before = public_state()
    pending = held(untrusted_maintainer, contributors=["dev.two"], url="https://evil.example/",
                   maintainers=["helper", "owner"])  # fmt: skip
    assert public_state() == before

    approve(pending, moderator)
    after = public_state()
    assert after["rows"] == [("1.0.0", "https://evil.example/", ["dev.one", "dev.two"])]
    assert after["maintainers"] == ["helper"]
    assert not pending.harness.is_independent  # pooled with the maintainers' runs now
    assert len(after["runs"]) == 2


def test_it_drops_an_untrusted_maintainers_metadata_on_rejection(
    registry, owner, untrusted_maintainer, moderator
):
    owner_with_untrusted_maintainer(owner)
    before = public_state()
    pending = held(untrusted_maintainer, contributors=["dev.two"], url="https://evil.example/",
                   maintainers=[])  # fmt: skip
    reject(pending, moderator)
    assert public_state() == before


def test_it_holds_an_untrusted_owners_new_url(registry, owner, moderator):
    submit(owner, outcomes("pass"), url="https://h.example/")
    owner.groups.remove(trusted_group())  # trust withdrawn since
    before = public_state()
    pending = held(owner, url="https://elsewhere.example/", contributors=["dev.nine"])
    assert public_state() == before
    reject(pending, moderator)
    assert public_state() == before


def test_it_refuses_a_maintainers_unknown_account_at_once(registry, owner, untrusted_maintainer):
    owner_with_untrusted_maintainer(owner)
    bundle = tar_gz_bundle(harness_manifest("H", maintainers=["nobody"]), outcomes("pass"))
    submission, _ = submission_ingest(upload=bundle, user=untrusted_maintainer)
    assert submission.status == "rejected"
    assert submission.errors[0]["field"] == "harness.maintainers[0]"


# -- a free or released name -----------------------------------------------------------


def test_it_never_lets_a_held_upload_claim_a_new_name(registry, untrusted, moderator):
    pending = held(untrusted, name="Fresh", url="https://fresh.example/")
    assert public_state("Fresh") == {"owner": None, "maintainers": [], "rows": [], "runs": []}

    approve(pending, moderator)
    assert public_state("Fresh")["owner"] == "untrusted"
    assert public_state("Fresh")["rows"] == [("1.0.0", "https://fresh.example/", [])]
    assert not pending.harness.is_independent


def released_trudy(owner, moderator):
    first = submit(owner, outcomes("pass", prefix="o"), harness=TRUDY, contributors=["dev.one"],
                   url="https://trudy.example/")  # fmt: skip
    submission_withdraw(submission=first, reason="withdrawn by its owner", user=moderator)
    return first


def test_it_never_lets_a_held_upload_take_over_a_released_name(
    registry, owner, untrusted, moderator
):
    first = released_trudy(owner, moderator)
    before = public_state(TRUDY)
    pending = held(untrusted, name=TRUDY, contributors=["dev.mallory"],
                   url="https://mallory.example/")  # fmt: skip
    assert public_state(TRUDY) == before
    first.refresh_from_db()
    assert not first.harness.is_independent  # the original's runs stayed where they were

    reject(pending, moderator)
    assert public_state(TRUDY) == before
    first.refresh_from_db()
    assert not first.harness.is_independent


def test_it_hands_a_released_name_over_only_when_the_held_upload_is_approved(
    registry, owner, untrusted, moderator
):
    first = released_trudy(owner, moderator)
    pending = held(untrusted, name=TRUDY, contributors=["dev.mallory"],
                   url="https://mallory.example/")  # fmt: skip
    approve(pending, moderator)
    after = public_state(TRUDY)
    assert after["owner"] == "untrusted"
    assert after["rows"] == [("1.0.0", "https://mallory.example/", ["dev.mallory"])]
    first.refresh_from_db()
    assert first.harness.independent_by == owner
    assert not pending.harness.is_independent


# -- a rival of a name held by others ---------------------------------------------------


def test_it_refuses_a_held_rival_who_changes_metadata_at_once(registry, owner, untrusted):
    submit(owner, outcomes("pass"), url="https://h.example/")
    bundle = tar_gz_bundle(harness_manifest("H", url="https://evil.example/"), outcomes("pass"))
    submission, _ = submission_ingest(upload=bundle, user=untrusted)
    assert submission.status == "rejected"
    assert submission.errors[0]["field"] == "harness.url"


def test_it_refuses_to_approve_what_a_name_claimed_since_would_refuse(
    registry, owner, untrusted, moderator
):
    pending = held(untrusted, name="Fresh", url="https://fresh.example/")
    submit(owner, outcomes("pass", prefix="o"), harness="Fresh", url="https://owner.example/")
    with pytest.raises(NotPublishable, match=r"harness\.url: only the maintainers of"):
        submission_approve(submission=pending, moderator=moderator, reason="genuine")
    pending.refresh_from_db()
    assert pending.status == "pending_review"
    assert public_state("Fresh")["owner"] == "owner"
    assert public_state("Fresh")["rows"] == [("1.0.0", "https://owner.example/", [])]
