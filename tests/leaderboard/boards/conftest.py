"""Fixtures of the board page tests."""

from __future__ import annotations

import pytest

from leaderboard.models import BoardSnapshot
from tests.leaderboard.boards.builders import build_snapshot, standard_boards


@pytest.fixture
def boards(db) -> BoardSnapshot:
    return build_snapshot(standard_boards())
