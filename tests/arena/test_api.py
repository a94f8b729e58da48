"""The API's own pages (arena.api): the root listing, the schema and the docs."""

from __future__ import annotations

import json
import re

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from ingestion.models import Run, Submission
from tests.conftest import token_client
from tests.leaderboard.web.compare_site import ALPHA, BETA, BOARD, compare_site

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def api_url_names() -> set[str]:
    """Every named route under /api/v1/ in the URLconf."""
    names: set[str] = set()

    def walk(patterns, prefix: str) -> None:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern) and route.startswith("api/v1/") and pattern.name:
                names.add(pattern.name)

    walk(get_resolver().url_patterns, "")
    return names


@pytest.mark.django_db
def test_it_lists_every_api_route_with_an_absolute_url():
    response = APIClient().get("/api/v1/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    root = response.json()
    listed = {f"api-{endpoint['name']}" for endpoint in root["endpoints"]}
    assert listed == api_url_names() - {"api-root"}
    for endpoint in root["endpoints"]:
        assert endpoint["url"].startswith("http://testserver/api/v1/"), endpoint
        assert endpoint["description"] and endpoint["methods"] and endpoint["formats"]
    assert root["docs"] == "http://testserver/api/v1/docs/"
    assert root["schema"] == "http://testserver/api/v1/schema/"
    assert root["terms"] == "http://testserver/methodology/#data-terms"
    by_name = {endpoint["name"]: endpoint for endpoint in root["endpoints"]}
    assert by_name["board-detail"]["url"] == "http://testserver/api/v1/boards/{slug}/"
    assert by_name["run-detail"]["url"] == "http://testserver/api/v1/runs/{id}/"
    assert by_name["submissions"]["authentication"] == "token"


@pytest.mark.django_db
def test_it_shows_the_root_to_a_browser_as_a_page_of_the_site_with_links():
    response = APIClient().get("/api/v1/", HTTP_ACCEPT="text/html,application/xhtml+xml,*/*;q=0.8")
    html = response.content.decode()
    assert response["Content-Type"].startswith("text/html")
    assert '<meta name="viewport"' in html and 'class="site-header"' in html
    assert '<a href="http://testserver/api/v1/boards/">http://testserver/api/v1/boards/</a>' in html
    # An address with a parameter to fill in is shown, not linked.
    assert "<code>http://testserver/api/v1/boards/{slug}/</code>" in html
    assert "<script>" not in html and " style=" not in html


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("accept", "query"),
    [("application/json", ""), ("*/*", ""), ("text/html,*/*;q=0.8", "?format=json")],
)
def test_it_answers_json_to_a_program(accept, query):
    response = APIClient().get(f"/api/v1/{query}", HTTP_ACCEPT=accept)
    assert response["Content-Type"] == "application/json"
    assert response.json()["title"] == "Arena API"


@pytest.mark.django_db
def test_it_answers_every_route_that_api_md_names(registry, submitter):
    site = compare_site(submitter)
    run = Run.objects.filter(submission__uploader=submitter).first()
    submission = Submission.objects.filter(uploader=submitter).first()
    public = [
        "/api/v1/", "/api/v1/boards/", f"/api/v1/boards/{BOARD}/", "/api/v1/signals/",
        "/api/v1/signals/?scenario=software_development", f"/api/v1/runs/{run.pk}/", "/api/v1/schema/",
        "/api/v1/docs/", f"/api/v1/boards/{BOARD}/changes/", f"/api/v1/boards/{BOARD}/harnesses/",
        f"/api/v1/compare/?board={BOARD}&a={ALPHA}&b={BETA}",
    ]  # fmt: skip
    anonymous = APIClient()
    for path in public:
        assert anonymous.get(path).status_code == 200, path
    own = token_client(submitter)
    for path in ("/api/v1/submissions/", f"/api/v1/submissions/{submission.pk}/"):
        assert anonymous.get(path).status_code == 401, path
        assert own.get(path).status_code == 200, path
    assert site.snapshot is not None


@pytest.mark.django_db
def test_it_gives_absolute_urls_in_submission_responses(submitter):
    submission = Submission.objects.create(uploader=submitter, sha256="a" * 64)
    listing = token_client(submitter).get("/api/v1/submissions/").json()
    expected = f"http://testserver/api/v1/submissions/{submission.pk}/"
    assert [item["url"] for item in listing] == [expected]
    detail = token_client(submitter).get(expected).json()
    assert detail["url"] == expected


# ---------------------------------------------------------------------------------
# The interactive docs


@pytest.mark.django_db
def test_it_serves_the_docs_page_with_every_asset_from_this_site(client):
    response = client.get("/api/v1/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assets = re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]+)"', html)
    assert len(assets) >= 5  # favicon, two stylesheets, two Swagger UI scripts, start-up
    for asset in assets:
        assert asset.startswith("/") and not asset.startswith("//"), asset
        if asset.startswith(settings.STATIC_URL):
            assert finders.find(asset.removeprefix(settings.STATIC_URL)), asset
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in assets
    (startup,) = [asset for asset in assets if asset.startswith("/api/v1/docs/")]
    script = client.get(startup.replace("&amp;", "&"))
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert 'url: "/api/v1/schema/"' in script.content.decode()


@pytest.mark.django_db
def test_it_runs_the_docs_under_the_csp_without_inline_script_or_style(client):
    response = client.get("/api/v1/docs/")
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    html = response.content.decode()
    assert "<style" not in html and " style=" not in html
    assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", html) == []


# ---------------------------------------------------------------------------------
# The schema


@pytest.mark.django_db
def test_it_shows_the_schema_to_a_browser_as_text():
    response = APIClient().get("/api/v1/schema/", HTTP_ACCEPT=BROWSER_ACCEPT)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["Content-Disposition"].startswith("inline")
    assert "Accept" in response["Vary"]
    assert response.content.startswith(b"openapi: 3")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "accept", "content_type"),
    [
        ({}, None, "application/vnd.oai.openapi"),
        ({"format": "yaml"}, BROWSER_ACCEPT, "application/vnd.oai.openapi"),
        ({"format": "json"}, BROWSER_ACCEPT, "application/vnd.oai.openapi+json"),
        ({}, "application/json", "application/json"),
        ({}, "application/yaml", "application/yaml"),
    ],
)
def test_it_gives_tools_the_schema_as_yaml_or_json(query, accept, content_type):
    headers = {"HTTP_ACCEPT": accept} if accept else {}
    response = APIClient().get("/api/v1/schema/", query, **headers)
    assert response.status_code == 200
    assert response["Content-Type"].split(";")[0] == content_type
    if "json" in content_type:
        assert json.loads(response.content)["openapi"].startswith("3")
    else:
        assert response.content.startswith(b"openapi: 3")


@pytest.mark.django_db
def test_it_documents_the_token_as_a_bearer_scheme_and_the_csv_formats():
    schema = APIClient().get("/api/v1/schema/", {"format": "json"}).json()
    scheme = schema["components"]["securitySchemes"]["apiToken"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    board = schema["paths"]["/api/v1/boards/{slug}/"]["get"]
    assert "text/csv" in board["responses"]["200"]["content"]
