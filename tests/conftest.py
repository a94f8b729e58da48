"""Shared fixtures: personas, the loaded registry, and bundle paths.

Every test that touches the database runs against PostgreSQL (DATABASE_URL, or the
embedded server under var/). Celery runs eagerly here unless a test starts a worker.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from arena.celery import app as celery_app

DATA_DIR = Path(__file__).resolve().parent / "data"
BUNDLES_DIR = DATA_DIR / "bundles"
INVALID_DIR = DATA_DIR / "invalid"


# Fixtures that open the test database; a test that asks for none of them (directly or
# through other fixtures) and carries no django_db mark cannot reach it.
DATABASE_FIXTURES = frozenset(
    {"db", "transactional_db", "django_db_reset_sequences", "live_server"}
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that commits real transactions `slow` (`-m "not slow"` skips
    them), and every quick one that needs no database `pure` (`-m pure` runs them in
    seconds)."""
    for item in items:
        fixtures = set(item.fixturenames)
        marker = item.get_closest_marker("django_db")
        if _transactional(marker, fixtures):
            item.add_marker(pytest.mark.slow)
        elif (
            marker is None
            and not fixtures & DATABASE_FIXTURES
            and not item.get_closest_marker("slow")
        ):
            item.add_marker(pytest.mark.pure)


def _transactional(marker: pytest.Mark | None, fixtures: set[str]) -> bool:
    if "transactional_db" in fixtures or "live_server" in fixtures:
        return True
    if marker is None:
        return False
    return bool(marker.kwargs.get("transaction", marker.args[0] if marker.args else False))


@pytest.fixture(autouse=True)
def eager_celery(settings, tmp_path):
    """Tasks run in-process, uploads go to a per-test folder, the cache starts empty."""
    from django.core.cache import cache, caches

    caches["pages"].clear()
    # The default cache is a database table (or Redis): a test without database
    # access cannot reach it, and cannot have put anything in it either.
    with contextlib.suppress(RuntimeError):
        cache.clear()
    # Every persona has a password: the production hasher's deliberate slowness (about
    # a second each on CI's cores) would be most of the suite's time, and no test is
    # about hashing strength.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.ARENA_UPLOAD_DIR = tmp_path / "uploads"
    settings.ARENA_RECOMPUTE_DEBOUNCE_S = 0
    settings.ARENA_SNAPSHOT_POLL_SECONDS = 0  # tests read each new snapshot at once
    # Eager, every recompute would render a score of pages in the test's own process;
    # the warm's tests (tests/leaderboard/web/test_warm.py) turn it on.
    settings.ARENA_PAGE_WARM = False
    # The app reads Django settings through the CELERY_ namespace, so overrides must
    # use the namespaced keys (conf.task_always_eager = ... would be shadowed).
    previous = celery_app.conf.CELERY_TASK_ALWAYS_EAGER
    celery_app.conf.CELERY_TASK_ALWAYS_EAGER = True
    yield
    celery_app.conf.CELERY_TASK_ALWAYS_EAGER = previous


@pytest.fixture
def registry(db):
    from ingestion.services.registry import DEFAULT_REGISTRY_PATH, registry_load, registry_read

    # The suites and tasks only: a test that is about models lists the ones it needs
    # (registry_builders), so the demo models of the file never join its counts.
    data = registry_read(DEFAULT_REGISTRY_PATH)
    data.pop("models", None)
    return registry_load(data=data)


def make_user(username: str, *, trusted: bool = True, **extra):
    """An account; trusted (in the "trusted submitter" group) unless told otherwise, so
    that its uploads publish at once as they did before review existed."""
    from ingestion.services.trust import trusted_group

    user = get_user_model().objects.create_user(
        username=username, password="pw-" + username, **extra
    )
    if trusted:
        user.groups.add(trusted_group())
    return user


@pytest.fixture
def submitter(db):
    return make_user("submitter")


@pytest.fixture
def newcomer(db):
    """A fresh account nobody has trusted yet: its uploads wait for review."""
    return make_user("newcomer", trusted=False)


@pytest.fixture
def other_submitter(db):
    return make_user("other")


# Harness ownership personas: the first publisher of a name, an account its manifest
# names as maintainer, and any other submitter.
@pytest.fixture
def owner(db):
    return make_user("owner")


@pytest.fixture
def maintainer(db):
    return make_user("maintainer")


@pytest.fixture
def rival(db):
    return make_user("rival")


@pytest.fixture
def staff(db):
    return make_user("staff", is_staff=True)


@pytest.fixture
def superuser(db):
    return get_user_model().objects.create_superuser("root", password="pw-root")


@pytest.fixture
def moderator_group(db):
    """The group migration 0004 creates; a flush between transactional tests drops it."""
    from leaderboard.moderation.accounts import moderator_group_sync

    return moderator_group_sync()


@pytest.fixture
def moderator(moderator_group):
    user = make_user("moderator", is_staff=True)
    user.groups.add(moderator_group)
    return user


def token_client(user) -> APIClient:
    from tests.builders import api_key

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_key(user)}")
    return client


@pytest.fixture
def submitter_api(submitter) -> APIClient:
    return token_client(submitter)


@pytest.fixture
def staff_api(staff) -> APIClient:
    return token_client(staff)
