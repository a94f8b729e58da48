"""Checking a bundle before submitting, and the error pages, in a real browser at a
desktop (1440x900) and a phone (390x844) size: nothing wider than the screen."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.conf import settings
from django.test import Client

from ingestion.models import Submission
from tests.builders import harness_manifest, outcomes, tar_gz_bundle
from tests.conftest import INVALID_DIR

pytestmark = pytest.mark.browser

SIZES = {"desktop": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}
OVERFLOW = "document.documentElement.scrollWidth - window.innerWidth"


@pytest.fixture(params=sorted(SIZES))
def sized(request, browser, transactional_db) -> Iterator:
    context = browser.new_context(viewport=SIZES[request.param])
    opened = context.new_page()
    opened.size_name = request.param
    yield opened
    context.close()


def _log_in(page, live_server, user) -> None:
    """The browser gets the session of a Django client logged in as `user`."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}]
    )


def _check(page, live_server, name: str, content: bytes) -> None:
    page.goto(live_server.url + "/submit/")
    page.set_input_files(
        "input[type=file]",
        files=[{"name": name, "mimeType": "application/gzip", "buffer": content}],
    )
    page.get_by_role("button", name="Check only").click()
    page.wait_for_selector("#check-result")


def test_it_checks_a_bundle_and_lists_its_errors_without_storing(
    sized, live_server, registry, submitter, screenshots
):
    _log_in(sized, live_server, submitter)

    _check(sized, live_server, "bad.tar.gz", (INVALID_DIR / "negative-cost.tar.gz").read_bytes())

    result = sized.locator("#check-result")
    assert "would be rejected" in result.locator("h2").inner_text()
    assert "cost_usd" in result.locator("table.errors").inner_text()
    assert sized.evaluate(OVERFLOW) <= 0
    sized.screenshot(
        path=screenshots / f"submit-check-invalid-{sized.size_name}.png", full_page=True
    )

    good = tar_gz_bundle(harness_manifest("Browser"), outcomes("pass", "fail", task="fix-git"))
    _check(sized, live_server, "good.tar.gz", good)

    assert "would be accepted" in sized.locator("#check-result h2").inner_text()
    assert "terminal-bench 4.0.0" in sized.locator("#check-result").inner_text()
    assert sized.evaluate(OVERFLOW) <= 0
    sized.screenshot(path=screenshots / f"submit-check-valid-{sized.size_name}.png", full_page=True)
    assert not Submission.objects.exists()


def test_it_shows_a_missing_page_inside_the_site(sized, live_server, screenshots):
    response = sized.goto(live_server.url + "/no/such/page/")

    assert response.status == 404
    assert sized.locator("header.site-header a.wordmark").is_visible()
    assert sized.locator("h1").inner_text() == "Page not found"
    assert sized.evaluate(OVERFLOW) <= 0
    sized.screenshot(path=screenshots / f"404-{sized.size_name}.png", full_page=True)


def test_it_renders_the_bundle_format_on_any_screen(sized, live_server, screenshots):
    sized.goto(live_server.url + "/submit/format/")

    assert "arena-bundle/1" in sized.locator("h1").inner_text()
    assert sized.evaluate(OVERFLOW) <= 0
    sized.screenshot(path=screenshots / f"bundle-format-{sized.size_name}.png", full_page=True)
