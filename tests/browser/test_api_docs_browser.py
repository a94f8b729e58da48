"""The interactive API docs (/api/v1/docs/) in a real browser: Swagger UI renders the
schema's operations from this site's own files, under the CSP, within the viewport."""

from __future__ import annotations

import pytest

from tests.browser.test_csp_browser import RECORD_VIOLATIONS

pytestmark = pytest.mark.browser

SIZES = [(1440, 900), (390, 844)]


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_it_renders_the_operations_within_the_viewport(
    browser, live_server, transactional_db, width, height, screenshots
):
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    violations: list[str] = []
    page.on(
        "console",
        lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None,
    )
    foreign: list[str] = []
    page.on(
        "request",
        lambda r: None if r.url.startswith((live_server.url, "data:")) else foreign.append(r.url),
    )
    page.add_init_script(RECORD_VIOLATIONS)
    try:
        page.goto(live_server.url + "/api/v1/docs/")
        operations = page.locator(".swagger-ui .opblock")
        expect(operations.first).to_be_visible(timeout=15_000)
        paths = page.locator(".opblock-summary-path").all_inner_texts()
        assert any("/api/v1/boards/{slug}/" in path for path in paths), paths
        assert operations.count() >= 10
        page.screenshot(path=str(screenshots / f"api-docs-{width}.png"), full_page=False)
        # Opening an operation shows its parameters and responses.
        page.locator(".opblock-summary", has_text="/api/v1/signals/").first.click()
        expect(page.locator(".opblock.is-open .parameters-container").first).to_be_visible()
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"the page is {overflow}px wider than a {width}px viewport"
        violations += page.evaluate("window.__cspViolations")
        assert violations == []
        assert foreign == [], "the docs fetched something from another site"
    finally:
        context.close()
