"""The recovery rate's interval in the signal API, its CSV and the page's tooltip."""

from __future__ import annotations

import pytest

from tests.leaderboard.signalboard.helpers import API


@pytest.mark.django_db
def test_it_publishes_the_recovery_rate_with_its_interval(client, reference):
    entries = client.get(API, HTTP_ACCEPT="application/json").json()["entries"]
    recovery = [e["bash_recovery"] for e in entries if e["bash_recovery"]["episodes"] > 1]
    assert recovery
    for figure in recovery:
        assert (
            figure["recovery_rate_low"] <= figure["recovery_rate"] <= figure["recovery_rate_high"]
        )
        assert figure["recovery_rate_low"] >= 0 and figure["recovery_rate_high"] <= 1
    csv = client.get(API, {"format": "csv"}).content.decode()
    assert "bash_recovery.recovery_rate_low,bash_recovery.recovery_rate_high" in csv
    page = client.get("/signals/").content.decode()
    assert "recovered (95% CI" in page
