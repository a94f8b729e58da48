"""Where a cause of a change links: the record that explains it for the staff, a public
explanation on the methodology page for everyone else.

A submission's page and the admin are closed to visitors, so a visitor's link never
points there (a 404 or a log-in page would be no explanation).
"""

from __future__ import annotations

from django.urls import NoReverseMatch, reverse

# The admin change page of the record each kind names (its record id).
ADMIN_PAGES = {
    "withdrawal": "admin:leaderboard_submissiondecision_change",
    "restore": "admin:leaderboard_submissiondecision_change",
    "conflict_decision": "admin:leaderboard_conflictdecision_change",
    "review": "admin:leaderboard_submissionreview_change",
    "verifier": "admin:ingestion_verifier_change",
    "merge": "admin:ingestion_languagemodel_change",
}
# The methodology section that explains each kind to visitors.
PUBLIC_ANCHORS = {
    "conflict_decision": "conflict-of-interest",
    "registry": "suites",
}


def public_url(kind: str) -> str:
    return f"{reverse('methodology')}#{PUBLIC_ANCHORS.get(kind, 'history')}"


def staff_url(kind: str, record_id: int | None) -> str:
    """The record behind a cause (a submission's page, a decision's admin page), or
    the public explanation when the cause names no record."""
    try:
        if kind == "submission" and record_id is not None:
            return reverse("submission-detail", args=[record_id])
        if kind in ADMIN_PAGES and record_id is not None:
            return reverse(ADMIN_PAGES[kind], args=[record_id])
    except NoReverseMatch:  # a model not registered in this admin
        pass
    return public_url(kind)


def cause_url(kind: str, record_id: int | None, *, staff: bool) -> str:
    return staff_url(kind, record_id) if staff else public_url(kind)
