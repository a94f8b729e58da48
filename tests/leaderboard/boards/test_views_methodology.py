"""The methodology page (leaderboard.boards.views.methodology): constants from code."""

from __future__ import annotations

import pytest
from django.urls import reverse

from ingestion.models import Task
from leaderboard.methodology import stats
from leaderboard.terms import DATA_TERMS

# ---------------------------------------------------------------------------------
# Methodology page


def test_it_renders_the_methodology_with_constants_from_code(client, registry):
    html = client.get(reverse("methodology")).content.decode()
    assert f'z = <span class="constant">{stats.Z}</span>' in html
    assert f'<span class="constant">{stats.UNDER_REVIEW_INFRA_RATE * 100:.0f}%</span>' in html
    assert f'<span class="constant">{stats.TOKEN_SAVING_RATIO}</span>' in html
    for anchor in ("conflict-of-interest", "under-review", "token-saving", "minimal-baseline",
                   "ranking", "pass-k", "cost-per-success", "infra-errors", "data-terms"):  # fmt: skip
        assert f'id="{anchor}"' in html
    assert DATA_TERMS in html
    assert "[0.4526, 0.9368]" in html


def test_it_lists_each_suite_with_its_profile_and_approved_tasks(client, registry):
    html = client.get(reverse("methodology")).content.decode()
    assert "Terminal-Bench 4.0.0" in html
    assert "Harbor, S/bench profile" in html
    assert "<code>fix-git</code>" in html
    assert "mira.chen" in html
    Task.objects.filter(task_id="fix-git").update(approved=False)
    assert "<code>fix-git</code>" not in client.get(reverse("methodology")).content.decode()


@pytest.mark.django_db
def test_it_explains_the_signal_boards_with_the_constants_from_code(client):
    page = client.get("/methodology/").content.decode()
    assert 'id="signals"' in page and 'id="net-improvement"' in page
    assert f'<span class="constant">{stats.MIN_RANKED_SESSIONS}</span>' in page
