"""Board pages and the board API reuse their rendering until the snapshot changes."""

from __future__ import annotations

import pytest

from ingestion.services.intake import submission_ingest
from leaderboard.recompute.services import boards_recompute
from tests.builders import harness_manifest, run_line, tar_gz_bundle

pytestmark = pytest.mark.django_db(transaction=True)


def ingest(user, harness: str) -> None:
    bundle = tar_gz_bundle(harness_manifest(harness), [run_line(f"{harness}-1")])
    submission, _ = submission_ingest(upload=bundle, user=user)
    assert submission.status == "ingested"


def test_it_serves_a_repeat_visit_from_one_query(
    registry, submitter, client, django_assert_num_queries
):
    ingest(submitter, "First")
    assert "First" in client.get("/boards/overall/").content.decode()
    with django_assert_num_queries(1):  # which snapshot is current; the page is reused
        # (with ARENA_SNAPSHOT_POLL_SECONDS > 0, not even that query under load)
        repeat = client.get("/boards/overall/")
    assert "First" in repeat.content.decode()


def test_it_shows_the_new_snapshot_as_soon_as_it_is_current(registry, submitter, client):
    ingest(submitter, "First")
    client.get("/boards/overall/")
    client.get("/api/v1/boards/overall/")
    ingest(submitter, "Second")  # recomputed on commit (eager Celery)
    assert "Second" in client.get("/boards/overall/").content.decode()
    harnesses = {e["harness"] for e in client.get("/api/v1/boards/overall/").json()["entries"]}
    assert harnesses == {"First", "Second"}


def test_it_keeps_separate_pages_per_query_and_partial(registry, submitter, client):
    ingest(submitter, "Alpha")
    ingest(submitter, "Beta")
    boards_recompute()
    filtered = client.get("/boards/overall/?harness=Alpha").content.decode()
    partial = client.get("/boards/overall/", headers={"HX-Request": "true"}).content.decode()
    full = client.get("/boards/overall/").content.decode()
    assert "Beta" not in filtered.split('id="board-table"')[1]
    assert "<html" not in partial and "<html" in full


def test_it_renders_fresh_pages_for_logged_in_users(registry, submitter, client):
    ingest(submitter, "First")
    client.force_login(submitter)
    page = client.get("/boards/overall/").content.decode()
    assert submitter.username in page  # the nav names the account: never shared
    assert "X-CSRFToken" in page
