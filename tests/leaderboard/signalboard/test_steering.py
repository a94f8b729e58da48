"""Finer steering on the signal board: turns to recover beside the steering effort, and
bash recovery fixed before and after the user's next words, each session scored once
(its SessionScore row) and published in the API, its CSV and the page's tooltips."""

from __future__ import annotations

import csv
import io

import pytest

from leaderboard.methodology.session_scores import score_sessions
from leaderboard.models import SessionScore
from tests.leaderboard.signalboard.helpers import (
    API,
    EXACT,
    ingest_sessions,
    publish,
    session,
)


def said(text: str, label: str | None = None) -> dict:
    return {"role": "user", "text": text, "label": label}


def ran(*calls: tuple[str, int]) -> dict:
    return {
        "role": "assistant",
        "text": "Done.",
        "tool_calls": [
            {"tool": "bash", "arguments": {"command": command}, "exit_code": code}
            for command, code in calls
        ],
    }


# Worked by hand:
# * s-1: make fails in the first turn; the user corrects it ("use -j1"), and again; the
#   third turn holds. Corrections recovered in 2 and 1 turns; make fixed in the second
#   turn, after the user's words.
# * s-2: pytest fails and is fixed in the same turn (on its own); the user's correction
#   ends the session: open.
# * s-3: one correction, the next turn holds: 1 turn; no shell error.
SESSIONS = [
    session("s-1", turns=[
        said("Build it."), ran(("make", 2)), said("No, use -j1.", "correction"),
        ran(("make -j1", 0)), said("No, in the build folder.", "correction"), ran(),
        said("Great, thanks!", "praise"),
    ]),
    session("s-2", turns=[
        said("Test it."), ran(("pytest", 1), ("pytest -x", 0)),
        said("No, only the unit tests.", "correction"),
    ]),
    session("s-3", turns=[
        said("Lint it."), ran(("ruff check .", 0)), said("No, fix them too.", "correction"),
        ran(("ruff check --fix .", 0)),
    ]),
]  # fmt: skip


@pytest.fixture
def published(registry, staff):
    ingest_sessions(staff, SESSIONS)
    return publish()


@pytest.mark.django_db
def test_it_stores_each_sessions_turns_to_recover_and_bash_split_once(published):
    rows = SessionScore.objects.order_by("session__session_id").values_list(
        "recovery_turns",
        "corrections_recovered",
        "corrections_open",
        "episodes",
        "episodes_unaided",
    )
    assert list(rows) == [(3, 2, 0, 1, 0), (0, 0, 1, 1, 1), (1, 1, 0, 0, 0)]


@pytest.mark.django_db
def test_it_publishes_turns_to_recover_and_the_split_in_the_api(client, published):
    entry = client.get(API, HTTP_ACCEPT="application/json").json()["entries"][0]
    steer, bash = entry["steerability"], entry["bash_recovery"]
    # Recovered in 2, 1 and 1 turns: 4/3 over 3 corrections, one left open.
    assert steer["turns_to_recover"] == pytest.approx(4 / 3, **EXACT)
    assert (steer["corrections"], steer["corrections_open"]) == (3, 1)
    assert (bash["episodes"], bash["autonomous"], bash["after_user"]) == (2, 1, 1)
    assert (bash["autonomous_rate"], bash["after_user_rate"]) == (0.5, 0.5)
    # Every figure is the methodology's on the same sessions.
    expected = score_sessions(SESSIONS)["tiny-model"]
    for signal in ("steerability", "bash_recovery"):
        for name, value in expected[signal].items():
            assert entry[signal][name] == pytest.approx(value, **EXACT), (signal, name)


@pytest.mark.django_db
def test_it_publishes_them_in_the_csv_and_the_tooltips(client, published):
    body = client.get(API, {"format": "csv"}).content.decode()
    row = next(csv.DictReader(io.StringIO(body)))
    assert float(row["steerability.turns_to_recover"]) == pytest.approx(4 / 3)
    assert (row["steerability.corrections"], row["steerability.corrections_open"]) == ("3", "1")
    assert (row["bash_recovery.autonomous"], row["bash_recovery.after_user"]) == ("1", "1")
    assert float(row["bash_recovery.autonomous_rate_low"]) < 0.5
    page = client.get("/signals/").content.decode()
    assert "1.33 turns to recover" in page
    assert "50.0% fixed before the user&#x27;s next words" in page
