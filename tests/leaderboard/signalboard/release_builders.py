"""Two versions of one harness with enough sessions for the release gate, hand-checked.

Every session is in one scenario with its own user (one stratum of the NIR's shuffles),
so each version's NIR is its confirmed share minus the pool's μ, with the closed-form
null sd sqrt(σ²·(N − n)/((N − 1)·n)), σ² = μ(1 − μ) over the N sessions of both
versions; the NIR difference is the difference of the two shares, its sd the root sum
of squares of the two sds.
"""

from __future__ import annotations

import math

from ingestion.models import Harness
from leaderboard.methodology.stats import Z
from leaderboard.models import BoardSnapshot
from tests.leaderboard.signalboard.helpers import ingest_sessions, publish, session

HARNESS = "GateHarness"
BEFORE, AFTER = "2.0", "2.1"


def version_sessions(version: str, confirmed: int, total: int) -> list[dict]:
    agent = {"harness": HARNESS, "version": version}
    return [
        session(f"{version}-{i}", confirmation="yes" if i < confirmed else "no", agent=agent)
        for i in range(total)
    ]


def publish_release(user, before: tuple[int, int], after: tuple[int, int]) -> BoardSnapshot:
    """(confirmed, sessions) of each version, ingested and published."""
    for version in (BEFORE, AFTER):
        Harness.objects.create(name=HARNESS, version=version)
    ingest_sessions(user, version_sessions(BEFORE, *before) + version_sessions(AFTER, *after))
    return publish()


def nir_difference_interval(
    before: tuple[int, int], after: tuple[int, int]
) -> tuple[float, float, float]:
    """(after − before, low, high) of the NIR difference, by the closed form above."""
    n_all = before[1] + after[1]
    mu = (before[0] + after[0]) / n_all
    variance = mu * (1 - mu)

    def null_sd(n: int) -> float:
        return math.sqrt(variance * (n_all - n) / ((n_all - 1) * n))

    value = after[0] / after[1] - before[0] / before[1]
    sd = math.hypot(null_sd(before[1]), null_sd(after[1]))
    return value, value - Z * sd, value + Z * sd
