"""The home page (leaderboard.web.home): what Arena ranks, every board's leaders with
their intervals and freshness, what Overall pools, the signal boards' leaders."""

from __future__ import annotations

import json
import re

import pytest

from leaderboard.methodology import stats
from leaderboard.models import Board, SignalEntry
from leaderboard.presentation.figures import percent
from leaderboard.signalboard.agents import agent_rows
from leaderboard.signalboard.compute import slice_rows
from leaderboard.signalboard.slices import COMPOSITE_SCOPE
from tests.leaderboard.boards.builders import (
    agent_figures,
    agent_order,
    build_snapshot,
    many_agents,
    standard_boards,
)
from tests.leaderboard.signalboard.helpers import model_scores, publish_board

pytestmark = pytest.mark.django_db


def card(html: str, slug: str) -> str:
    """The home card of one board."""
    found = re.search(
        rf'<section class="home-card" aria-labelledby="card-{slug}">(.*?)</section>', html, re.S
    )
    assert found, f"no card for {slug}"
    return found[1]


def test_it_orients_a_visitor(client, boards):
    response = client.get("/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "<title>Leaderboards of AI agents · Arena</title>" in html
    assert "<h1>Arena: leaderboards of AI agents</h1>" in html
    assert 'href="/methodology/"' in html and "95% interval" in html
    # A link into every board, and to every agent.
    for slug in ("overall", "coding", "terminal-bench-4.0.0"):
        assert f'href="/boards/{slug}/"' in html
        assert f'href="/boards/{slug}/tasks/"' in html
    assert 'href="/agents/"' in html and 'href="/signals/"' in html


def test_each_board_shows_its_three_leaders_with_their_intervals(client, db):
    build_snapshot({"overall": many_agents(8), "coding": many_agents(2)})
    html = client.get("/").content.decode()
    overall = card(html, "overall")
    assert overall.count("<li>") == 3 and card(html, "coding").count("<li>") == 2
    first = sorted(many_agents(8), key=lambda f: -f["wilson_low"])[0]
    assert percent(first["passes"] / first["n"]) in overall
    low, high = stats.wilson_interval(first["passes"], first["n"])
    assert f"95% CI {percent(low)}–{percent(high)}" in overall
    assert 'href="/agents/' in overall


def test_it_says_when_each_board_last_moved(client, db):
    build_snapshot({"overall": [agent_figures(latest_submission_at="2026-11-20T10:00:00Z")]})
    overall = card(client.get("/").content.decode(), "overall")
    assert 'datetime="2026-11-20T10:00:00+00:00"' in overall and "updated" in overall


def test_it_says_what_overall_pools(client, registry):
    build_snapshot(standard_boards())
    html = client.get("/").content.decode()
    pools = html.split('class="muted home-pools"')[1].split("</p>")[0]
    assert "Terminal-Bench 4.0.0</a> (16 tasks)" in pools
    assert "Aider Polyglot 1.0.0" in pools and "Core Suite 1.0.0" in pools


def test_it_shows_the_signal_boards_leaders(client, reference):
    Board.objects.create(snapshot=reference, slug="overall", title="Overall", position=0)
    html = client.get("/").content.decode()
    signals = html.split('id="signals"')[1]
    assert "By model" in signals and "NIR" in signals and "session" in signals


def test_it_lists_the_agent_version_signal_leaders(client, db):
    snapshot = publish_board({"frontier-large": model_scores(96, nir=0.12, sd=0.039)})
    Board.objects.create(snapshot=snapshot, slug="overall", title="Overall", position=0)
    # Agent rows as the recompute writes them: keyed by (harness, version), ranked by
    # the lower end of the NIR interval, and unranked under the minimum of sessions.
    scores = {
        json.dumps(["OpenHarness", "1.9"]): model_scores(40, nir=0.05, sd=0.02),
        json.dumps(["OpenHarness", "1.10"]): model_scores(60, nir=0.15, sd=0.02),
        json.dumps(["TermPilot", "0.4.0"]): model_scores(12, nir=0.3, sd=0.1),
    }
    rows = agent_rows(slice_rows(COMPOSITE_SCOPE, SignalEntry.SliceKind.COMPOSITE, scores))
    SignalEntry.objects.bulk_create(SignalEntry(snapshot=snapshot, **row) for row in rows)
    html = client.get("/").content.decode()
    agents = html.split(">By agent version</a>")[1].split("</section>")[0]
    leaders = re.findall(
        r'<span class="home-rank">([^<]*)</span>\s*<span class="home-agent">([^<]*)'
        r'<span class="muted">\((\d+) sessions\)',
        agents,
    )
    assert [(rank, name.strip(), n) for rank, name, n in leaders] == [
        ("1", "OpenHarness 1.10", "60"),
        ("2", "OpenHarness 1.9", "40"),
    ]
    assert "NIR +15.0" in agents and "NIR +5.0" in agents
    assert "TermPilot" not in agents and "No ranked row yet" not in agents


def test_it_renders_an_empty_state_without_a_snapshot(client, db):
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "No board has been computed yet" in html
    assert "<h1>" in html


@pytest.mark.parametrize("count", [5, 60])
def test_it_reads_a_fixed_small_number_of_queries(
    client, registry, django_assert_max_num_queries, count
):
    build_snapshot({"overall": many_agents(count), "coding": many_agents(count)})
    # The boards, the leaders, the boards' freshness, the pooled suites, the signals.
    with django_assert_max_num_queries(6):
        assert client.get("/").status_code == 200
    with django_assert_max_num_queries(1):  # cached per snapshot: which boards are current
        assert client.get("/?utm_source=mail").status_code == 200


def test_the_leaders_are_the_boards_default_view(client, db):
    """The board page shows each harness's latest version per model by default, ranked
    among those rows: a card shows the same first rows with the same ranks."""
    build_snapshot(
        {
            "overall": [
                agent_figures("Quill", "1.0", passes=90),
                agent_figures("Quill", "2.0", passes=60),
                agent_figures("Tern", "1.0", passes=80),
                agent_figures("Wren", "1.0", passes=80),
                agent_figures("Lark", "1.0", passes=50),
            ]
        }
    )
    overall = card(client.get("/").content.decode(), "overall")
    board = client.get("/boards/overall/").content.decode()
    shown = re.findall(r'href="/agents/([^/]+)/([^/]+)/', overall)
    assert shown == [("Tern", "1.0"), ("Wren", "1.0"), ("Quill", "2.0")]
    assert agent_order(board)[:3] == ["Tern", "Wren", "Quill"]
    ranks = re.findall(r'<span class="home-rank">([^<]*)</span>', overall)
    assert ranks == ["=1", "=1", "3"]


def test_it_sends_an_old_overall_address_with_board_parameters_to_the_board(client, db):
    # `/` was the Overall board: its bookmarks keep their view, canonicalised.
    response = client.get("/?sort=-n&col=passk&k=1&junk=1")
    assert response.status_code == 301
    assert response["Location"] == "/boards/overall/?col=passk&k=1&sort=-n"
    # Parameters no board reads are the home page's own (campaign tags, junk).
    assert client.get("/?utm_source=mail").status_code == 200
