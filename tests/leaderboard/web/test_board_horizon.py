"""The time horizon on the pages: the board's column set and chart, the agent page's
section, the API's field and the CSV's last columns."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from ingestion.models import Harness
from leaderboard.web.downloads import board_csv_table
from tests.leaderboard.boards.builders import agent_figures, build_snapshot, make_submission


def rows_of(html: str) -> list[str]:
    """The board table's body rows, in page order."""
    body = html.split("<tbody>", 1)[1].split("</table>", 1)[0]
    return ["".join(row.split("</tr>", 1)[0]) for row in body.split("<tr")[1:]]


pytestmark = pytest.mark.django_db

FITTED = {
    "mode": "headline", "p50": 37.8, "p80": 9.1, "p50_low": 25.0, "p50_high": 55.5,
    "p80_low": 5.0, "p80_high": 14.0, "slope": -0.5, "intercept": 2.62, "tasks": 12,
    "runs": 40, "degenerate": None, "shortest": 2.0, "longest": 480.0,
    "points": [[2.0, 1.0, 4, 12], [30.0, 0.5, 6, 18], [480.0, 0.0, 2, 10]],
}  # fmt: skip
ALL_PASS = {**FITTED, "p50": None, "p80": None, "p50_high": None, "p80_high": None,
            "slope": None, "intercept": None, "degenerate": "all_success"}  # fmt: skip
HORIZON_COLUMNS = [
    "horizon_mode", "horizon_p50", "horizon_p50_low", "horizon_p50_high", "horizon_p80",
    "horizon_p80_low", "horizon_p80_high", "horizon_slope", "horizon_tasks",
]  # fmt: skip


@pytest.fixture
def horizons(db):
    return build_snapshot({
        "overall": [
            agent_figures("Tern", "1.0", "frontier-large", passes=80, horizon=FITTED),
            agent_figures("Quill", "2.1.0", "frontier-large", passes=70, horizon=ALL_PASS),
            agent_figures("Wren", "0.3", "open-small", passes=40),
        ],
    })  # fmt: skip


def test_it_shows_the_time_horizon_column_set_with_its_chart(client, horizons):
    html = client.get("/boards/overall/?col=horizon").content.decode()
    assert "Time horizon p50 [95% CI] · p80" in html and "#time-horizon" in html
    tern, quill, wren = rows_of(html)
    assert "37.8 min" in tern and "[25 min–55.5 min]" in tern and "p80 9.1 min" in tern
    assert "&gt; longest task" in quill
    assert "Fewer than two counted tasks with human minutes" in wren
    figure = json.loads(re.search(r'id="horizon-figure"[^>]*>(.*?)</script>', html, re.S)[1])
    assert figure["layout"]["xaxis"]["type"] == "log"
    assert "Not on this chart (no finite horizon)" in html
    # Off by default: no column, no chart.
    default = client.get("/boards/overall/").content.decode()
    assert "Time horizon p50" not in default and 'id="horizon-figure"' not in default
    assert 'name="col" value="horizon"' in default


def test_it_shows_the_agent_pages_time_horizon_section(client, horizons, submitter):
    for harness in Harness.objects.all():  # an agent page needs a submission
        make_submission(submitter, harness)
    html = client.get("/agents/Tern/1.0/frontier-large/").content.decode()
    assert '<h2 id="time-horizon">Time horizon</h2>' in html
    figure = json.loads(re.search(r'id="horizon-figure"[^>]*>(.*?)</script>', html, re.S)[1])
    assert figure["data"][0]["x"] == [2.0, 30.0, 480.0]
    assert "plotly" in html
    quill = client.get("/agents/Quill/2.1.0/frontier-large/").content.decode()
    assert "&gt; longest task" in quill and "every counted run passed" in quill
    wren = client.get("/agents/Wren/0.3/open-small/").content.decode()
    assert 'id="time-horizon"' not in wren


def test_it_serves_the_horizon_in_the_api_and_the_csv(client, horizons):
    entries = client.get("/api/v1/boards/overall/").json()["entries"]
    by_harness = {e["harness"]: e for e in entries}
    assert by_harness["Tern"]["horizon"]["p50"] == 37.8
    assert by_harness["Quill"]["horizon"]["degenerate"] == "all_success"
    assert by_harness["Wren"]["horizon"] == {}
    text = client.get("/boards/overall/export.csv").content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    header = next(csv.reader(io.StringIO(text)))
    # Appended at the end (then only intervals_pending and the terms' column): every
    # earlier column keeps its place.
    assert header[-len(HORIZON_COLUMNS) - 2 : -2] == HORIZON_COLUMNS
    assert board_csv_table([]).columns[: -len(HORIZON_COLUMNS)][0] == "rank"
    tern = next(r for r in rows if r["harness"] == "Tern")
    assert (tern["horizon_p50"], tern["horizon_p80_high"], tern["horizon_tasks"]) == (
        "37.8", "14.0", "12",
    )  # fmt: skip
    quill = next(r for r in rows if r["harness"] == "Quill")
    assert (quill["horizon_mode"], quill["horizon_p50"]) == ("headline", "")


def test_it_states_the_time_horizon_on_the_methodology_page(client, registry):
    html = client.get("/methodology/").content.decode()
    assert '<h2 id="time-horizon">Time horizon</h2>' in html
    assert "1 / (runs of its task × √(tasks of its family))" in html
    assert "7.5, 30, 120 and 480" in html
    assert "Overall, Coding: headline" in html
    # The registry's fields, from TASK_FIELDS and SUITE_FIELDS.
    assert "human_minutes" in html and "horizon_mode" in html
