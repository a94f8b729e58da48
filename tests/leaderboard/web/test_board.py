"""Board pages (leaderboard.web.board): tabs, htmx partials, sorting, filters, columns,
ties, badges, charts and a bounded number of queries.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from leaderboard.methodology import stats
from leaderboard.presentation.figures import percent
from tests.leaderboard.boards.builders import (
    BOARD_TITLES,
    agent_figures,
    agent_order,
    build_snapshot,
    htmx_get,
    many_agents,
    standard_boards,
)

# ---------------------------------------------------------------------------------
# Board page


def test_it_renders_the_overall_board_at_its_own_address(client, boards):
    response = client.get("/boards/overall/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" in html
    assert '<table class="board">' in html and "<caption" in html
    assert agent_order(html)[:3] == ["OpenHarness", "Quill", "TermPilot"]
    assert 'id="board-table"' in html


def test_it_renders_tabs_for_every_board_of_the_current_snapshot(client, boards):
    html = client.get(reverse("board", args=["coding"])).content.decode()
    for slug, title in BOARD_TITLES.items():
        assert f'href="/boards/{slug}/"' in html
        assert title in html
    assert 'aria-current="page">Coding</a>' in html
    assert agent_order(html) == ["OpenHarness", "Quill", "TermPilot"]


def test_it_shows_when_the_snapshot_was_computed(client, db):
    build_snapshot(standard_boards(), computed_at=timezone.now() - dt.timedelta(minutes=7))
    html = client.get("/boards/overall/").content.decode()
    assert "computed 7 min ago" in html
    assert 'datetime="' in html and " UTC" in html


def test_it_reads_only_the_current_snapshot(client, db):
    build_snapshot({"overall": [agent_figures("OldHarness")]})
    build_snapshot({"overall": [agent_figures("NewHarness")]})
    assert agent_order(client.get("/boards/overall/").content.decode()) == ["NewHarness"]


def test_it_returns_404_for_an_unknown_board(client, boards):
    assert client.get("/boards/no-such-board/").status_code == 404


def test_it_renders_an_empty_state_without_a_snapshot(client, db):
    response = client.get("/boards/overall/")
    assert response.status_code == 200
    assert "No board has been computed yet" in response.content.decode()


def test_it_returns_only_the_table_partial_to_htmx(client, boards):
    response = htmx_get(client, "/boards/overall/?sort=-n&model=frontier")
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in html and "<body" not in html
    # First the page's title and the downloads (outside the region) for htmx to set,
    # then the region itself.
    title, downloads, region = re.match(
        r"\s*(<title>.*?</title>)\s*(<p [^>]*>.*?</p>)\s*(.*)", html, re.S
    ).groups()
    assert title == "<title>Overall · Arena</title>"
    assert 'id="board-downloads" hx-swap-oob="true"' in downloads
    assert 'export.csv?model=frontier&amp;sort=-n"' in downloads
    assert region.startswith('<div id="board-table"')
    assert "<table" in html
    assert 'id="board-filters"' not in html
    # The address bar gets the canonical link, whatever the form sent.
    assert response["HX-Push-Url"] == "/boards/overall/?model=frontier&sort=-n"
    assert "HX-Request" in response["Vary"]


def test_it_returns_the_whole_board_region_for_a_tab_switch(client, boards):
    html = htmx_get(client, "/boards/coding/", target="board-page").content.decode()
    assert "<html" not in html
    # The tab's title first, for htmx to set: the page is named after the board shown.
    assert html.lstrip().startswith("<title>Coding · Arena</title>")
    assert html.split("</title>", 1)[1].lstrip().startswith('<div id="board-page"')
    assert html.count(" · Arena</title>") == 1 and "hx-swap-oob" not in html
    assert 'id="board-filters"' in html and 'id="board-table"' in html


def test_it_returns_the_whole_page_for_an_htmx_history_restore(client, boards):
    html = htmx_get(
        client, "/boards/overall/", **{"HX-History-Restore-Request": "true"}
    ).content.decode()
    assert "<html" in html


def test_it_sorts_by_a_whitelisted_column(client, boards):
    by_n = agent_order(client.get("/boards/overall/?sort=-n").content.decode())
    assert by_n[:4] == ["OpenHarness", "Quill", "TermPilot", "Minimal"]
    ascending_cost = agent_order(
        client.get("/boards/overall/?sort=cost_per_success").content.decode()
    )
    # Ranked rows first (cheapest first, n/a last), then the unranked ones.
    assert ascending_cost[:4] == ["Minimal", "OpenHarness", "TermPilot", "Quill"]
    descending_cost = agent_order(
        client.get("/boards/overall/?sort=-cost_per_success").content.decode()
    )
    assert descending_cost[:4] == ["TermPilot", "OpenHarness", "Minimal", "Quill"]


def test_it_links_each_header_to_the_other_direction(client, boards):
    html = client.get("/boards/overall/?sort=-n").content.decode()
    assert 'href="/boards/overall/?sort=n"' in html
    assert 'aria-sort="descending"' in html
    assert 'href="/boards/overall/?sort=-wilson_low"' in html
    assert 'hx-get="/boards/overall/?sort=n"' in html


@pytest.mark.parametrize("sort", ["password", "-__class__", "harness__id", "-", "rank;drop"])
def test_it_ignores_an_unknown_sort(client, boards, sort):
    response = client.get("/boards/overall/", {"sort": sort})
    assert response.status_code == 200
    assert agent_order(response.content.decode()) == agent_order(
        client.get("/boards/overall/").content.decode()
    )


def test_it_filters_by_model_and_by_harness(client, boards):
    assert set(agent_order(client.get("/boards/overall/?model=mid-small").content.decode())) == {
        "Relay",
        "Empty",
    }
    assert agent_order(client.get("/boards/overall/?harness=quill").content.decode()) == ["Quill"]
    assert agent_order(client.get("/boards/overall/?harness=TermPilot+1.4").content.decode()) == [
        "TermPilot"
    ]
    html = client.get("/boards/overall/?harness=nothing-like-this").content.decode()
    assert agent_order(html) == []
    assert "No ranked agent matches these filters" in html


def test_it_hides_unranked_entries_when_asked(client, boards):
    shown = agent_order(client.get("/boards/overall/").content.decode())
    assert "Broken" in shown
    # The form sends "0" and, when ticked, "1"; unticked it sends only "0".
    hidden = agent_order(client.get("/boards/overall/?unranked=0").content.decode())
    assert "Broken" not in hidden and "Empty" not in hidden
    assert (
        agent_order(client.get("/boards/overall/?unranked=0&unranked=1").content.decode()) == shown
    )


def test_it_shows_the_columns_picked(client, boards):
    default = client.get("/boards/overall/").content.decode()
    assert "Cost / success" in default and "Tokens / success" in default
    assert "pass^k</a></th>" not in default and "TTFT p50" not in default
    picked = client.get("/boards/overall/?col=&col=passk&col=latency").content.decode()
    assert "Cost / success" not in picked and "Tokens / success" not in picked
    assert "pass^k</a></th>" in picked and "TTFT p50" in picked
    assert 'colspan="8"' in picked  # the "Not ranked" divider spans every column


def test_it_shows_pass_k_at_the_k_picked_with_pass_at_k_under_it(client, boards):
    largest = client.get("/boards/overall/?col=passk").content.decode()
    assert "pass^k</a></th>" in largest and "k=1</span>" in largest
    picked = client.get("/boards/overall/?col=passk&k=1").content.decode()
    assert "pass^1</a></th>" in picked and "pass@1 " in picked
    assert '<option value="1" selected>' in picked
    # Every entry has pass^k at k=1 only: at k=2 its rows say n/a, and why.
    beyond = client.get("/boards/overall/?col=passk&k=2").content.decode()
    assert "pass^2</a></th>" in beyond and "fewer than 2 trials" in beyond


def test_it_answers_an_unknown_k_with_the_largest_k(client, boards):
    html = client.get("/boards/overall/?col=passk&k=99").content.decode()
    assert "pass^k</a></th>" in html and '<option value="" >' not in html


@pytest.mark.parametrize("count", [5, 50])
def test_it_runs_a_fixed_small_number_of_queries(client, db, django_assert_max_num_queries, count):
    build_snapshot({"overall": many_agents(count), "coding": many_agents(3)})
    with django_assert_max_num_queries(6) as captured:
        response = client.get("/boards/overall/?sort=-n&model=model&col=passk&col=latency&col=cost")
    assert response.status_code == 200
    assert len(agent_order(response.content.decode())) == count
    assert len(captured.captured_queries) == 3


def test_it_stays_within_six_queries_for_a_signed_in_visitor(
    client, submitter, django_assert_max_num_queries
):
    build_snapshot({"overall": many_agents(50)})
    client.force_login(submitter)
    with django_assert_max_num_queries(6):  # plus the session and the user
        assert client.get("/boards/overall/").status_code == 200


def test_it_runs_as_many_queries_for_the_htmx_partial_and_the_export(
    client, db, django_assert_max_num_queries
):
    build_snapshot({"overall": many_agents(50)})
    with django_assert_max_num_queries(3):
        htmx_get(client, "/boards/overall/?sort=n")
    with django_assert_max_num_queries(3):
        client.get("/boards/overall/export.csv")


def rank_labels(html: str) -> list[str]:
    """The rank of each row as shown, without the rank range and tie marker after it."""
    cells = re.findall(r'<td class="rank">(.*?)</td>', html, re.S)
    return [re.match(r"[^\s<]*", cell).group(0) for cell in cells]


def test_it_shows_ties_as_equal_rank(client, boards):
    labels = rank_labels(client.get("/boards/overall/").content.decode())
    assert labels[:4] == ["1", "=2", "=2", "4"]


def test_it_keeps_the_tie_mark_when_a_filter_hides_the_other_entry(client, boards):
    assert rank_labels(client.get("/boards/overall/?harness=quill").content.decode()) == ["=2"]


def test_it_lists_an_under_review_entry_below_not_ranked_with_its_chip(client, boards):
    html = client.get("/boards/overall/").content.decode()
    ranked, unranked = html.split(">Not ranked</th>")
    assert "Broken" not in ranked
    assert "Broken" in unranked
    assert "Under review: 27% infra errors" in unranked
    assert 'href="/methodology/#under-review"' in unranked
    assert '<tbody class="unranked">' in html


def test_it_lists_an_entry_without_counted_runs_as_not_ranked(client, boards):
    unranked = client.get("/boards/overall/").content.decode().split(">Not ranked</th>")[1]
    assert "Empty" in unranked
    assert "No counted runs" in unranked


def test_it_shows_na_cost_with_its_reason(client, boards):
    html = client.get("/boards/overall/").content.decode()
    assert '<abbr class="na" title="n/a: the price list has no price' in html
    assert '<abbr class="na" title="n/a: no successes to divide the cost by">n/a</abbr>' in html
    assert "$0.32" in html


def test_it_shows_the_interval_bar_and_its_numbers(client, boards):
    html = client.get("/boards/overall/").content.decode()
    low, high = stats.wilson_interval(80, 100)
    assert f"95% CI {percent(low)}–{percent(high)}" in html
    assert f'<rect class="ci-range" x="{round(low * 100, 2)}"' in html
    assert "n = 100" in html
    assert "112 runs: 0 infra errors excluded, 12 conflict-excluded, 100 counted" in html


def test_it_shows_the_badges(client, boards):
    html = client.get("/boards/overall/").content.decode()
    assert "Token saving ×0.58" in html
    assert 'href="/methodology/#token-saving"' in html
    assert ">Minimal baseline</a>" in html
    assert "Conflict-excluded: 12 runs" in html
    assert 'href="/methodology/#conflict-of-interest"' in html


def test_it_links_each_row_to_its_agent_page(client, boards):
    html = client.get("/boards/overall/").content.decode()
    assert 'href="/agents/OpenHarness/0.9.2/frontier-large/"' in html
    assert 'href="/agents/Relay%20Agent/0.3.1/mid-small/"' in html


def test_it_escapes_a_script_in_a_harness_name(client, db):
    build_snapshot({"overall": [agent_figures("<script>alert(1)</script>", "1.0", "m<b>x")]})
    html = client.get("/boards/overall/").content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "m<b>x" not in html
    # In the chart JSON too: json_script escapes the markup characters.
    assert "\\u003Cscript\\u003Ealert(1)\\u003C/script\\u003E" in html


def test_it_embeds_both_chart_figures_and_lists_entries_without_cost(client, boards):
    html = client.get("/boards/overall/").content.decode()
    assert '<script id="forest-figure" type="application/json">' in html
    assert '<script id="cost-figure" type="application/json">' in html
    not_plotted = html.split('class="not-plotted"')[1]
    assert "Quill 2.1.0 · frontier-large" in not_plotted
    assert "no list price" in not_plotted
    assert "vendor/plotly-basic.min.js" in html and "js/charts.js" in html


def test_it_links_the_downloads_with_the_current_view(client, boards):
    html = client.get("/boards/overall/?sort=-n").content.decode()
    assert 'href="/boards/overall/export.csv?sort=-n"' in html
    assert 'href="/boards/overall/export.json?sort=-n"' in html
