"""Following an agent or a signal model from its page: signed-in accounts only, a POST
with CSRF, an htmx partial that degrades to a redirect."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from ingestion.models import Harness, LanguageModel
from ingestion.services.intake import submission_ingest
from leaderboard.models import Follow
from leaderboard.recompute.services import boards_recompute_pending
from tests.builders import harness_manifest, outcomes, submit, tar_gz_bundle
from tests.conftest import make_user
from tests.leaderboard.signalboard.helpers import ingest_sessions, session

pytestmark = pytest.mark.django_db

AGENT_PAGE = "/agents/H/1.0.0/m/"


@pytest.fixture
def fan(db):
    return make_user("fan", email="fan@example.org")


@pytest.fixture
def published(registry, submitter):
    submit(submitter, outcomes("pass", "fail"))
    boards_recompute_pending()
    harness, model = Harness.objects.get(name="H"), LanguageModel.objects.get(name="m")
    return reverse("follow-agent", args=[harness.pk, model.pk])


def signed_in(user, *, csrf: bool = False) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user)
    return client


def test_a_signed_in_account_follows_and_unfollows_an_agent(fan, published):
    client = signed_in(fan)
    response = client.post(published, {"follow": "1", "next": AGENT_PAGE})
    assert (response.status_code, response["Location"]) == (303, AGENT_PAGE)
    assert Follow.objects.filter(user=fan, harness__name="H", model__name="m").count() == 1
    client.post(published, {"follow": "1"})  # twice is still one follow
    assert Follow.objects.filter(user=fan).count() == 1
    client.post(published, {"follow": "0"})
    assert not Follow.objects.filter(user=fan).exists()


def test_an_htmx_request_gets_the_button_back(fan, published):
    response = signed_in(fan).post(published, {"follow": "1"}, headers={"HX-Request": "true"})
    content = response.content.decode()
    assert response.status_code == 200
    assert content.lstrip().startswith("<form") and 'aria-pressed="true"' in content
    assert ">Unfollow<" in content and 'name="csrfmiddlewaretoken"' in content


def test_anonymous_visitors_cannot_follow(client, published):
    response = client.post(published, {"follow": "1"})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert not Follow.objects.exists()


def test_a_follow_without_its_csrf_token_is_refused(fan, published):
    response = signed_in(fan, csrf=True).post(published, {"follow": "1"})
    assert response.status_code == 403
    assert not Follow.objects.exists()


def test_following_is_a_post(fan, published):
    assert signed_in(fan).get(published).status_code == 405


def test_an_unknown_or_hidden_agent_cannot_be_followed(fan, published, newcomer):
    assert signed_in(fan).post("/follows/agents/999999/1/").status_code == 404
    bundle = tar_gz_bundle(harness_manifest("Held", "1.0.0"), outcomes("pass"))
    submission, _ = submission_ingest(upload=bundle, user=newcomer)
    assert submission.status == "pending_review"  # no page yet
    held = Harness.objects.get(name="Held")
    url = reverse("follow-agent", args=[held.pk, LanguageModel.objects.get(name="m").pk])
    assert signed_in(fan).post(url).status_code == 404


def test_the_agent_page_offers_the_button_to_the_signed_in_and_a_log_in_link_to_others(
    client, fan, published
):
    anonymous = client.get(AGENT_PAGE).content.decode()
    assert "Log in to follow this agent" in anonymous and 'class="follow-form"' not in anonymous
    page = signed_in(fan).get(AGENT_PAGE).content.decode()
    assert f'action="{published}"' in page and ">Follow<" in page


def test_the_signals_page_offers_each_model_a_button(client, registry, staff, fan):
    ingest_sessions(staff, [session("s1")])
    boards_recompute_pending()
    url = reverse("follow-signal-model", args=[LanguageModel.objects.get(name="tiny-model").pk])
    assert "Log in to follow tiny-model" in client.get("/signals/").content.decode()
    user = signed_in(fan)
    assert f'action="{url}"' in user.get("/signals/").content.decode()
    user.post(url, {"follow": "1"})
    assert Follow.objects.filter(user=fan, harness=None, model__name="tiny-model").exists()
    assert ">Unfollow<" in user.get("/signals/").content.decode()


def test_only_a_model_on_the_signal_boards_can_be_followed(registry, staff, fan):
    ingest_sessions(staff, [session("s1")])
    boards_recompute_pending()
    # A model the registry or a held upload named, with no session on the boards.
    elsewhere = LanguageModel.objects.create(name="not-on-the-signal-boards")
    url = reverse("follow-signal-model", args=[elsewhere.pk])
    assert signed_in(fan).post(url, {"follow": "1"}).status_code == 404
    assert signed_in(fan).post("/follows/signals/999999/", {"follow": "1"}).status_code == 404
    assert not Follow.objects.exists()


def test_a_follow_of_a_model_that_left_the_boards_can_still_be_undone(registry, staff, fan):
    gone = LanguageModel.objects.create(name="gone-model")
    Follow.objects.create(user=fan, harness=None, model=gone)
    url = reverse("follow-signal-model", args=[gone.pk])
    response = signed_in(fan).post(url, {"follow": "0"})
    assert response.status_code == 303
    assert not Follow.objects.exists()
