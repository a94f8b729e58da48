"""Every change of evidence announces itself once, recorded with the change, and the
boards follow once it commits.

Transactional tests: the recompute waits for the commit, and Celery is eager here, so
the current snapshot already shows a change when the request or command returns.
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import transaction
from django.test import Client
from django.urls import reverse

from ingestion.evidence import evidence_changed, evidence_changed_announce
from ingestion.models import Session, Submission, Turn
from ingestion.services.intake import submission_ingest
from ingestion.services.registry import DEFAULT_REGISTRY_PATH
from leaderboard.models import BoardEntry, BoardSnapshot
from tests.builders import EXAMPLE_SESSIONS_BUNDLE, outcomes, submit

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def heard():
    """Every announcement heard, as (harness_ids, sessions)."""
    calls: list[tuple] = []

    def listener(sender, *, harness_ids, sessions, **kwargs):
        calls.append((harness_ids, sessions))

    evidence_changed.connect(listener, dispatch_uid="test-listener")
    yield calls
    evidence_changed.disconnect(dispatch_uid="test-listener")


@pytest.fixture
def admin_client(db) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", password="pw"))
    return client


def test_it_records_the_announcement_with_the_change_and_recomputes_on_commit(registry, heard):
    from leaderboard.models import RecomputeRequest

    before = BoardSnapshot.objects.current().pk
    with transaction.atomic():
        evidence_changed_announce(sender="test", harness_ids=[3, None, 1, 3], sessions=True)
        assert heard == [([1, 3], True)]  # heard inside the transaction...
        request = RecomputeRequest.objects.get()  # ...and recorded in it
        assert (request.harness_ids, request.sessions) == ([1, 3], True)
        assert BoardSnapshot.objects.current().pk == before  # the worker waits for the commit
    assert BoardSnapshot.objects.current().pk != before
    assert not RecomputeRequest.objects.exists()  # the recompute took the request


def test_it_leaves_no_request_behind_a_rolled_back_change(registry, heard):
    from leaderboard.models import RecomputeRequest

    before = BoardSnapshot.objects.current().pk
    with pytest.raises(RuntimeError), transaction.atomic():
        evidence_changed_announce(sender="test")
        raise RuntimeError("rolled back")
    assert heard == [(None, False)]
    assert not RecomputeRequest.objects.exists()
    assert BoardSnapshot.objects.current().pk == before


def test_it_announces_an_ingest_with_its_harness_and_sessions(registry, staff, heard):
    submission = submit(staff, outcomes("pass"))
    sessions, _ = submission_ingest(upload=EXAMPLE_SESSIONS_BUNDLE, user=staff)
    assert heard[-2:] == [([submission.harness_id], False), ([], True)]
    assert sessions.status == Submission.Status.INGESTED


def test_it_takes_a_deleted_sessions_submission_off_the_signal_board(registry, staff, admin_client):
    sessions, _ = submission_ingest(upload=EXAMPLE_SESSIONS_BUNDLE, user=staff)
    assert BoardSnapshot.objects.current().sessions_total == 300
    url = reverse("admin:ingestion_submission_delete", args=[sessions.pk])
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    assert not Session.objects.exists()
    assert BoardSnapshot.objects.current().sessions_total == 0
    assert admin_client.get("/api/v1/signals/").json()["entries"] == []


def test_it_recomputes_when_an_admin_deletes_a_session_or_edits_a_turn(
    registry, staff, admin_client
):
    submission_ingest(upload=EXAMPLE_SESSIONS_BUNDLE, user=staff)
    session = Session.objects.order_by("pk").first()
    url = reverse("admin:ingestion_session_delete", args=[session.pk])
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    assert BoardSnapshot.objects.current().sessions_total == 299

    before = BoardSnapshot.objects.current().pk
    turn = Turn.objects.filter(role="user").order_by("pk").first()
    url = reverse("admin:ingestion_turn_change", args=[turn.pk])
    form = {
        "session": turn.session_id, "position": turn.position, "role": turn.role,
        "text": turn.text, "labels": "complaint", "label_source": "bundle", "extra": "{}",
        "calls-TOTAL_FORMS": 0, "calls-INITIAL_FORMS": 0,
    }  # fmt: skip
    response = admin_client.post(url, form)
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert BoardSnapshot.objects.current().pk != before


def test_it_recomputes_after_load_registry_so_no_stale_entry_is_carried(registry, staff, tmp_path):
    submit(staff, outcomes("pass") + outcomes("pass", task="sqlite-db-truncate"), harness="A")
    assert entry("A").runs == 2
    data = json.loads(DEFAULT_REGISTRY_PATH.read_text())
    for suite in data["suites"]:
        for task in suite["tasks"]:
            if task["task_id"] == "sqlite-db-truncate":
                task["approved"] = False
    retired = tmp_path / "registry.json"
    retired.write_text(json.dumps(data))

    call_command("load_registry", str(retired))
    assert entry("A").runs == 1
    # A later ingest of another harness recomputes incrementally: A must stay right.
    submit(staff, outcomes("fail"), harness="B")
    assert (entry("A").runs, entry("B").runs) == (1, 1)


def entry(harness: str) -> BoardEntry:
    return BoardEntry.objects.get(
        board__snapshot__is_current=True, board__slug="overall", harness_name=harness
    )
