"""API tokens on the submit page (ingestion.views, ingestion.services.api_tokens): made
by an explicit POST, shown once, rotated; a GET makes nothing."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

from ingestion.models import ApiToken
from ingestion.services.api_tokens import api_key_hash
from ingestion.throttling import api_token_limiter
from tests.builders import api_key
from tests.conftest import token_client

pytestmark = pytest.mark.django_db

CREATE = "/submit/token/"
ROTATE = "/submit/token/rotate/"
KEY = re.compile(r'<code id="api-token">([0-9a-f]{40})</code>')


def logged_in(user) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def csrf_post(client: Client, url: str):
    token = client.get("/submit/").cookies["csrftoken"].value
    return client.post(url, {"csrfmiddlewaretoken": token})


def shown_key(response) -> str | None:
    match = KEY.search(response.content.decode())
    return match[1] if match else None


def api_status(key: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client.get("/api/v1/submissions/").status_code


def test_it_creates_no_token_on_a_get(submitter):
    page = logged_in(submitter).get("/submit/")
    html = page.content.decode()
    assert not ApiToken.objects.exists()
    assert "no API token yet" in html
    assert f'action="{CREATE}"' in html
    assert "Authorization: Token &lt;your-api-token&gt;" in html


def test_it_creates_a_token_on_a_post_and_shows_it_once(submitter):
    client = logged_in(submitter)
    created = csrf_post(client, CREATE)
    key = shown_key(created)
    assert created.status_code == 200
    # Only the key's hash is stored.
    assert ApiToken.objects.get(user=submitter).key_hash == api_key_hash(key)
    assert not ApiToken.objects.filter(key_hash=key).exists()
    assert f'Authorization: Token {key}"' in created.content.decode()
    assert "no-store" in created["Cache-Control"]
    assert api_status(key) == 200

    again = client.get("/submit/")
    html = again.content.decode()
    assert key not in html and shown_key(again) is None
    assert "has an API token" in html
    assert f'action="{ROTATE}"' in html
    assert "&lt;your-api-token&gt;" in html


def test_it_does_not_show_an_existing_token_on_a_second_create(submitter):
    key = api_key(submitter)
    client = logged_in(submitter)
    response = csrf_post(client, CREATE)
    assert response.status_code == 302 and response.url == "/submit/"
    page = client.get("/submit/").content.decode()
    assert "rotate it to get a new key" in page
    assert key not in page
    assert api_status(key) == 200


def test_it_rotates_the_token_and_the_old_key_stops_working(submitter, other_submitter):
    old = api_key(submitter)
    others = token_client(other_submitter)
    client = logged_in(submitter)
    rotated = csrf_post(client, ROTATE)
    new = shown_key(rotated)
    assert new is not None and new != old
    assert api_status(old) == 401
    assert api_status(new) == 200
    assert shown_key(client.get("/submit/")) is None
    assert others.get("/api/v1/submissions/").status_code == 200


def test_it_refuses_a_token_post_without_the_csrf_token(submitter):
    response = logged_in(submitter).post(CREATE)
    assert response.status_code == 403
    assert not ApiToken.objects.exists()


def test_it_sends_a_visitor_to_log_in_and_refuses_a_get(client, submitter):
    response = client.post(CREATE)
    assert response.status_code == 302 and response.url.startswith("/accounts/login/")
    assert logged_in(submitter).get(CREATE).status_code == 405
    assert not ApiToken.objects.exists()


def test_it_limits_how_often_an_account_changes_its_token(submitter, other_submitter):
    client = logged_in(submitter)
    limit = api_token_limiter().rate.limit
    for _ in range(limit):
        assert csrf_post(client, ROTATE).status_code == 200
    kept = ApiToken.objects.get(user=submitter).key_hash
    refused = csrf_post(client, ROTATE)
    assert refused.status_code == 429
    assert "Too many token changes" in refused.content.decode()
    assert shown_key(refused) is None
    assert ApiToken.objects.get(user=submitter).key_hash == kept
    assert csrf_post(logged_in(other_submitter), CREATE).status_code == 200


def test_it_hashes_the_tokens_kept_in_plaintext_before_and_they_keep_working(submitter):
    import importlib

    from django.db import connection

    migration = importlib.import_module("ingestion.migrations.0027_dry_runs_and_hashed_api_tokens")
    legacy = "0123456789abcdef0123456789abcdef01234567"
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY,"
            " created timestamptz NOT NULL, user_id integer NOT NULL)"
        )
        cursor.execute("INSERT INTO authtoken_token VALUES (%s, now(), %s)", [legacy, submitter.pk])

    with connection.schema_editor() as editor:
        migration.legacy_tokens_hash(None, editor)

    assert api_status(legacy) == 200
    assert ApiToken.objects.get(user=submitter).key_hash == api_key_hash(legacy)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM authtoken_token")
        assert cursor.fetchone() == (0,)  # no key left in the database
