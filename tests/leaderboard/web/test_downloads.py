"""Board downloads (leaderboard.web.downloads): CSV and JSON with the data terms."""

from __future__ import annotations

import csv
import io
import json

import pandas
import pytest

from leaderboard.methodology import stats
from leaderboard.web.terms import ATTRIBUTION, DATA_TERMS
from tests.leaderboard.boards.builders import agent_figures, build_snapshot

# ---------------------------------------------------------------------------------
# Downloads


def test_it_exports_csv_with_the_attribution_and_interval_numbers(client, boards):
    response = client.get("/boards/overall/export.csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="arena-overall-' in response["Content-Disposition"]
    text = response.content.decode()
    # Nothing before the header (pandas and spreadsheets read it as it is); the terms
    # are the last column and the Link header.
    assert text.startswith("rank,")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {row["data_terms"] for row in rows} == {"http://testserver/methodology/#data-terms"}
    assert response["Link"] == '<http://testserver/methodology/#data-terms>; rel="license"'
    first = rows[0]
    low, high = stats.wilson_interval(80, 100)
    assert first["harness"] == "OpenHarness"
    assert float(first["wilson_low"]) == pytest.approx(low)
    assert float(first["wilson_high"]) == pytest.approx(high)
    # A tie rank is text to a spreadsheet, not the formula `=2`.
    assert [row["rank_display"] for row in rows[:4]] == ["1", "'=2", "'=2", "4"]
    assert first["pass_hat_1"] == "0.8"
    broken = next(row for row in rows if row["harness"] == "Broken")
    assert broken["rank"] == "" and broken["under_review"] == "True"


def test_it_exports_json_with_the_attribution_and_interval_numbers(client, boards):
    response = client.get("/boards/overall/export.json?harness=OpenHarness")
    document = json.loads(response.content)
    assert response["Content-Type"].startswith("application/json")
    assert document["attribution"] == ATTRIBUTION
    assert document["terms"] == DATA_TERMS
    assert document["terms_url"] == "http://testserver/methodology/#data-terms"
    assert document["slug"] == "overall"
    (entry,) = document["entries"]
    low, high = stats.wilson_interval(80, 100)
    assert entry["wilson_low"] == pytest.approx(low)
    assert entry["wilson_high"] == pytest.approx(high)
    assert entry["token_saving"] == {"ratio": 0.58, "awarded": True}


def test_it_writes_names_that_look_like_formulas_as_text_in_the_csv(client, db):
    build_snapshot({"overall": [agent_figures("=HYPERLINK(1)", "1.0", "@model")]})
    rows = client.get("/boards/overall/export.csv").content.decode().splitlines()
    assert rows[1].split(",")[2:5] == ["'=HYPERLINK(1)", "1.0", "'@model"]


def test_it_writes_a_csv_that_pandas_reads_without_options(client, boards):
    response = client.get("/boards/overall/export.csv")
    frame = pandas.read_csv(io.BytesIO(response.content))
    api = client.get("/api/v1/boards/overall/").json()
    assert list(frame["model"]) == [entry["model"] for entry in api["entries"]]
    assert frame.columns[-1] == "data_terms"


def test_it_refuses_an_unknown_export_format_or_board(client, boards):
    assert client.get("/boards/overall/export.xml").status_code == 404
    assert client.get("/boards/nothing/export.csv").status_code == 404


@pytest.mark.django_db
def test_it_exports_the_trajectory_and_violation_columns(client, submitter):
    from tests.ingestion.services import trace_builders

    trace_builders.two_agents(submitter)
    text = client.get(f"/boards/{trace_builders.BOARD}/export.csv").content.decode()
    rows = {row["harness"]: row for row in csv.DictReader(io.StringIO(text))}
    other, toolsmith = rows["Other"], rows["Toolsmith"]
    low, high = stats.wilson_interval(1, 3)
    assert float(other["trajectory_exact_args"]) == pytest.approx(1 / 3)
    assert float(other["trajectory_exact_args_low"]) == pytest.approx(low)
    assert float(other["trajectory_exact_args_high"]) == pytest.approx(high)
    assert other["trajectory_exact_args_n"] == "3"
    assert (other["violations_checked"], other["violations_any"]) == ("3", "1")
    assert json.loads(other["violations_by_rule"]) == {"no-delete": 1}
    assert (toolsmith["violations_any"], toolsmith["violations_by_rule"]) == ("0", "")
    assert float(toolsmith["trajectory_exact_args"]) == 1.0
