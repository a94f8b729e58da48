"""`manage.py api_token`: a key printed once, its hash stored, and it authenticates."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from ingestion.models import ApiToken
from ingestion.services.api_tokens import api_key_hash

pytestmark = pytest.mark.django_db


def test_it_prints_a_key_that_authenticates_and_stores_only_its_hash(client, submitter):
    out = io.StringIO()
    call_command("api_token", submitter.username, stdout=out)
    key = out.getvalue().strip()
    assert ApiToken.objects.get(user=submitter).key_hash == api_key_hash(key)
    response = client.get("/api/v1/submissions/", headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 200


def test_it_replaces_the_accounts_old_key(submitter):
    first, second = io.StringIO(), io.StringIO()
    call_command("api_token", submitter.username, stdout=first)
    call_command("api_token", submitter.username, stdout=second)
    assert first.getvalue() != second.getvalue()
    assert ApiToken.objects.filter(user=submitter).count() == 1


def test_it_refuses_an_unknown_account():
    with pytest.raises(CommandError, match="no such account"):
        call_command("api_token", "nobody-here")
