"""robots.txt and sitemap.xml (leaderboard.web.sitemaps)."""

from __future__ import annotations

import re

import pytest

from ingestion.models import Harness, LanguageModel, Task
from leaderboard.recompute.services import boards_recompute
from tests.leaderboard.boards.builders import make_run, make_submission

pytestmark = pytest.mark.django_db


def locations(client, path: str = "/sitemap.xml") -> list[str]:
    response = client.get(path)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/xml")
    return re.findall(r"<loc>http://testserver(.*?)</loc>", response.content.decode())


@pytest.fixture
def snapshot(registry, submitter):
    harness = Harness.objects.create(name="Quill", version="2.1.0")
    model = LanguageModel.objects.create(name="acme/frontier")
    submission = make_submission(submitter, harness)
    make_run(submission, model, Task.objects.get(task_id="fix-git"), 1, "pass")
    return boards_recompute()


def test_it_points_crawlers_at_the_sitemap_and_keeps_them_out_of_private_pages(client, db):
    response = client.get("/robots.txt")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    lines = response.content.decode().splitlines()
    assert lines[0] == "User-agent: *"
    for path in ("/admin/", "/accounts/", "/submit/", "/submissions/", "/api/v1/submissions/"):
        assert f"Disallow: {path}" in lines
    assert "Sitemap: http://testserver/sitemap.xml" in lines


def test_it_lists_the_boards_agents_tasks_and_pages(client, snapshot):
    found = locations(client)
    for path in ("/", "/methodology/", "/signals/", "/agents/"):
        assert path in found
    assert "/boards/overall/" in found and "/boards/overall/tasks/" in found
    assert "/boards/category-bugfix/" in found
    assert "/agents/Quill/2.1.0/acme/frontier/" in found
    assert "/tasks/terminal-bench/4.0.0/fix-git/" in found
    assert "/tasks/aider-polyglot/1.0.0/cpp/all-your-base/" in found
    approved = Task.objects.approved_official().count()
    assert sum(path.startswith("/tasks/") for path in found) == approved
    assert len(found) == len(set(found))


def test_every_address_it_lists_answers(client, snapshot):
    for path in locations(client):
        if path.startswith("/tasks/") and not path.endswith("/fix-git/"):
            continue  # one task page stands for the rest
        assert client.get(path).status_code == 200, path


def test_it_is_cached_per_snapshot(client, snapshot, django_assert_max_num_queries):
    first = client.get("/sitemap.xml").content
    with django_assert_max_num_queries(1):  # which boards are current
        assert client.get("/sitemap.xml").content == first


def test_it_lists_the_pages_before_any_snapshot(client, db):
    found = locations(client)
    assert "/" in found and "/methodology/" in found
