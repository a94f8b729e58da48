"""The demo data exercises every page: after `seed_demo` and a recompute, every page a
visitor can reach answers 200 with content, the release comparison included."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command

from ingestion.models import Run, Session
from leaderboard.models import BoardEntry
from leaderboard.recompute.services import boards_recompute

pytestmark = pytest.mark.django_db(transaction=True)

# What an empty page says instead of its content.
EMPTY_STATES = (
    "No board has been computed yet",
    "No signal board has been computed yet",
    "No entry of the current boards has runs of this task",
    "No trajectory was submitted",
)


@pytest.fixture
def demo():
    call_command("seed_demo", verbosity=0)
    return boards_recompute()


def page(client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, path
    html = response.content.decode()
    assert re.search(r"<h1[ >]", html), f"{path} has no <h1>"
    return html


def sitemap_paths(client) -> list[str]:
    xml = client.get("/sitemap.xml").content.decode()
    return re.findall(r"<loc>http://testserver(.*?)</loc>", xml)


def test_every_demo_page_answers_with_content(client, demo):
    paths = sitemap_paths(client)
    assert len([p for p in paths if p.startswith("/agents/") and p != "/agents/"]) >= 7
    extra = [
        "/signals/?view=scenario", "/signals/?view=capability", "/signals/?by=agent",
        "/boards/overall/harnesses/", "/boards/overall/changes/",
    ]  # fmt: skip
    for path in paths + extra:
        html = page(client, path)
        if not path.startswith("/tasks/"):  # a task no agent ran says so, rightly
            for empty in EMPTY_STATES:
                assert empty not in html, f"{path}: {empty}"


def test_the_demo_runs_show_their_trajectories(client, demo):
    runs = Run.objects.exclude(trajectory=None)
    assert runs.values("harness").distinct().count() == 7  # every harness version
    for run in runs[:3]:
        assert '<ol class="conversation">' in page(client, f"/runs/{run.pk}/")


def test_the_demo_sessions_name_agents_so_the_release_compare_has_something_to_show(client, demo):
    assert Session.objects.filter(agent__isnull=False).count() == 192
    html = page(client, "/signals/releases/OpenHarness/")
    assert "0.9.2" in html and "0.9.3" in html
    agent_view = page(client, "/signals/?by=agent")
    assert 'href="/signals/releases/OpenHarness/' in agent_view
    # The home page leads to both versions' leaders on the agent view.
    assert "By agent version" in page(client, "/")


def test_the_demo_compares_two_agents_and_shows_every_board(client, demo):
    first, second = BoardEntry.objects.filter(
        board__snapshot=demo, board__slug="terminal-bench-4.0.0", rank__isnull=False
    ).order_by("position")[:2]
    home = page(client, "/")
    assert home.count('class="home-leaders"') >= 8
    compare = re.search(r'href="(/compare/\?[^"]+)"', page(client, "/boards/terminal-bench-4.0.0/"))
    assert compare, "no compare link on the board"
    html = page(client, compare[1].replace("&amp;", "&"))
    assert 'href="/tasks/terminal-bench/4.0.0/' in html
    assert first.harness_name in html or second.harness_name in html
