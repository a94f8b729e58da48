"""Moderation in the admin, one module per queue; Django's autodiscovery imports this package.

The admin is a thin layer over the moderation room: actions collect a reason on an
intermediate page and call a service, which checks permissions, writes the
append-only record and announces the change.
"""

from leaderboard.admin import (
    accounts,
    conflicts,
    harness_transfers,
    label_sample,
    pending,
    review,
    session_conflicts,
    submissions,
)

__all__ = [
    "accounts",
    "conflicts",
    "harness_transfers",
    "label_sample",
    "pending",
    "review",
    "session_conflicts",
    "submissions",
]
