"""The bash recovery rate's interval (resolved / episodes, cluster-robust by session)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from leaderboard.methodology.session_scores import score_sessions
from leaderboard.methodology.stats import Z
from tests.leaderboard.methodology.session_builders import assistant, session, sh


def test_it_gives_the_recovery_rate_a_cluster_robust_interval_by_hand() -> None:
    sessions = [
        session(assistant(sh("make", 1), sh("make", 0))),  # 1 episode, resolved
        session(assistant(sh("a", 1), sh("b", 0), sh("a", 0), sh("c", 1))),  # 2, 1 resolved
        session(assistant(sh("x", 1), sh("y", 1), sh("x", 0), sh("y", 0))),  # 2, 2 resolved
        session(assistant(sh("ls", 0))),  # no episode: a cluster with y = m = 0
    ]
    entry = score_sessions(sessions)["m"]["bash_recovery"]
    # y = resolved (1, 1, 2, 0), m = episodes (1, 2, 2, 0): R = 4/5.
    y, m = np.array([1, 1, 2, 0]), np.array([1, 2, 2, 0])
    r = 4 / 5
    variance = 4 / 3 * float(((y - r * m) ** 2).sum()) / 5**2
    half = Z * math.sqrt(variance)
    assert entry["recovery_rate"] == pytest.approx(r)
    assert (entry["recovery_rate_low"], entry["recovery_rate_high"]) == pytest.approx(
        (r - half, min(1.0, r + half))
    )


def test_it_keeps_the_recovery_rate_interval_inside_zero_and_one() -> None:
    sessions = [session(assistant(sh("make", 1), sh("make", 0))) for _ in range(3)]
    sessions.append(session(assistant(sh("a", 1), sh("b", 0), sh("a", 0))))
    entry = score_sessions(sessions)["m"]["bash_recovery"]
    # Every episode resolved: the formula's interval is [1, 1]; never above 1.
    assert (entry["recovery_rate_low"], entry["recovery_rate_high"]) == (1.0, 1.0)


def test_it_gives_one_session_no_recovery_rate_interval() -> None:
    entry = score_sessions([session(assistant(sh("make", 1), sh("make", 0)))])["m"]
    assert entry["bash_recovery"]["recovery_rate"] == 1.0
    low, high = (
        entry["bash_recovery"]["recovery_rate_low"],
        entry["bash_recovery"]["recovery_rate_high"],
    )
    assert (low, high) == (None, None)
