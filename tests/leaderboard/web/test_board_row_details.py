"""Each board row's hover titles are also text in a <details> a tap opens."""

from __future__ import annotations

import re

from django.urls import reverse

from leaderboard.models import BoardEntry
from leaderboard.presentation.board import interval_text, n_breakdown, unranked_reason
from tests.leaderboard.boards.builders import (
    agent_figures,
    build_agent,
    build_snapshot,
    standard_boards,
)


def details_of(html: str) -> list[str]:
    return re.findall(r'<details class="row-more">(.*?)</details>', html, re.S)


def test_it_puts_every_rows_interval_and_n_breakdown_in_its_details(client, db):
    build_snapshot(standard_boards())
    html = client.get("/boards/overall/").content.decode()
    entries = list(
        BoardEntry.objects.filter(board__slug="overall", board__snapshot__is_current=True)
    )
    panels = details_of(html)
    assert len(panels) == len(entries) > 0
    for entry in entries:
        panel = next(p for p in panels if f"of {entry.harness_name} {entry.harness_version}" in p)
        assert interval_text(entry) in panel
        assert n_breakdown(entry) in panel
    assert "hover a figure" not in html


def test_it_gives_the_under_review_reason_and_the_na_reason_in_the_details(client, db):
    build_snapshot(standard_boards())
    html = client.get("/boards/overall/").content.decode()
    broken = BoardEntry.objects.get(board__slug="overall", harness_name="Broken")
    panel = next(p for p in details_of(html) if "of Broken 0.1.0" in p)
    assert unranked_reason(broken) in panel and "Under review" in panel
    empty = next(p for p in details_of(html) if "of Empty 0.0.1" in p)
    assert "n/a: no successes" in empty


def test_it_gives_each_board_row_of_an_agent_page_its_details(client, registry, submitter):
    build_agent(submitter)
    figures = agent_figures("OpenHarness", "0.9.2", "frontier-large", n=0, passes=0)
    build_snapshot(
        {"overall": [figures], "coding": [agent_figures("OpenHarness", "0.9.2", "frontier-large")]}
    )
    html = client.get(
        reverse("agent", args=["OpenHarness", "0.9.2", "frontier-large"])
    ).content.decode()
    entries = BoardEntry.objects.filter(board__snapshot__is_current=True)
    panels = details_of(html)
    assert len(panels) == entries.count() == 2
    for entry in entries:
        assert any(interval_text(entry) in p and n_breakdown(entry) in p for p in panels)
    unranked = entries.get(board__slug="overall")
    assert any(unranked_reason(unranked) in p for p in panels)
