"""Conflict-of-interest decisions (methodology §2.2): confirm or dismiss (harness, task) pairs.

The rule itself (author ∩ contributor, the latest decision wins, a confirm adds a pair,
the Minimal baseline is exempt) is written once, as the `leaderboard_conflictpair`
database view; the boards and this queue both read it.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet

from ingestion.evidence import EvidenceCause, evidence_changed_announce
from ingestion.models import Harness, Task
from ingestion.services.permissions import permission_require, reason_require
from leaderboard.models import ConflictDecision, ConflictPair

DECIDE_CONFLICT = "leaderboard.decide_conflict"


@transaction.atomic
def conflict_decide(
    *, harness: Harness, task: Task, decision: str, reason: str, user
) -> ConflictDecision:
    """Confirm or dismiss one (harness version, task) pair, shown by the data or not.

    Confirming a pair the data does not show is how an admin adds a conflict.
    """
    return conflicts_decide(
        pairs=[(harness.pk, task.pk)], decision=decision, reason=reason, user=user
    )[0]


@transaction.atomic
def conflicts_decide(
    *, pairs: Iterable[tuple[int, int]], decision: str, reason: str, user
) -> list[ConflictDecision]:
    """The same decision and reason for several (harness id, task id) pairs, one recompute."""
    permission_require(user, DECIDE_CONFLICT)
    reason = reason_require(reason)
    if decision not in ConflictDecision.Decision.values:
        raise ValidationError(f"decision must be one of {ConflictDecision.Decision.values}")
    pairs = sorted(set(pairs))
    records = ConflictDecision.objects.bulk_create(
        ConflictDecision(
            harness_id=harness_id, task_id=task_id, decision=decision, reason=reason,
            decided_by=user,
        )
        for harness_id, task_id in pairs
    )  # fmt: skip
    # The first record stands for the batch (one decision and reason for every pair).
    label = f"conflict of interest {decision}ed for {len(pairs)} task{'s' * (len(pairs) != 1)}"
    evidence_changed_announce(
        sender=__name__,
        harness_ids=[h for h, _ in pairs],
        cause=EvidenceCause("conflict_decision", records[0].pk if records else None, label),
    )
    return records


def conflict_queue() -> QuerySet[ConflictPair]:
    """Every pair the data shows as a conflict or an admin decided on, unreviewed first.

    Each row carries the people involved, the runs affected, the state the boards
    apply and the latest decision (see ConflictPair and its database view).
    """
    return ConflictPair.objects.select_related(
        "harness__independent_by", "task__suite", "latest_decision__decided_by"
    )
