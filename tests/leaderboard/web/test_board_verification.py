"""Verified results on the pages: the mark, the "Verified only" filter in the
URL, the agent page, self-reported infra errors, the API and the downloads."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.urls import reverse

from ingestion.models import Harness
from leaderboard.models import BoardEntry
from leaderboard.presentation.board import n_breakdown, unranked_reason
from tests.leaderboard.boards.builders import (
    agent_figures,
    agent_order,
    build_snapshot,
    htmx_get,
    make_submission,
    many_agents,
    rows_of,
)

VERIFIED_MARK = 'class="badge badge-good verified-mark"'


@pytest.fixture
def mixed(db):
    """Overall: a Verified leader, a Self-reported runner-up and a Self-reported entry
    under review for its infra errors; the leader is Self-reported on Coding."""
    verified = agent_figures(
        "Sealed", "1.0.0", "frontier-large", passes=80, infra_errors=2, verification="verified"
    )
    plain = agent_figures("Plain", "2.0.0", "frontier-large", passes=70, infra_errors=3)
    broken = agent_figures("Broken", "0.1.0", "frontier-large", passes=60, n=73, infra_errors=27)
    return build_snapshot({
        "overall": [verified, plain, broken],
        "coding": [{**verified, "verification": "self_reported"}, plain],
    })  # fmt: skip


def test_it_marks_verified_entries_beside_the_agent(client, mixed):
    cells = rows_of(client.get("/boards/overall/").content.decode())
    assert ["Verified" in cell for cell in cells] == [True, False, False]
    assert 'href="/methodology/#verified-results"' in cells[0]
    assert "Verified" not in rows_of(client.get("/boards/coding/").content.decode())[0]


def test_it_filters_verified_entries_from_the_url_and_restores_the_checkbox(client, mixed):
    html = client.get("/boards/overall/?verified=1").content.decode()
    assert agent_order(html) == ["Sealed"]
    assert 'name="verified" value="1" checked' in html
    assert "Verified only (of 3)" in html
    assert agent_order(client.get("/boards/overall/?verified=0&verified=1").content.decode()) == [
        "Sealed"
    ]
    unfiltered = client.get("/boards/overall/?verified=0").content.decode()
    assert agent_order(unfiltered) == ["Sealed", "Plain", "Broken"]
    assert 'name="verified" value="1">' in unfiltered  # unticked


def test_it_answers_the_htmx_filter_with_the_table_and_a_canonical_url(client, mixed):
    response = htmx_get(client, "/boards/overall/?model=&harness=&unranked=0&unranked=1"
                                "&verified=0&verified=1&col=&col=cost")  # fmt: skip
    html = response.content.decode()
    # The page's title and the downloads come first (for htmx to set), then the table.
    assert html.lstrip().startswith("<title>Overall · Arena</title>")
    assert 'id="board-filters"' not in html and '<div id="board-table"' in html
    assert agent_order(html) == ["Sealed"]
    assert response["HX-Push-Url"] == "/boards/overall/?verified=1&col=cost"


def test_it_keeps_the_filter_in_the_download_links_and_the_sort_links(client, mixed):
    html = client.get("/boards/overall/?verified=1").content.decode()
    assert 'href="/boards/overall/export.csv?verified=1"' in html
    assert 'href="/boards/overall/?verified=1&amp;sort=-n"' in html


def test_it_says_when_no_ranked_entry_is_verified(client, mixed):
    html = client.get("/boards/coding/?verified=1").content.decode()
    assert agent_order(html) == []
    assert "No ranked agent matches these filters." in html


def test_it_labels_self_reported_infra_errors_on_the_board(client, mixed):
    html = client.get("/boards/overall/").content.decode()
    assert "Under review: 27% infra errors (self-reported)" in html
    assert "2 infra errors excluded" in html  # the Verified entry's n tooltip
    assert "3 infra errors (self-reported) excluded" in html


def test_it_words_infra_errors_by_the_entry_verification():
    verified = BoardEntry(runs=10, infra_errors=5, infra_error_rate=0.5, under_review=True,
                          conflict_excluded=0, n=5, passes=3, verification="verified")  # fmt: skip
    self_reported = BoardEntry(**{**_fields(verified), "verification": "self_reported"})
    assert unranked_reason(verified) == "Under review: 50% infra errors"
    assert unranked_reason(self_reported) == "Under review: 50% infra errors (self-reported)"
    assert n_breakdown(self_reported).startswith("10 runs: 5 infra errors (self-reported) excluded")


def _fields(entry: BoardEntry) -> dict:
    names = ("runs", "infra_errors", "infra_error_rate", "under_review", "conflict_excluded",
             "n", "passes")  # fmt: skip
    return {name: getattr(entry, name) for name in names}


def test_it_shows_the_verification_on_the_agent_page(client, mixed, submitter):
    make_submission(submitter, Harness.objects.get(name="Sealed"))  # a public agent
    html = client.get(reverse("agent", args=["Sealed", "1.0.0", "frontier-large"])).content.decode()
    overall, coding = html.split('<td class="verification">')[1:3]
    assert VERIFIED_MARK in overall and "2 infra errors</span>" in overall
    assert coding.startswith("Self-reported")
    assert "2 infra errors (self-reported)" in coding


def test_it_carries_verification_in_the_api_and_filters_it(client, mixed):
    entries = client.get("/api/v1/boards/overall/").json()["entries"]
    assert [(e["harness"], e["verification"]) for e in entries] == [
        ("Sealed", "verified"), ("Plain", "self_reported"), ("Broken", "self_reported"),
    ]  # fmt: skip
    only = client.get("/api/v1/boards/overall/?verified=1").json()["entries"]
    assert [(e["harness"], e["rank"]) for e in only] == [("Sealed", 1)]
    # The cached JSON of one filter is never served for the other.
    again = client.get("/api/v1/boards/overall/").json()["entries"]
    assert len(again) == 3


def test_it_carries_verification_in_the_csv_and_json_downloads(client, mixed):
    text = client.get("/boards/overall/export.csv").content.decode()
    rows = list(csv.DictReader(line for line in io.StringIO(text) if not line.startswith("#")))
    assert [(row["harness"], row["verification"]) for row in rows] == [
        ("Sealed", "verified"), ("Plain", "self_reported"), ("Broken", "self_reported"),
    ]  # fmt: skip
    document = json.loads(client.get("/boards/overall/export.json?verified=1").content)
    assert [(e["harness"], e["verification"]) for e in document["entries"]] == [
        ("Sealed", "verified")
    ]


def test_it_explains_verified_results_on_the_methodology_page(client, db):
    html = client.get("/methodology/").content.decode()
    assert '<h2 id="verified-results">Verified results</h2>' in html
    assert "infra errors (self-reported)" in html


@pytest.mark.parametrize("count", [5, 50])
def test_it_filters_verified_entries_in_a_fixed_number_of_queries(
    client, db, django_assert_max_num_queries, count
):
    agents = [{**figures, "verification": "verified"} for figures in many_agents(count)]
    build_snapshot({"overall": agents})
    with django_assert_max_num_queries(3):
        response = client.get("/boards/overall/?verified=1")
    assert len(agent_order(response.content.decode())) == count
    with django_assert_max_num_queries(3):
        api = client.get("/api/v1/boards/overall/?verified=1")
    assert len(api.json()["entries"]) == count


def test_it_documents_the_verified_filter_and_field_in_the_schema(client, db):
    schema = client.get("/api/v1/schema/", {"format": "json"}).json()
    board = schema["paths"]["/api/v1/boards/{slug}/"]["get"]
    assert "verified" in {parameter["name"] for parameter in board["parameters"]}
    assert "verification" in schema["components"]["schemas"]["BoardEntry"]["properties"]
