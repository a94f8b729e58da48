"""Fixtures of the signal board tests."""

from __future__ import annotations

import pytest

from leaderboard.models import BoardSnapshot
from tests.builders import EXAMPLE_SESSIONS_BUNDLE
from tests.leaderboard.signalboard.helpers import ingest, publish


@pytest.fixture
def reference(registry, staff) -> BoardSnapshot:
    ingest(staff, EXAMPLE_SESSIONS_BUNDLE)
    return publish()
