"""A hand-worked agent-version board: six sessions, two versions of one harness.

Every session is in one scenario with its own user (one stratum). The agent view holds
the four naming an agent: confirmed 1 of 2 (OpenHarness 1.9) and 2 of 2 (1.10), so the
pool's mean is 3/4 and, in the closed form, each version's NIR is its mean minus 3/4
(the null mean of its gap is 0), with var = n·σ²·(N − n)/(N − 1)/n² = 2·(3/16)·(2/3)/4
= 1/16: null sd 1/4. The two sessions naming no agent (both unconfirmed) are left out:
counted, they would move the pool's mean to 3/6.
"""

from __future__ import annotations

from ingestion.models import Harness
from leaderboard.models import BoardSnapshot
from tests.leaderboard.signalboard.helpers import ingest_sessions, publish, session

HARNESS = "OpenHarness"
VERSIONS = ("1.9", "1.10")  # natural order: 1.10 is the later one


def agent(version: str) -> dict:
    return {"harness": HARNESS, "version": version}


def agent_sessions() -> list[dict]:
    return [
        session("a1", confirmation="yes", agent=agent("1.9")),
        session("a2", confirmation="no", agent=agent("1.9")),
        session("b1", confirmation="yes", agent=agent("1.10")),
        session("b2", confirmation="yes", agent=agent("1.10")),
        session("n1", confirmation="no"),
        session("n2", confirmation="no"),
    ]


def publish_agent_board(user) -> BoardSnapshot:
    for version in VERSIONS:
        Harness.objects.create(name=HARNESS, version=version)
    ingest_sessions(user, agent_sessions())
    return publish()
