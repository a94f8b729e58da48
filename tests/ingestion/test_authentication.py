"""API token authentication (ingestion.authentication): `Token` and `Bearer` both work,
with one class; anything else leaves the request anonymous (401 on the submission API)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.builders import api_key

API = "/api/v1/submissions/"


@pytest.fixture
def key(submitter) -> str:
    return api_key(submitter)


def get_with(authorization: str):
    return APIClient().get(API, HTTP_AUTHORIZATION=authorization)


@pytest.mark.parametrize("keyword", ["Token", "Bearer", "bearer", "TOKEN"])
def test_it_authenticates_with_either_keyword_in_any_case(key, keyword):
    assert get_with(f"{keyword} {key}").status_code == 200


@pytest.mark.parametrize(
    "authorization",
    [
        "Basic dXNlcjpwYXNz",
        "Bearer",
        "Bearer not-a-real-key",
        "Bearer one two",
        "Bearerx {key}",
        "Key {key}",
        "{key}",
    ],
)
def test_it_refuses_other_keywords_missing_or_wrong_keys(key, authorization):
    response = get_with(authorization.format(key=key))
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"


@pytest.mark.django_db
def test_it_refuses_a_request_without_credentials():
    assert APIClient().get(API).status_code == 401


def test_it_uploads_with_a_bearer_token(key):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    response = client.post(API, b"{}", content_type="application/json")
    assert response.status_code in (200, 202), response.content
    assert response.json()["url"].startswith("http://testserver/api/v1/submissions/")
