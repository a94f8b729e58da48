"""Reading the recompute outbox: which requests a recompute covers, and their union."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from django.db.models.functions import Now

from ingestion.evidence import EvidenceCause
from leaderboard.models import RecomputeRequest


@dataclass
class RecomputeScope:
    """The union of some requests: harness ids (None: everything), the sessions flag and
    their causes (each distinct one once, in the order they arrived)."""

    request_ids: list[int] = field(default_factory=list)
    harness_ids: list[int] | None = field(default_factory=list)
    sessions: bool = False
    causes: list[EvidenceCause] = field(default_factory=list)
    _seen: set[EvidenceCause] = field(default_factory=set, repr=False)

    def add(self, request: RecomputeRequest) -> None:
        self.request_ids.append(request.pk)
        self.sessions = self.sessions or request.sessions
        # A request written before causes were recorded has none: "other".
        cause = EvidenceCause(
            request.cause_kind or "other", request.cause_record_id, request.cause_label
        )
        if cause not in self._seen:
            self._seen.add(cause)
            self.causes.append(cause)
        if request.harness_ids is None or self.harness_ids is None:
            self.harness_ids = None
        else:
            self.harness_ids = sorted(set(self.harness_ids) | set(request.harness_ids))


def requests_claim() -> RecomputeScope:
    """Lock every committed request not already claimed; the caller's transaction
    deletes them with the snapshot it swaps in, or releases them by rolling back."""
    scope = RecomputeScope()
    for request in RecomputeRequest.objects.select_for_update(skip_locked=True).order_by("pk"):
        scope.add(request)
    return scope


def requests_newer_than(seconds: float) -> bool:
    """Whether a request arrived within the last `seconds` (by the database's clock)."""
    return RecomputeRequest.objects.filter(
        created_at__gt=Now() - timedelta(seconds=seconds)
    ).exists()


def requests_waiting_longer_than(seconds: float) -> bool:
    """Whether a request has waited `seconds` already: its own kick was lost or failed."""
    return RecomputeRequest.objects.filter(
        created_at__lte=Now() - timedelta(seconds=seconds)
    ).exists()


def requests_delete(scope: RecomputeScope) -> None:
    """The claimed requests are covered by the snapshot being committed: delete them."""
    RecomputeRequest.objects.filter(pk__in=scope.request_ids).delete()
