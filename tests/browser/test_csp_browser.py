"""The Content-Security-Policy in a real browser: the pages work under it and nothing
they load or run is blocked (every violation fails the test)."""

from __future__ import annotations

import pytest

from tests.browser.conftest import draw_charts
from tests.browser.test_board_browser import site  # noqa: F401 (the fixture)

pytestmark = pytest.mark.browser

# Collects `securitypolicyviolation` events from the first script on, including ones
# that happen before any test code could attach a listener.
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


@pytest.fixture
def watched(page):
    """The page, with every CSP violation (console or event) collected."""
    console: list[str] = []
    page.on(
        "console",
        lambda message: console.append(message.text)
        if "Content Security Policy" in message.text
        else None,
    )
    page.add_init_script(RECORD_VIOLATIONS)
    page.csp_console = console
    return page


def violations(page) -> list[str]:
    return page.csp_console + page.evaluate("window.__cspViolations")


def test_a_board_page_draws_its_charts_without_any_csp_violation(watched, site):  # noqa: F811
    response = watched.goto(site.url + "/boards/overall/")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    draw_charts(watched)
    watched.wait_for_selector("[data-figure] .main-svg")
    # An htmx swap (sorting) runs under the policy too, and draws the charts again.
    watched.click("table.board thead >> text=Cost / success")
    watched.wait_for_function("() => location.search.includes('sort=')")
    draw_charts(watched)
    watched.wait_for_selector("[data-figure] .main-svg")
    assert violations(watched) == []


def test_the_agent_and_run_pages_load_without_any_csp_violation(watched, site):  # noqa: F811
    watched.goto(site.url + "/agents/OpenHarness/0.9.2/frontier-large/")
    watched.wait_for_load_state("networkidle")
    watched.goto(f"{site.url}/runs/{site.run.pk}/")
    watched.wait_for_load_state("networkidle")
    assert violations(watched) == []
