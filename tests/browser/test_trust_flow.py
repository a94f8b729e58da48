"""Trust, walked in a real browser: a new account from sign-up to the board through review,
and a verifier's signature from the Verified mark to a refusal and a downgrade.

The live server runs in this process: the test mailbox (pytest-django's `mailoutbox`,
Django's locmem backend) holds its e-mails, and Celery runs eagerly, so every upload and decision is ingested and
recomputed before its response comes back.
"""

from __future__ import annotations

import io
import json
import re
import tarfile
import urllib.error
import urllib.request
import uuid
from types import SimpleNamespace

import pytest

from tests.builders import harness_manifest, outcomes, tar_gz_bundle
from tests.conftest import make_user

pytestmark = pytest.mark.browser

PASSWORD = "correct-horse-battery-7319"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 360, "height": 800}
# DRF tokens are 40 hexadecimal characters.
TOKEN_PATTERN = re.compile(r"\b[0-9a-f]{40}\b")
CONFIRM_LINK = re.compile(r"https?://\S+/accounts/confirm-email/\S+/")


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """PBKDF2 takes a second a hash on a busy machine, and these walks hash seven times
    (accounts made, signed up, logged in); the hasher is not what they test."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


# --- helpers: the API, the mailbox, the board -------------------------------------------


def api_upload(base_url: str, token: str, bundle: bytes) -> tuple[int, dict]:
    """POST a bundle as multipart `file`, as `curl -F file=@bundle.tar.gz` would."""
    boundary = uuid.uuid4().hex
    body = (
        (
            f"--{boundary}\r\n"
            'Content-Disposition: form-data; name="file"; filename="bundle.tar.gz"\r\n'
            "Content-Type: application/gzip\r\n\r\n"
        ).encode()
        + bundle
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        base_url + "/api/v1/submissions/",
        data=body,
        method="POST",
        headers={
            "Authorization": f"Token {token}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as refused:
        return refused.code, json.load(refused)


def confirmation_link(mailbox: list, address: str) -> str:
    messages = [message for message in mailbox if address in message.to]
    assert messages, f"no e-mail to {address} in {[m.to for m in mailbox]}"
    match = CONFIRM_LINK.search(messages[-1].body)
    assert match, messages[-1].body
    return match.group(0)


def board_row(page, harness: str):
    """The board row of this harness (its agent cell starts with the name)."""
    return page.locator("table.board tbody tr").filter(
        has=page.locator("th.agent", has_text=harness)
    )


def board_harnesses(page) -> list[str]:
    cells = page.locator("table.board tbody th.agent").all_inner_texts()
    return [cell.split()[0] for cell in cells]


def admin_log_in(page, base_url: str, username: str) -> None:
    page.goto(base_url + "/admin/login/?next=/admin/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "pw-" + username)
    with page.expect_navigation():
        page.click("input[type=submit]")
    assert page.url.endswith("/admin/"), page.url


def admin_action(
    page, changelist_url: str, pk: int, action_label: str, reason: str | None = None
) -> str:
    """Select one row, run the action whose label contains `action_label` (giving the
    reason on the intermediate page, if it asks one); return the message the admin shows."""
    page.goto(changelist_url)
    page.check(f"input[name=_selected_action][value='{pk}']")
    options = page.locator("select[name=action] option").all()
    values = [o.get_attribute("value") for o in options if action_label in o.inner_text()]
    assert len(values) == 1, [o.inner_text() for o in options]
    page.select_option("select[name=action]", values[0])
    with page.expect_navigation():
        page.click("button[name=index]")
    if reason is not None:
        page.fill("textarea[name=reason]", reason)
        with page.expect_navigation():
            page.click("input[name=apply]")
    return page.inner_text("ul.messagelist")


@pytest.fixture
def board_page(page):
    """The page without Plotly (1 MB, fetched afresh on every board page by the live
    server): these tests read the table, and the board tests cover the charts."""
    page.route("**/vendor/plotly-basic.min.js", lambda route: route.abort())
    return page


# --- the first walk: a new account, reviewed before publication ------------------------


@pytest.fixture
def trust_site(registry, moderator, live_server, mailoutbox) -> SimpleNamespace:
    return SimpleNamespace(url=live_server.url, moderator=moderator, mailbox=mailoutbox)


def sign_up_and_confirm(page, site: SimpleNamespace, username: str, address: str) -> None:
    """Sign up, follow the link the e-mail carries, confirm, then log in."""
    page.goto(site.url + "/accounts/signup/")
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    page.fill("form input[name=username]", username)
    page.fill("form input[name=email]", address)
    page.fill("form input[name=password1]", PASSWORD)
    page.fill("form input[name=password2]", PASSWORD)
    with page.expect_navigation():
        page.locator("main form button[type=submit]").click()
    assert f"sent to {address}" in page.inner_text("main")

    page.goto(confirmation_link(site.mailbox, address))
    assert f"{address} is the e-mail address of the account {username}" in page.inner_text("main")
    with page.expect_navigation():
        page.locator("form[action*='confirm-email'] button[type=submit]").click()
    assert f"You have confirmed {address}" in page.inner_text("main")
    assert page.url.endswith("/accounts/login/"), page.url
    page.fill("form input[name=login]", username)
    page.fill("form input[name=password]", PASSWORD)
    with page.expect_navigation():
        page.locator("main form button[type=submit]").click()
    page.goto(site.url + "/submit/")
    assert page.url.endswith("/submit/"), page.url


def create_token(page) -> str:
    """Press the page's button (a POST) and read the new token, shown this once."""
    assert not TOKEN_PATTERN.search(page.content()), "a GET must not show (or create) a token"
    with page.expect_navigation():
        page.click("form[method=post] button:text-is('Create API token')")
    return page.inner_text("#new-api-token #api-token")


def test_it_walks_a_new_account_from_sign_up_through_review_to_the_board(
    board_page, browser, trust_site, screenshots
):
    page = board_page
    page.set_viewport_size(PHONE)  # signing up on a phone: the account pages fit it
    sign_up_and_confirm(page, trust_site, "newcomer", "newcomer@example.org")
    page.set_viewport_size(DESKTOP)
    token = create_token(page)
    page.goto(trust_site.url + "/submit/")
    assert token not in page.content(), "the token is shown once"
    assert TOKEN_PATTERN.fullmatch(token), token

    bundle = tar_gz_bundle(harness_manifest("Newcomer"), outcomes("pass", "fail"))
    status, created = api_upload(trust_site.url, token, bundle)
    assert status == 202, created

    # Pending: the submitter sees it on their own page; visitors see no entry.
    page.goto(f"{trust_site.url}/submissions/{created['id']}/")
    assert page.inner_text("#submission-status .status").lower() == "pending review"
    # The preview of its board rows, loaded into the page by htmx: one pass in two trials.
    page.wait_for_selector("#submission-preview table.preview")
    cells = page.locator("#submission-preview tbody tr").first.locator("td").all_inner_texts()
    assert cells[0] == "Overall" and cells[3:6] == ["2", "1", "50.0%"], cells
    page.screenshot(path=str(screenshots / "submission-pending-review.png"), full_page=True)
    page.goto(trust_site.url + "/boards/overall/")
    assert "Newcomer" not in board_harnesses(page)

    moderator_context = browser.new_context(viewport=DESKTOP)
    try:
        admin = moderator_context.new_page()
        admin_log_in(admin, trust_site.url, trust_site.moderator.username)
        changelist = trust_site.url + "/admin/leaderboard/pendingsubmission/"
        message = admin_action(
            admin, changelist, created["id"], "Approve", "a known lab: its first bundle checks out"
        )
        assert "1 done" in message, message
    finally:
        moderator_context.close()

    page.goto(trust_site.url + "/boards/overall/")
    assert "Newcomer" in board_harnesses(page)
    page.goto(f"{trust_site.url}/submissions/{created['id']}/")
    assert page.inner_text("#submission-status .status").lower() == "ingested"


# --- the second walk: a verifier's signature -------------------------------------------

VERIFIER = "independent-lab"


@pytest.fixture
def verified_site(registry, superuser, live_server, tmp_path) -> SimpleNamespace:
    """A registered verifier with its key on disk, and a trusted lab with a token."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from ingestion.bundles.verification import private_key_pem, public_key_text
    from ingestion.models import Verifier
    from ingestion.services.trust import trusted_group
    from tests.builders import api_key

    key = Ed25519PrivateKey.generate()
    key_path = tmp_path / "verifier.pem"
    key_path.write_bytes(private_key_pem(key))
    verifier = Verifier.objects.create(name=VERIFIER, public_key=public_key_text(key))
    lab = make_user("lab")
    lab.groups.add(trusted_group())
    return SimpleNamespace(
        url=live_server.url, verifier=verifier, key_path=key_path, token=api_key(lab),
        admin=superuser, tmp=tmp_path,
    )  # fmt: skip


def signed_bundle(site: SimpleNamespace, harness: str) -> bytes:
    """A bundle signed by the verifier with `manage.py sign_bundle`."""
    from django.core.management import call_command

    unsigned = site.tmp / f"{harness}.tar.gz"
    unsigned.write_bytes(tar_gz_bundle(harness_manifest(harness), outcomes("pass", "fail")))
    signed = site.tmp / f"{harness}-signed.tar.gz"
    # As on the command line: call_command converts only the parsed arguments' types.
    arguments = [
        "--key", str(site.key_path), "--verifier", VERIFIER, "--account", "lab",
        "--out", str(signed),
    ]  # fmt: skip
    call_command("sign_bundle", str(unsigned), *arguments, stdout=io.StringIO())
    return signed.read_bytes()


def tampered(bundle: bytes) -> bytes:
    """The same archive, its verification.json kept, with a failed run turned into a pass."""
    files: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(bundle), mode="r:gz") as archive:
        for member in archive.getmembers():
            files[member.name] = archive.extractfile(member).read()
    assert "verification.json" in files
    files["runs.jsonl"] = files["runs.jsonl"].replace(b'"fail"', b'"pass"')
    return tar_gz_bundle(None, extra_files=files)


def test_it_shows_verified_refuses_tampering_and_downgrades_a_deactivated_verifier(
    board_page, browser, verified_site, screenshots
):
    page, site = board_page, verified_site
    status, signed = api_upload(site.url, site.token, signed_bundle(site, "Attested"))
    assert status == 202, signed
    plain = tar_gz_bundle(harness_manifest("Plain"), outcomes("pass"))
    assert api_upload(site.url, site.token, plain)[0] == 202

    page.goto(site.url + "/boards/overall/")
    assert board_row(page, "Attested").locator(".verified-mark").inner_text() == "Verified"
    assert board_row(page, "Plain").locator(".verified-mark").count() == 0
    # The filter lives in the URL; on a phone the mark still shows in the row.
    page.set_viewport_size(PHONE)
    page.goto(site.url + "/boards/overall/?verified=1")
    assert board_harnesses(page) == ["Attested"]
    assert board_row(page, "Attested").locator(".verified-mark").is_visible()
    page.screenshot(path=str(screenshots / "board-verified-only-360.png"), full_page=True)
    page.set_viewport_size(DESKTOP)

    # A results file changed after signing: refused whole, the cause named.
    status, refused = api_upload(site.url, site.token, tampered(signed_bundle(site, "Forged")))
    assert status == 202, refused
    admin = browser.new_context(viewport=DESKTOP).new_page()
    try:
        admin_log_in(admin, site.url, site.admin.username)
        admin.goto(f"{site.url}/submissions/{refused['id']}/")
        assert admin.inner_text("#submission-status .status").lower() == "rejected"
        errors = admin.inner_text("table.errors")
        assert "verification.json" in errors and "digest mismatch: runs.jsonl" in errors
        admin.goto(f"{site.url}/submissions/{signed['id']}/")
        verification = "#submission-status dd.verification"
        assert admin.inner_text(verification) == f"Verified by {VERIFIER}"

        # Deactivating the verifier in the admin: Self-reported from the next recompute.
        changelist = site.url + "/admin/ingestion/verifier/"
        message = admin_action(admin, changelist, site.verifier.pk, "Deactivate")
        assert "1 verifier deactivated" in message, message
        admin.goto(f"{site.url}/submissions/{signed['id']}/")
        assert admin.inner_text(verification).endswith("counted as Self-reported")
    finally:
        admin.context.close()

    page.goto(site.url + "/boards/overall/?verified=1")
    assert board_harnesses(page) == []
    page.goto(site.url + "/boards/overall/")
    row = board_row(page, "Attested")
    assert row.locator(".verified-mark").count() == 0
    with page.expect_navigation():
        row.locator("th.agent a").first.click()
    assert "Self-reported" in page.inner_text("td.verification")
