"""Board snapshots (what visitors read) and moderation records (what admins decide)."""

from leaderboard.models.alerts import AlertDelivery, Follow
from leaderboard.models.effects import BoardDecomposition, BoardEffect, EffectKind
from leaderboard.models.history import EntryHistory, SignalHistory, SnapshotCause
from leaderboard.models.labels import ManualLabel
from leaderboard.models.moderation import (
    ConflictDecision,
    ConflictPair,
    DecisionRecord,
    HarnessTransfer,
    PendingSubmission,
    SubmissionDecision,
    SubmissionReview,
    UnderReviewEntry,
)
from leaderboard.models.safety import SafetyEntry
from leaderboard.models.session_conflicts import (
    SessionConflictDecision,
    SessionConflictPair,
    SignalUploader,
)
from leaderboard.models.sessions import SessionScore
from leaderboard.models.snapshots import (
    Board,
    BoardEntry,
    BoardQuerySet,
    BoardSnapshot,
    BoardState,
    RecomputeRequest,
    SignalEntry,
    SnapshotQuerySet,
)

__all__ = [
    "AlertDelivery",
    "Board",
    "BoardDecomposition",
    "BoardEffect",
    "BoardEntry",
    "BoardQuerySet",
    "BoardSnapshot",
    "BoardState",
    "ConflictDecision",
    "ConflictPair",
    "DecisionRecord",
    "EffectKind",
    "EntryHistory",
    "Follow",
    "HarnessTransfer",
    "ManualLabel",
    "PendingSubmission",
    "RecomputeRequest",
    "SafetyEntry",
    "SessionConflictDecision",
    "SessionConflictPair",
    "SessionScore",
    "SignalEntry",
    "SignalHistory",
    "SignalUploader",
    "SnapshotCause",
    "SnapshotQuerySet",
    "SubmissionDecision",
    "SubmissionReview",
    "UnderReviewEntry",
]
