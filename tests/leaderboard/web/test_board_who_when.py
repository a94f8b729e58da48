"""Who and when on the boards: the model's maker, weights and dates, the harness's
maker and licence, the latest submission; the open-weights and release-date filters."""

from __future__ import annotations

import datetime as dt

import pytest

from ingestion.models import Harness
from tests.leaderboard.boards.builders import (
    agent_figures,
    agent_order,
    build_snapshot,
    make_submission,
)

pytestmark = pytest.mark.django_db

SUBMITTED = dt.datetime(2026, 11, 3, 9, 0, tzinfo=dt.UTC)


@pytest.fixture
def makers(db):
    open_model = agent_figures(
        "Quill", "2.1.0", "open-large", passes=60, model_organisation="Meta",
        open_weights=True, model_release_date=dt.date(2026, 4, 5),
        knowledge_cutoff=dt.date(2025, 12, 1), harness_organisation="Quill Labs",
        harness_open_source=True, latest_submission_at=SUBMITTED,
    )  # fmt: skip
    closed_new = agent_figures(
        "Tern", "1.0", "frontier-large", passes=80, model_organisation="Anthropic",
        open_weights=False, model_release_date=dt.date(2026, 9, 1),
    )  # fmt: skip
    old_open = agent_figures(
        "Wren", "0.3", "open-small", passes=40, open_weights=True,
        model_release_date=dt.date(2025, 1, 10),
    )  # fmt: skip
    build_snapshot({"overall": [open_model, closed_new, old_open]})


def test_it_shows_who_made_the_agent_and_when_it_was_submitted(client, makers):
    html = client.get("/boards/overall/").content.decode()
    assert (
        "Meta · open weights · released 2026-04-05 · cutoff 2025-12-01 · "
        "harness: Quill Labs open source · submitted 2026-11-03"
    ) in html
    assert "Anthropic · proprietary weights · released 2026-09-01" in html


def test_it_filters_open_weights_and_release_date_from_the_url(client, makers):
    assert agent_order(client.get("/boards/overall/").content.decode()) == ["Tern", "Quill", "Wren"]
    html = client.get("/boards/overall/?open_weights=1").content.decode()
    assert agent_order(html) == ["Quill", "Wren"]
    assert 'name="open_weights" value="1" checked' in html
    assert "open weights (of 3)" in html
    assert agent_order(
        client.get("/boards/overall/?released_after=2026-01-01").content.decode()
    ) == [
        "Tern",
        "Quill",
    ]
    both = client.get("/boards/overall/?open_weights=1&released_after=2026-01-01").content.decode()
    assert agent_order(both) == ["Quill"]
    assert 'value="2026-01-01"' in both
    # A date that is not one is no filter.
    assert (
        len(agent_order(client.get("/boards/overall/?released_after=2026-02-30").content.decode()))
        == 3
    )


def test_it_carries_the_fields_in_the_api_and_the_csv(client, makers):
    rows = client.get("/api/v1/boards/overall/").json()["entries"]
    quill = next(r for r in rows if r["harness"] == "Quill")
    assert {k: quill[k] for k in ("model_organisation", "open_weights", "model_release_date")} == {
        "model_organisation": "Meta",
        "open_weights": True,
        "model_release_date": "2026-04-05",
    }
    assert (quill["knowledge_cutoff"], quill["harness_open_source"]) == ("2025-12-01", True)
    assert quill["latest_submission_at"].startswith("2026-11-03")
    csv_text = client.get("/api/v1/boards/overall/?format=csv&open_weights=1").content.decode()
    header, *lines = csv_text.splitlines()
    assert "open_weights" in header.split(",") and "model_release_date" in header.split(",")
    assert sum("Tern" in line for line in lines) == 0


def test_it_shows_who_and_when_on_the_agent_page(client, makers, submitter):
    make_submission(submitter, Harness.objects.get(name="Quill"))
    html = client.get("/agents/Quill/2.1.0/open-large/").content.decode()
    assert '<p class="who-when">Meta · open weights · released 2026-04-05' in html
