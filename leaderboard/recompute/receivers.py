"""Listens to ingestion's "evidence changed" announcement (connected in apps.ready)."""

from __future__ import annotations

from django.dispatch import receiver

from ingestion.evidence import EvidenceCause, evidence_changed
from leaderboard.recompute.requests import recompute_request_record


@receiver(evidence_changed, dispatch_uid="leaderboard.recompute.evidence_changed")
def evidence_changed_received(
    sender: str,
    *,
    harness_ids: list[int] | None,
    sessions: bool,
    cause: EvidenceCause | None = None,
    **kwargs: object,
) -> None:
    """Sent inside the change's transaction: the request commits or rolls back with it."""
    recompute_request_record(harness_ids=harness_ids, sessions=sessions, cause=cause)
