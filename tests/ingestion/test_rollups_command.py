"""`manage.py rollups_rebuild` puts back rollups lost or damaged, and names bad ids."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from ingestion.models import RunRollup
from tests.builders import outcomes, submit

pytestmark = pytest.mark.django_db


def test_it_rebuilds_lost_rollups_from_the_runs(registry, submitter):
    submit(submitter, outcomes("pass", "fail", "timeout"))
    before = sorted(RunRollup.objects.values_list("outcome", "runs"))
    RunRollup.objects.all().delete()
    out = io.StringIO()

    call_command("rollups_rebuild", verbosity=0, stdout=out)

    assert sorted(RunRollup.objects.values_list("outcome", "runs")) == before
    assert "1 submission(s)" in out.getvalue()


def test_it_names_a_submission_that_does_not_exist(registry):
    with pytest.raises(CommandError, match="no such submission: 999999"):
        call_command("rollups_rebuild", submission=[999999], verbosity=0)
