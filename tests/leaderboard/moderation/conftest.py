"""Personas and the moderator group for the moderation tests."""

from __future__ import annotations

import pytest

from leaderboard.moderation.accounts import moderator_group_sync


@pytest.fixture(autouse=True)
def moderator_group(db):
    """The group migration 0004 creates; a flush between transactional tests drops it."""
    return moderator_group_sync()


@pytest.fixture
def superuser(db):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_superuser("root", password="pw-root")
