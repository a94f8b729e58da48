"""Abuse controls: bodies refused before they are read, one upload limit for the API and
the form shared by every process, login throttling, no-store on secrets, and CSP."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.settings import api_settings
from rest_framework.throttling import ScopedRateThrottle

from arena.embedded_db import database_url_of
from ingestion.models import Submission
from tests.accounts.builders import account_with_password, with_email
from tests.builders import harness_manifest, run_line, tar_gz_bundle
from tests.conftest import token_client

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "correct horse battery staple"


@pytest.fixture
def two_uploads_an_hour(settings):
    rates_before = ScopedRateThrottle.THROTTLE_RATES  # a class attribute: restored below
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"uploads": "2/hour"},
    }
    ScopedRateThrottle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
    yield
    cache.clear()
    ScopedRateThrottle.THROTTLE_RATES = rates_before


def bundle(version: str) -> bytes:
    return tar_gz_bundle(harness_manifest(version=version), [run_line()])


def form_post(client: Client, content: bytes):
    return client.post("/submit/", {"file": SimpleUploadedFile("b.tar.gz", content)})


# ------------------------------------------------------------------ request bodies


@pytest.mark.parametrize("url", ["/api/v1/submissions/", "/submit/"])
def test_it_refuses_an_upload_body_from_its_length_before_reading_it(
    registry, submitter, settings, url
):
    settings.ARENA_MAX_UPLOAD_BYTES = 1_000_000
    client = token_client(submitter) if url.startswith("/api/") else Client()
    client.force_login(submitter)
    # The declared length is over the limit; the few bytes sent are never read.
    response = client.post(
        url, data=b"x" * 10, content_type="application/octet-stream", CONTENT_LENGTH="5000000"
    )
    assert response.status_code == 413
    assert "1,065,536 bytes" in response.content.decode()
    assert not Submission.objects.exists()
    assert not settings.ARENA_UPLOAD_DIR.exists() or not any(settings.ARENA_UPLOAD_DIR.iterdir())


def test_other_urls_take_no_more_than_djangos_data_limit(client, settings):
    response = client.post(
        "/accounts/login/", data=b"x", content_type="text/plain",
        CONTENT_LENGTH=str(settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1),
    )  # fmt: skip
    assert response.status_code == 413


def test_a_malformed_length_is_a_bad_request(client):
    response = client.post("/api/v1/submissions/", data=b"", content_type="x/y", CONTENT_LENGTH="-")
    assert response.status_code == 400


# ------------------------------------------------------------------ upload rate


def test_the_form_and_the_api_share_one_upload_limit(registry, submitter, two_uploads_an_hour):
    api = token_client(submitter)
    assert api.post("/api/v1/submissions/", {"file": SimpleUploadedFile("a.tgz", bundle("1"))})
    web = Client()
    web.force_login(submitter)
    assert form_post(web, bundle("2")).status_code == 302
    refused = form_post(web, bundle("3"))
    assert refused.status_code == 429
    assert "Too many uploads" in refused.content.decode()
    assert Submission.objects.count() == 2
    again = api.post("/api/v1/submissions/", {"file": SimpleUploadedFile("c.tgz", bundle("3"))})
    assert again.status_code == 429


def test_the_upload_history_is_seen_by_another_process(registry, submitter, two_uploads_an_hour):
    # A per-process cache let each of 4 web workers accept the whole limit: the
    # history must be where a separate process (another worker) reads it.
    api = token_client(submitter)
    api.post("/api/v1/submissions/", {"file": SimpleUploadedFile("a.tgz", bundle("1"))})
    code = (
        "import django; django.setup(); from ingestion.throttling import upload_limiter; "
        f"print(upload_limiter().usage({submitter.pk}))"
    )
    from django.db import connection

    env = {**_environ(), "DATABASE_URL": _database_url(connection)}
    seen = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert seen.returncode == 0, seen.stderr
    assert seen.stdout.strip().splitlines()[-1] == "1"


def _environ() -> dict[str, str]:
    import os

    return {**os.environ, "DJANGO_SETTINGS_MODULE": "arena.settings"}


def _database_url(connection) -> str:
    # The embedded server is reached through its socket folder, not 127.0.0.1:5432.
    return database_url_of(connection.settings_dict)


# ------------------------------------------------------------------ login throttling


def log_in(client: Client, username: str, password: str):
    page = client.get("/accounts/login/")
    token = page.cookies["csrftoken"].value
    return client.post(
        "/accounts/login/",
        {"login": username, "password": password, "csrfmiddlewaretoken": token},
    )


@pytest.fixture
def account(db):
    return account_with_password("lockable", PASSWORD)


def test_the_right_password_after_too_many_wrong_ones_is_refused(account, settings):
    client = Client(enforce_csrf_checks=True)
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert log_in(client, "lockable", "wrong").status_code == 200  # the form again
    assert log_in(client, "lockable", "wrong").status_code == 429
    locked = log_in(client, "lockable", PASSWORD)
    assert locked.status_code == 429
    assert "Too many failed log-ins" in locked.content.decode()
    assert "_auth_user_id" not in client.session


def test_a_success_before_the_limit_resets_the_count(account, settings):
    client = Client(enforce_csrf_checks=True)
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        log_in(client, "lockable", "wrong")
    assert log_in(client, "lockable", PASSWORD).status_code == 302
    other = Client(enforce_csrf_checks=True)
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert log_in(other, "lockable", "wrong").status_code == 200
    assert log_in(other, "lockable", PASSWORD).status_code == 302


def test_a_lockout_of_one_account_leaves_the_others_alone(account, submitter, settings):
    submitter.set_password(PASSWORD)
    submitter.save()
    with_email(submitter)
    client = Client(enforce_csrf_checks=True)
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in(client, "lockable", "wrong")
    assert log_in(client, submitter.username, PASSWORD).status_code == 302


# ------------------------------------------------------------------ secrets and CSP


def test_the_token_page_is_never_stored(submitter):
    client = Client()
    client.force_login(submitter)
    response = client.post("/submit/token/")
    assert "no-store" in response["Cache-Control"]
    assert re.search(r'<code id="api-token">[0-9a-f]{40}</code>', response.content.decode())


def test_the_admin_token_list_is_never_stored(staff):
    staff.is_superuser = True
    staff.save()
    client = Client()
    client.force_login(staff)
    response = client.get("/admin/auth/user/")  # which accounts have a token
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]


def test_every_page_forbids_inline_script(registry, client):
    policy = client.get("/methodology/")["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert "unsafe" not in policy
