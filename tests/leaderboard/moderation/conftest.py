"""Every moderation test runs with the moderator group in place (tests/conftest.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _moderator_group(moderator_group):
    return moderator_group
