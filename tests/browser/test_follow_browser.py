"""The follow button in a real browser: htmx swaps it in place (an empty console), and
without JavaScript the plain form post comes back to the page, at a desktop and a
phone width, never wider than the window."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from leaderboard.models import Follow
from leaderboard.recompute.services import boards_recompute_pending
from tests.builders import outcomes, submit
from tests.conftest import make_user

pytestmark = pytest.mark.browser

WIDTHS = (1440, 390)
AGENT_PAGE = reverse("agent", args=["H", "1.0.0", "m"])


@pytest.fixture
def site(registry, submitter, live_server) -> str:
    submit(submitter, outcomes("pass", "fail"))
    boards_recompute_pending()
    return live_server.url


def sign_in(context, url: str):
    """Give the browser a signed-in session of a new account (as a log-in would)."""
    user = make_user("fan", email="fan@example.org")
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": url}])
    return user


@pytest.mark.parametrize("width", WIDTHS)
def test_the_button_follows_in_place(page, site, width, screenshots):
    from playwright.sync_api import expect

    user = sign_in(page.context, site)
    messages: list[str] = []
    page.on(
        "console", lambda m: messages.append(m.text) if m.type in ("error", "warning") else None
    )
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(site + AGENT_PAGE)
    button = page.locator(".follow-bar form.follow-form button")
    expect(button).to_have_text("Follow")
    button.click()
    expect(page.locator(".follow-bar form.follow-form button")).to_have_text("Unfollow")
    assert page.url == site + AGENT_PAGE  # swapped in place, no navigation
    assert Follow.objects.filter(user=user).count() == 1
    page.screenshot(path=screenshots / f"follow-agent-{width}.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.locator(".follow-bar form.follow-form button").click()
    expect(page.locator(".follow-bar form.follow-form button")).to_have_text("Follow")
    assert not Follow.objects.filter(user=user).exists()
    assert messages == []


def test_without_javascript_the_form_posts_and_comes_back(page_without_js, site):
    page = page_without_js
    user = sign_in(page.context, site)
    page.goto(site + AGENT_PAGE)
    with page.expect_navigation():
        page.locator(".follow-bar form.follow-form button").click()
    assert page.url == site + AGENT_PAGE
    assert page.locator(".follow-bar form.follow-form button").inner_text() == "Unfollow"
    assert Follow.objects.filter(user=user).count() == 1
