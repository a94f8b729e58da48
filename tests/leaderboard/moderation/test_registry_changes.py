"""Registry changes a moderator makes (ingestion.services.registry) move the boards."""

from __future__ import annotations

import pytest

from ingestion.models import Task
from ingestion.services.registry import tasks_approval_set
from tests.builders import outcomes, submit
from tests.leaderboard.moderation.helpers import current

# Transactional: each service announces on commit and Celery is eager here, so the
# current snapshot already shows a decision when the service returns.
pytestmark = pytest.mark.django_db(transaction=True)


def test_it_drops_runs_of_retired_tasks_and_brings_them_back(registry, submitter, superuser):
    submit(submitter, outcomes("pass") + outcomes("pass", task="sqlite-db-truncate"))
    assert current().runs == 2
    retired = Task.objects.filter(task_id="sqlite-db-truncate")
    assert tasks_approval_set(tasks=retired, approved=False, user=superuser) == 1
    assert current().runs == 1
    tasks_approval_set(tasks=retired, approved=True, user=superuser)
    assert current().runs == 2
