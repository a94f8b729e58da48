"""The extractor-vs-moderator agreement on /methodology/#label-agreement
(leaderboard.boards.label_agreement): each hand-labelled turn once, at its latest label."""

from __future__ import annotations

import pytest
from django.urls import reverse

from ingestion.models import Turn
from leaderboard.boards.label_agreement import label_agreement_published
from leaderboard.models import ManualLabel
from tests.conftest import make_user
from tests.leaderboard.signalboard.helpers import ingest_sessions, session

pytestmark = pytest.mark.django_db

# (extractor's labels, moderator's labels) of four turns: 2 of 4 agree (see
# tests/leaderboard/methodology/test_agreement.py for the hand-worked figures).
PAIRS = [
    (["complaint"], ["complaint"]),
    (["complaint", "correction"], ["complaint"]),
    ([], []),
    (["praise"], ["iteration"]),
]


@pytest.fixture
def hand_labelled(registry, staff) -> list[ManualLabel]:
    ingest_sessions(staff, [session(f"s-{i}") for i in range(len(PAIRS))])
    first, second = make_user("first-moderator"), make_user("second-moderator")
    turns = Turn.objects.filter(role="user", position=2).order_by("session__session_id")
    records = [
        ManualLabel.objects.create(
            turn=turn, moderator=first if i % 2 else second, extractor_labels=e, labels=m
        )
        for i, (turn, (e, m)) in enumerate(zip(turns, PAIRS, strict=True))
    ]
    # The first turn labelled again later, differently: only its latest label counts.
    ManualLabel.objects.create(
        turn=records[0].turn, moderator=first, extractor_labels=["complaint"], labels=["praise"]
    )
    return records


def test_it_reads_each_turn_at_its_latest_hand_label(hand_labelled):
    result = label_agreement_published()
    # Turn 1 now differs (complaint vs praise): 1 of 4 agree, by 2 moderators.
    assert (result.overall.agreed, result.turns, result.moderators) == (1, 4, 2)


def test_it_publishes_the_rate_and_interval_on_the_methodology_page(client, hand_labelled):
    ManualLabel.objects.filter(labels=["praise"]).delete()  # back to the worked example
    html = client.get(reverse("methodology")).content.decode()
    assert 'id="label-agreement"' in html
    assert "<strong>50.0%</strong>" in html
    assert "15.0% to 85.0%" in html
    assert "No turns hand-labelled yet" not in html


def test_it_says_so_when_no_turn_is_hand_labelled_yet(client, registry):
    html = client.get(reverse("methodology")).content.decode()
    assert 'id="label-agreement"' in html
    assert "No turns hand-labelled yet" in html
