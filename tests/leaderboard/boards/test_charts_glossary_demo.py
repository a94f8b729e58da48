"""H10: the partial Plotly bundle, empty charts, the glossary and the
methodology contents, and demo trajectories."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from ingestion.models import Run
from leaderboard.models import BoardEntry
from leaderboard.presentation.board_charts import cost_vs_pass_rate
from leaderboard.recompute.services import boards_recompute
from tests.leaderboard.boards.builders import agent_figures, build_snapshot
from tests.leaderboard.signalboard.helpers import model_scores, publish_board

VENDOR = Path(settings.BASE_DIR) / "static" / "vendor"
PLOTLY_TEMPLATE = Path(settings.BASE_DIR) / "templates" / "leaderboard" / "_plotly.html"


def test_it_loads_the_vendored_partial_plotly_bundle_under_1_5_mb():
    loaded = re.findall(r"\{% static 'vendor/(plotly[^']*\.js)' %\}", PLOTLY_TEMPLATE.read_text())
    assert loaded == ["plotly-basic.min.js"]
    bundle = VENDOR / loaded[0]
    assert bundle.stat().st_size < 1_500_000
    assert "plotly.js (basic - minified)" in bundle.read_text(encoding="utf-8")[:200]
    assert (VENDOR / "plotly-basic.LICENSE").exists()
    assert not (VENDOR / "plotly.min.js").exists()


def test_it_counts_no_plotted_entry_when_none_has_a_cost(db):
    build_snapshot({"overall": [agent_figures("Quill", "2.1.0", cost=None)]})
    from leaderboard.models import BoardEntry

    chart = cost_vs_pass_rate(BoardEntry.objects.all())
    assert chart.plotted == 0
    assert [item.label for item in chart.not_plotted] == ["Quill 2.1.0 · frontier-large"]


def test_it_says_so_instead_of_drawing_an_empty_cost_chart(client, db):
    build_snapshot({"overall": [agent_figures("Quill", "2.1.0", cost=None)]})
    html = client.get("/boards/overall/").content.decode()
    assert 'data-figure="cost-figure"' not in html
    assert '<script id="cost-figure"' not in html
    assert "Nothing to plot yet: no entry on this board has a cost per success" in html
    # The forest plot has a point to draw, so it stays a chart.
    assert 'data-figure="forest-figure"' in html


def test_it_keeps_the_cost_chart_when_an_entry_has_a_cost(client, db):
    build_snapshot({"overall": [agent_figures("TermPilot", "1.4.0", cost=0.5)]})
    html = client.get("/boards/overall/").content.decode()
    assert 'data-figure="cost-figure"' in html
    assert "Nothing to plot yet" not in html


class Anchors(HTMLParser):
    """Ids of the page, the TOC's links, and the ids of every top-level (h2) section."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.toc_links: list[str] = []
        self.h2_ids: list[str] = []
        self._in_toc = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if "id" in attributes:
            self.ids.add(attributes["id"])
        if tag == "ul" and "toc" in (attributes.get("class") or "").split():
            self._in_toc = True
        if self._in_toc and tag == "a" and (attributes.get("href") or "").startswith("#"):
            self.toc_links.append(attributes["href"][1:])
        if tag == "h2" and "id" in attributes:
            self.h2_ids.append(attributes["id"])

    def handle_endtag(self, tag):
        if tag == "ul":
            self._in_toc = False


def parsed(html: str) -> Anchors:
    parser = Anchors()
    parser.feed(html)
    return parser


def test_it_lists_every_methodology_section_in_the_contents(client, db):
    page = parsed(client.get("/methodology/").content.decode())
    assert {"signals", "glossary", "compare", "intervals"} <= set(page.h2_ids)
    missing = [anchor for anchor in page.h2_ids if anchor not in page.toc_links]
    assert missing == []
    assert [link for link in page.toc_links if link not in page.ids] == []


@pytest.mark.parametrize(
    "term", ["wilson", "n", "cost-per-success", "pass-k", "nir", "bash-recovery"]
)
def test_it_defines_each_glossary_term_with_a_link_to_its_section(client, db, term):
    html = client.get("/methodology/").content.decode()
    entry = html.split(f'id="glossary-{term}"')[1].split("</dd>")[0]
    more = re.search(r'href="#([a-z-]+)">More</a>', entry)
    assert more and f'id="{more[1]}"' in html


def test_it_links_the_board_headers_to_glossary_anchors_that_exist(client, boards):
    board = client.get("/boards/overall/?columns=cost,tokens,latency").content.decode()
    methodology = parsed(client.get("/methodology/").content.decode())
    thead = board.split("<thead>")[1].split("</thead>")[0]
    assert "SortHeader" not in board, "a template comment leaked into the page"
    terms = re.findall(r'href="/methodology/#(glossary-[a-z-]+)"', thead)
    assert {"glossary-wilson", "glossary-n", "glossary-cost-per-success"} <= set(terms)
    assert [term for term in terms if term not in methodology.ids] == []


@pytest.mark.django_db(transaction=True)
def test_it_seeds_demo_runs_whose_pages_show_trajectory_steps(client):
    call_command("seed_demo", verbosity=0)
    with_trajectory = sorted(
        (run for run in Run.objects.only("run_id", "trajectory") if run.trajectory),
        key=lambda run: run.run_id,
    )
    assert len(with_trajectory) == 21  # three fix-git runs of each of the seven run bundles
    run = with_trajectory[0]
    html = client.get(f"/runs/{run.pk}/").content.decode()
    assert '<ol class="conversation">' in html
    assert "git reflog -8" in html
    assert "No trajectory was submitted" not in html


def test_it_links_the_signal_headers_to_glossary_anchors_that_exist(client, db):
    publish_board({"frontier-large": model_scores(96, success=0.57, nir=0.12, sd=0.039, p=0.002)})
    signals = client.get("/signals/").content.decode()
    methodology = parsed(client.get("/methodology/").content.decode())
    thead = signals.split("<thead>")[1].split("</thead>")[0]
    terms = re.findall(r'href="/methodology/#(glossary-[a-z-]+)"', thead)
    assert {"glossary-nir", "glossary-bash-recovery", "glossary-steerability"} <= set(terms)
    assert [term for term in terms if term not in methodology.ids] == []


@pytest.mark.django_db(transaction=True)
def test_it_seeds_a_demo_with_one_incomplete_entry_and_one_non_standard_harness(client):
    call_command("seed_demo", verbosity=0)
    snapshot = boards_recompute()
    entries = BoardEntry.objects.filter(
        board__snapshot=snapshot, board__slug="terminal-bench-4.0.0"
    )
    incomplete = [e for e in entries if not e.complete]
    assert [(e.harness_name, e.coverage_tasks, e.coverage_of, e.rank) for e in incomplete] == [
        ("Sprint", 12, 16, None)
    ]
    assert {e.harness_name for e in entries if e.run_config_status == "non_standard"} == {
        "Relay Agent"
    }
    html = client.get("/boards/terminal-bench-4.0.0/").content.decode()
    assert "incomplete: 12/16 tasks" in html and "non-standard: internet on" in html
