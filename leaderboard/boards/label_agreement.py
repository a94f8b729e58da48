"""The extractor-vs-moderator agreement the methodology page publishes (#label-agreement)."""

from __future__ import annotations

from leaderboard.methodology.agreement import LabelAgreement, label_agreement
from leaderboard.models import ManualLabel


def label_agreement_published() -> LabelAgreement:
    """Agreement over every hand-labelled turn, each read at its latest hand label."""
    latest = list(ManualLabel.objects.latest_per_turn().values_list(
        "extractor_labels", "labels", "moderator_id"
    ))  # fmt: skip
    pairs = [(extractor, moderator) for extractor, moderator, _ in latest]
    return label_agreement(pairs, moderators=len({who for *_, who in latest}))
