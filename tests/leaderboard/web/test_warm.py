"""A new snapshot's most-read pages are in the cache before its first visitor asks.

A hit is told from a render by what the request reads: a cached page or API body costs
the one query that names the current snapshot (ARENA_SNAPSHOT_POLL_SECONDS is 0 in the
tests) and renders no template; a render reads the board rows.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboard.boards.current import current_boards
from leaderboard.models import Board
from leaderboard.recompute.services import boards_recompute
from leaderboard.web.warm import TAB_SWITCH, snapshot_pages_warm, warm_requests
from tests.builders import EXAMPLE_SESSIONS_BUNDLE, outcomes, submit
from tests.leaderboard.signalboard.helpers import ingest

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def page_warm(settings) -> None:
    settings.ARENA_PAGE_WARM = True


@pytest.fixture
def evidence(registry, staff) -> None:
    submit(staff, outcomes("pass", "fail", "pass", model="m-1"), harness="Alpha")
    submit(staff, outcomes("fail", "fail", "pass", model="m-2"), harness="Beta")
    ingest(staff, EXAMPLE_SESSIONS_BUNDLE)


def first_visit(client, path: str, headers: dict[str, str]):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path, headers=headers)
    assert response.status_code == 200, path
    return response, [query["sql"] for query in captured.captured_queries]


def test_it_serves_every_warmed_address_from_the_cache_on_the_first_visit_after_a_recompute(
    evidence, client, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        snapshot = boards_recompute()
    requests = warm_requests(current_boards())
    assert ("/", {}) in requests and ("/boards/overall/", TAB_SWITCH) in requests
    assert ("/api/v1/boards/overall/", {"Accept": "application/json"}) in requests
    for path, headers in requests:
        response, queries = first_visit(client, path, headers)
        assert len(queries) == 1, (path, headers, queries)  # which snapshot is current
        assert "leaderboard_board" in queries[0] or "boardsnapshot" in queries[0]
        assert not response.templates, path
        assert f'"s{snapshot.pk}-' in response["ETag"]


def test_it_is_what_a_visitor_would_have_rendered(
    evidence, client, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        boards_recompute()
    warmed = {(path, tuple(h.items())): client.get(path, headers=h).content for path, h in
              warm_requests(current_boards())}  # fmt: skip
    from django.core.cache import caches

    caches["pages"].clear()
    for (path, headers), body in warmed.items():
        assert client.get(path, headers=dict(headers)).content == body, path


def test_it_renders_on_the_first_visit_when_nothing_warmed(evidence, client) -> None:
    boards_recompute()  # the test's transaction never commits: no warm ran
    _, queries = first_visit(client, "/boards/overall/", {})
    assert any("leaderboard_boardentry" in sql for sql in queries)


def test_it_keeps_readers_on_the_old_snapshot_until_the_new_ones_pages_are_warm(
    evidence, settings, django_capture_on_commit_callbacks
) -> None:
    settings.ARENA_SNAPSHOT_POLL_SECONDS = 60
    with django_capture_on_commit_callbacks(execute=True):
        old = boards_recompute()
    assert current_boards()[0].snapshot_id == old.pk
    with django_capture_on_commit_callbacks(execute=False) as on_commit:
        new = boards_recompute()
    assert current_boards()[0].snapshot_id == old.pk  # swapped, not yet warm: held
    for callback in on_commit:
        callback()
    assert current_boards()[0].snapshot_id == new.pk


def test_it_leaves_a_superseded_snapshot_cold(evidence, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        first = boards_recompute()
        boards_recompute()
    assert snapshot_pages_warm(snapshot_id=first.pk) is None


def test_it_warms_the_pages_again_when_the_deferred_intervals_land(
    evidence, client, django_capture_on_commit_callbacks
) -> None:
    """The fill changes what the pages say (no more "intervals being computed"), so it
    warms them again: the first visit after it is a hit on the filled page."""
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        snapshot = boards_recompute(defer_intervals=True)
    assert len(callbacks) >= 2  # the swap's warm, and the fill that warms once more
    assert not Board.objects.filter(snapshot=snapshot, intervals_pending=True).exists()
    response, queries = first_visit(client, "/boards/overall/", {})
    assert len(queries) == 1 and not response.templates
    assert "Intervals being computed" not in response.content.decode()
