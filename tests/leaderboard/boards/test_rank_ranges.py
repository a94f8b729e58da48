"""Rank ranges and ties with the leader on hand-made boards (leaderboard.boards.compute
order_and_rank), and how they read in the API, the CSV and the board page."""

from __future__ import annotations

import csv
import io
from urllib.parse import parse_qs, urlsplit

import pytest

from leaderboard.boards.compute import order_and_rank
from leaderboard.presentation.intervals import mean_text, rank_range_text
from leaderboard.web.links import compare_url
from tests.leaderboard.boards.builders import agent_figures, build_snapshot


def ranked(*figures: dict) -> dict[str, dict]:
    return {e["harness"]: e for e in order_and_rank([dict(f) for f in figures])}


def test_it_gives_each_ranked_entry_the_ranks_its_interval_allows():
    board = ranked(
        agent_figures("A", passes=95, n=100),  # [0.888, 0.978]
        agent_figures("B", passes=90, n=100),  # [0.826, 0.945]
        agent_figures("C", passes=50, n=100),  # [0.404, 0.596]
        agent_figures("D", passes=45, n=100),  # [0.357, 0.547]
    )
    assert [(board[h]["rank_best"], board[h]["rank_worst"]) for h in "ABCD"] == [
        (1, 2), (1, 2), (3, 4), (3, 4),
    ]  # fmt: skip
    assert [board[h]["tied_with_leader"] for h in "ABCD"] == [True, True, False, False]


def test_it_gives_exact_ties_the_same_range():
    board = ranked(
        agent_figures("A", passes=7, n=10),
        agent_figures("B", passes=7, n=10),
        agent_figures("C", passes=99, n=100),
    )
    assert board["A"]["rank"] == board["B"]["rank"] == 2
    # C (99 of 100) is certainly better than both: neither can rank first.
    assert (board["A"]["rank_best"], board["A"]["rank_worst"]) == (2, 3)
    assert (board["B"]["rank_best"], board["B"]["rank_worst"]) == (2, 3)
    assert not board["A"]["tied_with_leader"]


def test_it_leaves_unranked_entries_out_of_every_range():
    board = ranked(
        agent_figures("A", passes=8, n=10),
        agent_figures("Broken", passes=9, n=10, infra_errors=5),  # under review
        agent_figures("Empty", passes=0, n=0),
    )
    assert (board["A"]["rank_best"], board["A"]["rank_worst"]) == (1, 1)
    for unranked in ("Broken", "Empty"):
        assert board[unranked]["rank"] is None
        assert (board[unranked]["rank_best"], board[unranked]["rank_worst"]) == (None, None)
        assert board[unranked]["tied_with_leader"] is False


def test_it_ranks_a_single_entry_first_to_first_and_tied_with_itself():
    board = ranked(agent_figures("Alone", passes=3, n=4))
    assert (board["Alone"]["rank_best"], board["Alone"]["rank_worst"]) == (1, 1)
    assert board["Alone"]["tied_with_leader"] is True


def test_it_reads_a_rank_range_only_when_it_spans_several_ranks():
    class Entry:
        rank_best, rank_worst = 2, 5

    assert rank_range_text(Entry()) == "2–5"
    Entry.rank_worst = 2
    assert rank_range_text(Entry()) == ""


def test_it_shows_a_latency_mean_with_its_interval():
    class Entry:
        ttft_ms_mean, ttft_ms_mean_low, ttft_ms_mean_high = 1200.0, 950.0, 1450.0

    assert mean_text(Entry(), "ttft_ms") == "mean 1.2 s [950 ms–1.4 s]"


def test_it_writes_the_compare_link_with_its_query_encoded():
    url = compare_url("overall", "Open Harness/1.0/m&x", "Q/2/m")
    parts = urlsplit(url)
    assert parts.path == "/compare/"
    assert parse_qs(parts.query) == {
        "board": ["overall"],
        "a": ["Open Harness/1.0/m&x"],
        "b": ["Q/2/m"],
    }


# ---------------------------------------------------------------------------------
# API, CSV and page, on one snapshot


@pytest.fixture
def ranged(db):
    figures = [
        agent_figures("Lead", passes=90, n=100, ttft_ms_mean=800.0, ttft_ms_mean_low=700.0,
                      ttft_ms_mean_high=900.0),
        agent_figures("Close", passes=85, n=100),
        agent_figures("Far", passes=20, n=100),
        agent_figures("Broken", passes=60, n=73, infra_errors=27),
    ]  # fmt: skip
    return build_snapshot({"overall": figures})


def test_it_publishes_rank_range_and_tied_with_leader_in_the_api(client, ranged):
    entries = client.get("/api/v1/boards/overall/").json()["entries"]
    by_name = {e["harness"]: e for e in entries}
    assert by_name["Lead"]["rank_range"] == [1, 2] and by_name["Lead"]["tied_with_leader"]
    assert by_name["Close"]["rank_range"] == [1, 2] and by_name["Close"]["tied_with_leader"]
    assert by_name["Far"]["rank_range"] == [3, 3] and not by_name["Far"]["tied_with_leader"]
    assert by_name["Broken"]["rank_range"] is None
    assert by_name["Lead"]["ttft_ms_mean_low"] == 700.0
    assert by_name["Lead"]["pass_hat_k"]["1"]["low"] is None  # built without bounds


def test_it_writes_rank_best_worst_and_tied_in_the_csv(client, ranged):
    text = client.get("/boards/overall/export.csv?unranked=1").content.decode()
    rows = list(csv.DictReader(line for line in io.StringIO(text) if not line.startswith("#")))
    by_name = {row["harness"]: row for row in rows}
    assert (by_name["Close"]["rank_best"], by_name["Close"]["rank_worst"]) == ("1", "2")
    assert by_name["Close"]["tied_with_leader"] == "True"
    assert by_name["Broken"]["rank_best"] == "" and by_name["Broken"]["tied_with_leader"] == "False"
    assert by_name["Lead"]["ttft_ms_mean_high"] == "900.0"
    header = text.splitlines()[0].split(",")
    assert header.index("pass_hat_8") < header.index("rank_best") < header.index("pass_hat_1_low")


def test_it_shows_the_range_the_marker_and_compare_links_on_the_page(client, ranged):
    html = client.get("/boards/overall/").content.decode()
    assert '<span class="rank-range" title="Ranks its 95% interval allows">1–2</span>' in html
    assert (
        html.count('<span class="chip chip-tied" title="Statistically tied with the leader">') == 1
    )
    assert "statistically tied with the leader" in html  # the legend, visible text
    links = [part.split('"', 1)[0] for part in html.split('class="compare-link" href="')[1:]]
    assert len(links) == 2  # Close and Far, not the leader's row
    query = parse_qs(urlsplit(links[0].replace("&amp;", "&")).query)
    assert query["board"] == ["overall"] and query["b"][0].startswith("Lead/")
    assert "[85.0–93.2]" not in html and "[82.6–94.5]" in html  # Close's Wilson numbers
