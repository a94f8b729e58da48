"""The public read path reads from a real streaming replica, unless it lags behind.

Every test here runs against a primary and a hot standby of its own (conftest.py), so
what it proves holds for real replication: the standby refuses writes, and pausing its
replay makes it lag for real.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import pytest
from django.db import connections
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from arena.testing import replica
from ingestion.services.intake import submission_ingest
from ingestion.services.registry import DEFAULT_REGISTRY_PATH, registry_load, registry_read
from tests.builders import api_key, harness_manifest, run_line, tar_gz_bundle
from tests.conftest import make_user

pytestmark = pytest.mark.slow  # a cluster of its own: about 10 s to set up


@pytest.fixture
def pair(replica_pair_connections):
    registry_load(data=registry_read(DEFAULT_REGISTRY_PATH))
    return replica_pair_connections


@pytest.fixture
def publisher(pair):
    # The pair's database lives for the whole session: a fresh account per test.
    return make_user(f"publisher-{uuid.uuid4().hex[:12]}")


def publish(user, harness: str) -> None:
    """Ingest one run of a new harness; the boards are recomputed on commit."""
    bundle = tar_gz_bundle(harness_manifest(harness), [run_line(f"{harness}-1")])
    submission, _ = submission_ingest(upload=bundle, user=user)
    assert submission.status == "ingested"


@contextmanager
def captured() -> Iterator[dict[str, CaptureQueriesContext]]:
    with ExitStack() as stack:
        yield {
            alias: stack.enter_context(CaptureQueriesContext(connections[alias]))
            for alias in ("default", "replica_0")
        }


def tables(capture: CaptureQueriesContext) -> str:
    return " ".join(query["sql"] for query in capture.captured_queries)


def test_it_reads_a_board_page_and_the_board_api_from_the_replica(pair, publisher):
    publish(publisher, "ReplicaAlpha")
    pair.caught_up()
    with captured() as queries:
        page = Client().get("/boards/overall/")
        api = Client().get("/api/v1/boards/overall/")
    assert page.status_code == 200 and "ReplicaAlpha" in page.content.decode()
    assert "ReplicaAlpha" in {entry["harness"] for entry in api.json()["entries"]}
    assert "leaderboard_boardentry" in tables(queries["replica_0"])
    # The primary was asked only which snapshot is current.
    assert "leaderboard_boardentry" not in tables(queries["default"])
    assert {"leaderboard_boardsnapshot"} >= _tables_of(queries["default"])
    with connections["replica_0"].cursor() as cursor:  # and replica_0 is the standby
        cursor.execute("SELECT pg_is_in_recovery()")
        assert cursor.fetchone() == (True,)


def test_it_sends_an_upload_to_the_primary(pair, publisher):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_key(publisher)}")
    bundle = {"manifest": harness_manifest("ReplicaUpload"), "runs": [run_line("u-1")]}
    with captured() as queries:
        response = client.post(
            "/api/v1/submissions/", data=json.dumps(bundle), content_type="application/json"
        )
    assert response.status_code == 202, response.content[:300]
    assert queries["replica_0"].captured_queries == []
    assert "INSERT" in tables(queries["default"])


def test_it_reads_from_the_primary_while_the_replica_lags_behind(pair, publisher):
    publish(publisher, "ReplicaBefore")
    pair.caught_up()
    Client().get("/boards/overall/")  # cached for the snapshot the replica has
    replica.pause_replay(pair.standby)
    try:
        publish(publisher, "ReplicaAfter")  # a new snapshot the standby has not replayed
        with captured() as queries:
            page = Client().get("/boards/overall/")
            api = Client().get("/api/v1/boards/overall/")
    finally:
        replica.resume_replay(pair.standby)
    assert "ReplicaAfter" in page.content.decode()
    assert "ReplicaAfter" in {entry["harness"] for entry in api.json()["entries"]}
    assert "leaderboard_boardentry" in tables(queries["default"])
    # The standby was only asked whether it has the current snapshot (it had not).
    assert _tables_of(queries["replica_0"]) == {"leaderboard_boardsnapshot"}
    pair.caught_up()
    with captured() as again:
        Client().get("/boards/overall/?sort=-n")  # a page not rendered yet
    assert "leaderboard_boardentry" in tables(again["replica_0"])


def test_it_keeps_logged_in_users_on_the_primary(pair, publisher):
    publish(publisher, "ReplicaLoggedIn")
    pair.caught_up()
    client = Client()
    client.force_login(publisher)
    with captured() as queries:
        page = client.get("/boards/overall/")
    assert "ReplicaLoggedIn" in page.content.decode()
    assert queries["replica_0"].captured_queries == []


def _tables_of(capture: CaptureQueriesContext) -> set[str]:
    return {
        match
        for query in capture.captured_queries
        for match in re.findall(r'FROM "(\w+)"', query["sql"])
    }
