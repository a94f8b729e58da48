"""Signal boards per agent version: the agent view's rows, the page and API
`by=` parameter, and `by` in the canonical cache key."""

from __future__ import annotations

import pytest
from django.http import QueryDict
from django.utils import timezone

from leaderboard.methodology.stats import Z
from leaderboard.models import BoardSnapshot, SignalEntry
from leaderboard.signalboard.slices import COMPOSITE_SCOPE
from leaderboard.signalboard.snapshot import signals_carry_over
from leaderboard.web.signals.params import SignalParams
from tests.leaderboard.signalboard.agent_builders import HARNESS, publish_agent_board
from tests.leaderboard.signalboard.helpers import EXACT, api_entries, model_scores, publish_board

pytestmark = pytest.mark.django_db


@pytest.fixture
def board(registry, staff):
    return publish_agent_board(staff)


def composite(by: str) -> list[SignalEntry]:
    rows = SignalEntry.objects.filter(by=by, scope=COMPOSITE_SCOPE).order_by("position")
    return list(rows)


def test_it_keys_the_agent_view_by_harness_version(board):
    rows = composite(SignalEntry.By.AGENT)
    assert [(r.harness_name, r.harness_version, r.model_name) for r in rows] == [
        (HARNESS, "1.10", "OpenHarness 1.10"),
        (HARNESS, "1.9", "OpenHarness 1.9"),
    ]
    assert [r.sessions for r in rows] == [2, 2]
    assert rows[0].data["agent"] == {"harness": HARNESS, "version": "1.10"}


def test_each_versions_nir_is_against_the_pool_of_sessions_naming_an_agent(board):
    later, earlier = composite(SignalEntry.By.AGENT)
    # Hand-worked in agent_builders: NIR = mean − 3/4, null sd = 1/4.
    for row, value in ((later, 0.25), (earlier, -0.25)):
        nir = row.data["net_improvement"]
        assert nir["value"] == pytest.approx(value, **EXACT)
        assert nir["null_sd"] == pytest.approx(0.25, **EXACT)
        assert nir["low"] == pytest.approx(value - Z * 0.25, **EXACT)
    assert later.data["confirmed_success"]["value"] == 1.0
    assert earlier.data["confirmed_success"]["value"] == 0.5


def test_the_model_view_still_counts_every_session_once(board):
    [model] = composite(SignalEntry.By.MODEL)
    assert (model.model_name, model.sessions, model.harness_name) == ("tiny-model", 6, "")
    assert board.sessions_total == 6
    # Every slice kind is on both views.
    kinds = set(SignalEntry.objects.values_list("by", "slice_kind").distinct())
    assert {kind for by, kind in kinds if by == "agent"} == {kind for by, kind in kinds}


def test_the_page_shows_the_agent_view_and_how_many_sessions_it_leaves_out(client, board):
    content = client.get("/signals/?by=agent").content.decode()
    assert "OpenHarness 1.10" in content and "Agent version" in content
    assert "2 sessions naming no agent are not on this view." in content
    assert f'href="/signals/releases/{HARNESS}/?after=1.10"' in content
    assert "tiny-model" not in content


def test_the_agent_view_says_why_it_is_empty_when_no_session_names_an_agent(client, registry):
    publish_board({"frontier-large": model_scores(40, success=0.5, nir=0.1, sd=0.05)})
    content = client.get("/signals/?by=agent").content.decode()
    # Not "no signal board yet" beside "40 sessions naming no agent": one true sentence.
    assert "No signal board has been computed yet" not in content
    assert 'id="agent-view-note"' not in content
    empty = content.split('id="agent-view-empty">')[1].split("</p>")[0]
    assert "its 40 sessions name no agent" in empty and 'href="/signals/"' in empty


def test_the_page_keeps_the_model_view_by_default_and_for_an_unknown_by(client, board):
    for url in ("/signals/", "/signals/?by=nonsense"):
        content = client.get(url).content.decode()
        assert "tiny-model" in content and "OpenHarness 1.10" not in content


def test_the_views_and_sorts_keep_the_by_parameter(client, board):
    content = client.get("/signals/?by=agent&view=scenario").content.decode()
    assert 'href="/signals/?by=agent&amp;view=capability"' in content
    assert 'href="/signals/?view=scenario"' in content  # back to per model, same view
    assert "OpenHarness 1.9" in content


def test_the_api_answers_per_agent_version(board):
    entries = api_entries(by="agent")
    assert [(e["model"], e["agent"]) for e in entries] == [
        ("OpenHarness 1.10", {"harness": HARNESS, "version": "1.10"}),
        ("OpenHarness 1.9", {"harness": HARNESS, "version": "1.9"}),
    ]
    assert [e["agent"] for e in api_entries()] == [None]
    assert len(api_entries(by="agent", scenario="general_assistant")) == 2


def test_the_api_refuses_an_unknown_by(client, board):
    response = client.get("/api/v1/signals/?by=harness")
    assert response.status_code == 400
    assert "by" in response.json()


@pytest.mark.parametrize(
    ("query", "canonical"),
    [
        ("by=agent", "?by=agent"),
        ("by=model", ""),
        ("by=junk", ""),
        ("view=scenario&by=agent&sort=-sessions", "?by=agent&view=scenario&sort=-sessions"),
    ],
)
def test_by_is_part_of_the_canonical_cache_key(query, canonical):
    assert SignalParams.from_query(QueryDict(query)).querystring() == canonical


def test_the_cached_pages_of_the_two_views_stay_apart(client, board, django_assert_num_queries):
    per_model = client.get("/signals/").content
    per_agent = client.get("/signals/?by=agent").content
    assert per_model != per_agent
    with django_assert_num_queries(1):  # the snapshot id; the body comes from the cache
        again = client.get("/signals/?junk=1&by=agent")
    assert again.content == per_agent
    api_model = client.get("/api/v1/signals/").content
    assert client.get("/api/v1/signals/?by=agent").content != api_model


def test_a_carried_over_snapshot_keeps_the_agent_view(board):
    new = BoardSnapshot.objects.create(computed_at=timezone.now())
    signals_carry_over(board, new)
    fields = ("by", "harness_name", "harness_version", "model_name", "sessions", "position")
    kept = new.signal_entries.filter(by="agent", scope=COMPOSITE_SCOPE).values_list(*fields)
    assert list(kept.order_by("position")) == [
        ("agent", HARNESS, "1.10", "OpenHarness 1.10", 2, 0),
        ("agent", HARNESS, "1.9", "OpenHarness 1.9", 2, 1),
    ]
    new.refresh_from_db()
    assert new.sessions_total == 6  # every session once, not again for the agent view
