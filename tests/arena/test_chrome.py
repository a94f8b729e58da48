"""The site's frame around every page: error pages, the admin, the favicon, log in."""

from __future__ import annotations

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from tests.builders import outcomes, submit

pytestmark = pytest.mark.django_db

SITE_HEADER = '<header class="site-header">'


def test_it_answers_an_unknown_page_with_404_inside_the_site(client):
    response = client.get("/no/such/page/")

    assert response.status_code == 404
    page = response.content.decode()
    assert SITE_HEADER in page
    assert "Page not found" in page
    assert "<code>/no/such/page/</code>" in page
    # `/` is the overview now, so the ranked agents are a link of their own.
    assert '<a href="/">The overview</a>' in page and 'href="/boards/overall/"' in page


def test_it_renders_the_500_page_without_the_database_or_a_request(settings):
    settings.ROOT_URLCONF = "tests.arena.urls_broken"

    response = Client(raise_request_exception=False).get("/broken/")

    assert response.status_code == 500
    page = response.content.decode()
    assert SITE_HEADER in page
    assert "Something went wrong" in page
    assert 'rel="icon"' in page


def test_it_links_a_favicon_and_answers_favicon_ico(client):
    page = client.get(reverse("methodology")).content.decode()
    assert 'rel="icon"' in page and "favicon" in page

    response = client.get("/favicon.ico")

    assert response.status_code == 301
    assert response.url.endswith(".svg")
    assert finders.find("favicon.svg") is not None


def test_it_shows_the_log_in_page_inside_the_site(client):
    response = client.get(reverse("account_login"))

    assert response.status_code == 200
    page = response.content.decode()
    assert SITE_HEADER in page and 'rel="icon"' in page and '<footer class="site-footer">' in page


def test_it_titles_the_admin_and_counts_what_waits_for_moderators(
    registry, submitter, newcomer, moderator
):
    submit(submitter, outcomes("pass", "fail", task="fix-git"), contributors=["mira.chen"])
    from tests.review_builders import upload

    upload(newcomer, outcomes("pass"), harness="Held")
    client = Client()
    client.force_login(moderator)

    page = client.get(reverse("admin:index")).content.decode()

    assert "<title>Moderation and data | Arena administration</title>" in page
    assert "Arena administration</a>" in page
    assert "Submissions awaiting review: <strong>1</strong>" in page
    from leaderboard.models import ConflictPair

    open_conflicts = ConflictPair.objects.filter(needs_review=True).count()
    assert open_conflicts >= 1  # mira.chen wrote fix-git and contributes to the harness
    assert f"Conflicts of interest awaiting a decision: <strong>{open_conflicts}</strong>" in page
