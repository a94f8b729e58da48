"""Session conflict decisions (methodology §3.3): confirm or dismiss (account, model) pairs.

The rule itself (an account of an organisation that makes or serves the model, the
latest decision wins, a confirm adds a pair) is written once, as the
`leaderboard_sessionconflictpair` database view; the signal boards and this queue both
read it. Deciding takes the benchmark conflicts' permission: the same moderators.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet

from ingestion.evidence import EvidenceCause, evidence_changed_announce
from ingestion.models import LanguageModel
from ingestion.services.permissions import permission_require, reason_require
from leaderboard.models import SessionConflictDecision, SessionConflictPair
from leaderboard.moderation.conflicts import DECIDE_CONFLICT


@transaction.atomic
def session_conflict_decide(
    *, account, model: LanguageModel, decision: str, reason: str, user
) -> SessionConflictDecision:
    """Confirm or dismiss one (account, model) pair, shown by the data or not.

    Confirming a pair the data does not show is how a moderator adds a conflict.
    """
    return session_conflicts_decide(
        pairs=[(account.pk, model.pk)], decision=decision, reason=reason, user=user
    )[0]


@transaction.atomic
def session_conflicts_decide(
    *, pairs: Iterable[tuple[int, int]], decision: str, reason: str, user
) -> list[SessionConflictDecision]:
    """The same decision and reason for several (account id, model id) pairs, one
    recompute of the signal boards."""
    permission_require(user, DECIDE_CONFLICT)
    reason = reason_require(reason)
    if decision not in SessionConflictDecision.Decision.values:
        raise ValidationError(f"decision must be one of {SessionConflictDecision.Decision.values}")
    pairs = sorted(set(pairs))
    records = SessionConflictDecision.objects.bulk_create(
        SessionConflictDecision(
            account_id=account_id, model_id=model_id, decision=decision, reason=reason,
            decided_by=user,
        )
        for account_id, model_id in pairs
    )  # fmt: skip
    label = f"session conflict {decision}ed for {len(pairs)} pair{'s' * (len(pairs) != 1)}"
    evidence_changed_announce(
        sender=__name__,
        harness_ids=[],
        sessions=True,
        cause=EvidenceCause("conflict_decision", records[0].pk if records else None, label),
    )
    return records


def session_conflict_queue() -> QuerySet[SessionConflictPair]:
    """Every pair the data shows or a moderator decided on, unreviewed first, with the
    sessions affected, the state the boards apply and the latest decision."""
    return SessionConflictPair.objects.select_related(
        "account", "model", "latest_decision__decided_by"
    )
