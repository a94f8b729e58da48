"""Replica settings and routing without a real replica: mirrors, outages, who is routed.

The routing against a real streaming replica is in test_replicas.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connections
from django.test import RequestFactory
from django.urls import resolve

from arena.db_routers import ReadReplicaRouter, is_read_path
from arena.testing.replica import free_port
from ingestion.services.intake import submission_ingest
from leaderboard.models import BoardSnapshot
from tests.builders import harness_manifest, run_line, tar_gz_bundle

ROOT = Path(__file__).resolve().parents[2]


def replica_settings(urls: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DATABASE_URL": "postgres://x@127.0.0.1/x", "DATABASE_REPLICA_URLS": urls}
    code = (
        "import arena.settings as s; "
        "print(s.ARENA_REPLICA_ALIASES, [s.DATABASES[a]['PORT'] for a in s.ARENA_REPLICA_ALIASES],"
        " {s.DATABASES[a]['TEST']['MIRROR'] for a in s.ARENA_REPLICA_ALIASES})"
    )
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )


def test_it_makes_an_alias_mirroring_default_of_each_replica_url():
    result = replica_settings(
        "postgres://r@10.0.0.1:5433/arena, postgresql://r@10.0.0.2:5434/arena"
    )
    assert result.stdout.strip() == "['replica_0', 'replica_1'] [5433, 5434] {'default'}"


@pytest.mark.parametrize("urls", ["mysql://r@h/arena", "postgres://r@h:5433/", "postgres://a/x,,"])
def test_it_refuses_a_bad_replica_url(urls):
    result = replica_settings(urls)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and "DATABASE_REPLICA_URLS" in result.stderr


def request_for(path: str, *, method: str = "get", user=None):
    request = getattr(RequestFactory(), method)(path)
    request.resolver_match = resolve(path)
    request.user = user or AnonymousUser()
    return request


@pytest.mark.parametrize(
    ("path", "method", "expected"),
    [
        ("/", "get", True),
        ("/boards/overall/", "head", True),
        ("/api/v1/boards/overall/", "get", True),
        ("/runs/1/", "get", True),
        ("/signals/", "get", True),
        ("/boards/overall/", "post", False),
        ("/submit/", "get", False),
        ("/api/v1/submissions/", "get", False),
        ("/healthz/", "get", False),
    ],
)
def test_it_marks_only_anonymous_reads_of_the_public_pages(settings, path, method, expected):
    settings.ARENA_REPLICA_ALIASES = ["replica_0"]
    assert is_read_path(request_for(path, method=method)) is expected


def test_it_keeps_a_logged_in_user_and_a_deployment_without_replicas_on_the_primary(
    settings, django_user_model
):
    settings.ARENA_REPLICA_ALIASES = ["replica_0"]
    user = django_user_model(username="someone")
    assert not is_read_path(request_for("/boards/overall/", user=user))
    settings.ARENA_REPLICA_ALIASES = []
    assert not is_read_path(request_for("/boards/overall/"))


def test_it_writes_and_migrates_only_on_the_primary(settings):
    settings.ARENA_REPLICA_ALIASES = ["replica_0"]
    router = ReadReplicaRouter()
    assert router.db_for_write(BoardSnapshot) == "default"
    assert router.db_for_read(BoardSnapshot) == "default"  # outside a read-path request
    assert router.allow_migrate("default", "leaderboard") is True
    assert router.allow_migrate("replica_0", "leaderboard") is False


@pytest.fixture
def extra_replica(settings):
    """A "replica_0" connection; the test chooses what it points at."""
    settings.ARENA_REPLICA_ALIASES = ["replica_0"]
    backend = type(connections["default"])

    def point(settings_dict: dict) -> None:
        connections["replica_0"] = backend(settings_dict, "replica_0")

    yield point
    connections["replica_0"].close()
    delattr(connections._connections, "replica_0")


def publish(user, harness: str) -> None:
    bundle = tar_gz_bundle(harness_manifest(harness), [run_line(f"{harness}-1")])
    submission_ingest(upload=bundle, user=user)


@pytest.mark.django_db(transaction=True)
def test_it_treats_a_test_mirror_as_the_primary_at_no_extra_query(
    registry, submitter, client, extra_replica, django_assert_num_queries
):
    extra_replica(connections["default"].settings_dict)  # what TEST MIRROR does
    publish(submitter, "Mirrored")
    assert "Mirrored" in client.get("/boards/overall/").content.decode()
    with django_assert_num_queries(1):  # as without replicas (test_snapshot_cache.py)
        client.get("/boards/overall/")


@pytest.mark.django_db(transaction=True)
def test_it_reads_from_the_primary_when_the_replica_is_down(
    registry, submitter, client, extra_replica
):
    down = {**connections["default"].settings_dict, "PORT": free_port()}
    down["OPTIONS"] = {**down["OPTIONS"], "connect_timeout": 1}
    extra_replica(down)
    publish(submitter, "Outage")
    page = client.get("/boards/overall/")
    assert page.status_code == 200 and "Outage" in page.content.decode()
