"""The Under Review list (leaderboard.moderation.under_review)."""

from __future__ import annotations

import pytest

from leaderboard.moderation.under_review import infra_errors_attach, under_review_queryset
from tests.builders import outcomes, submit
from tests.leaderboard.moderation.helpers import current

# Transactional: each service announces on commit and Celery is eager here, so the
# current snapshot already shows a decision when the service returns.
pytestmark = pytest.mark.django_db(transaction=True)


def under_review_entries() -> list:
    """What the admin's Under Review list shows: current entries with their infra errors."""
    entries = list(under_review_queryset())
    infra_errors_attach(entries)
    return entries


def test_it_lists_under_review_entries_with_failing_runs_by_kind(registry, submitter):
    broken = submit(submitter, outcomes("timeout", "timeout", "network", "pass", "fail"))
    assert current().under_review

    entries = {e.board.slug: e for e in under_review_entries() if e.harness_name == "H"}
    # regex-log is a terminal task of Terminal-Bench, which joins Overall.
    assert set(entries) == {"overall", "coding", "terminal-bench-4.0.0", "category-terminal"}
    overall = entries["overall"]
    assert overall.infra_error_rate == pytest.approx(3 / 5)
    assert overall.infra.by_kind == {"network": 1, "timeout": 2}
    assert overall.infra.by_submission == {broken.pk: 3}

    # A clean submission repairs the rate: 3 / 15 = 0.2 is not above the threshold.
    submit(submitter, outcomes(*["pass"] * 10, prefix="clean"))
    assert not current().under_review
    assert [e for e in under_review_entries() if e.harness_name == "H"] == []
