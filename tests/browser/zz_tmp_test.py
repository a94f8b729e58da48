from tests.browser.test_board_browser import site  # noqa
def test_zz(page_without_js, site):
    page = page_without_js
    page.goto(site.url + "/?sort=cost_per_success")
    print(page.inner_html("#board-filters"))
    page.fill("input[name=model]", "mid-small")
    page.click("button[type=submit]")
    page.wait_for_timeout(2000)
    print("URL", page.url)
