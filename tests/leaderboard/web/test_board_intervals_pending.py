"""While a snapshot's interval bounds are being computed after the swap, the board page,
its API and its CSV say so; once they land, the same snapshot's pages show them (no
cached page keeps the notice)."""

from __future__ import annotations

import csv
import io

import pytest

from leaderboard.recompute.intervals import intervals_snapshot_fill
from leaderboard.recompute.services import boards_recompute
from tests.builders import board_tasks_only, outcomes, submit

pytestmark = pytest.mark.django_db

NOTICE = "Intervals being computed"


@pytest.fixture
def deferred(registry, submitter):
    board_tasks_only("regex-log", "sqlite-db-truncate")
    runs = outcomes("pass", "fail", task="regex-log")
    runs += outcomes("pass", "pass", "fail", task="sqlite-db-truncate")
    submit(submitter, runs)
    return boards_recompute(defer_intervals=True)  # its task runs on commit: not here


def csv_rows(client, url: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(client.get(url).content.decode())))


def test_it_says_intervals_are_being_computed_until_they_land(client, deferred):
    assert NOTICE in client.get("/boards/overall/").content.decode()
    intervals_snapshot_fill(snapshot_id=deferred.pk)
    page = client.get("/boards/overall/").content.decode()
    assert NOTICE not in page


def test_it_marks_the_board_and_its_entries_in_the_api_until_they_land(client, deferred):
    board = client.get("/api/v1/boards/overall/").json()
    assert board["intervals_pending"] is True
    (entry,) = board["entries"]
    assert entry["intervals_pending"] is True and entry["pass_hat_k"]["1"]["low"] is None
    assert entry["pass_hat_k"]["1"]["value"] is not None
    intervals_snapshot_fill(snapshot_id=deferred.pk)
    board = client.get("/api/v1/boards/overall/").json()
    assert board["intervals_pending"] is False
    (entry,) = board["entries"]
    assert entry["intervals_pending"] is False and entry["pass_hat_k"]["1"]["low"] is not None


def test_it_marks_each_csv_row_until_its_bounds_land(client, deferred):
    for url in ("/api/v1/boards/overall/?format=csv", "/boards/overall/export.csv"):
        (row,) = csv_rows(client, url)
        assert row["intervals_pending"] == "True" and row["pass_hat_1_low"] == ""
    intervals_snapshot_fill(snapshot_id=deferred.pk)
    for url in ("/api/v1/boards/overall/?format=csv", "/boards/overall/export.csv"):
        (row,) = csv_rows(client, url)
        assert row["intervals_pending"] == "False" and row["pass_hat_1_low"] != ""
