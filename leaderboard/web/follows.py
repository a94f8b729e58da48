"""Following an agent or a signal model, and unsubscribing from the alert e-mails.

* `POST /follows/agents/<harness id>/<model id>/` and `POST /follows/signals/<model id>/`
  with `follow=1` (or `0` to stop): signed-in accounts only, CSRF-checked; only an
  agent with a public page, or a model the signal boards list, can be followed. An htmx
  request gets the button's partial back; a plain form post is redirected (303) to
  `next` or the page it came from, so the button works without JavaScript.
* `/alerts/unsubscribe/<token>/`: the link in every alert e-mail. The signed token
  names the account, so it works without logging in: GET shows a confirmation with
  one button, POST stops every alert of the account. It is exempt from CSRF because
  mail clients post to it for one-click unsubscribe (RFC 8058, the List-Unsubscribe-Post
  header); the token alone authorises it, and it can only unsubscribe.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from ingestion.models import Harness, LanguageModel
from leaderboard.alerts import services
from leaderboard.boards.selectors import find_agent
from leaderboard.signalboard.selectors import on_signal_boards
from leaderboard.web.links import agent_url_for

FOLLOW_TEMPLATE = "leaderboard/_follow.html"
UNSUBSCRIBE_TEMPLATE = "leaderboard/alerts_unsubscribe.html"


def agent_follow_context(request: HttpRequest, harness: Harness, model: LanguageModel) -> dict:
    """The agent page's follow button."""
    url = reverse("follow-agent", args=[harness.pk, model.pk])
    following = services.is_following(request.user, model=model, harness=harness)
    return _button(request, url, following, key=f"agent-{harness.pk}-{model.pk}")


def signal_follow_urls(model_names: list[str]) -> dict[str, str]:
    """Each signal model's follow address (one query), for the signals page's rows."""
    ids = LanguageModel.objects.filter(name__in=model_names).values_list("name", "pk")
    return {name: reverse("follow-signal-model", args=[pk]) for name, pk in ids}


def _button(request: HttpRequest, url: str, following: bool, *, key: str) -> dict[str, Any]:
    return {"url": url, "following": following, "key": key, "next": request.get_full_path()}


@require_POST
def follow_agent(request: HttpRequest, harness: int, model: int) -> HttpResponse:
    found_harness = get_object_or_404(Harness.objects.select_related("independent_by"), pk=harness)
    found_model = get_object_or_404(LanguageModel, pk=model)
    account = found_harness.independent_by.username if found_harness.independent_by else None
    # Only an agent with a public page can be followed (as the page itself checks).
    if find_agent(found_harness.name, found_harness.version, found_model.name, account) is None:
        raise Http404("no such agent")
    page = agent_url_for(found_harness.name, found_harness.version, found_model.name, account)
    return _follow(request, found_model, found_harness, page or reverse("home"))


@require_POST
def follow_signal_model(request: HttpRequest, model: int) -> HttpResponse:
    found_model = get_object_or_404(LanguageModel, pk=model)
    # Only a model the signal boards list can be followed (a model only a held upload
    # or the registry names has no row to follow); a follow is undone whatever became
    # of the model.
    if _wants_to_follow(request) and not on_signal_boards(found_model.name):
        raise Http404("no such model on the signal boards")
    return _follow(request, found_model, None, reverse("signals"))


def _wants_to_follow(request: HttpRequest) -> bool:
    return request.POST.get("follow") != "0"


def _follow(
    request: HttpRequest, model: LanguageModel, harness: Harness | None, page: str
) -> HttpResponse:
    back = _safe_next(request, page)
    if not request.user.is_authenticated:
        return redirect_to_login(back)
    following = services.follow_set(
        user=request.user, model=model, harness=harness, follow=_wants_to_follow(request)
    )
    if request.htmx:
        key = f"agent-{harness.pk}-{model.pk}" if harness else f"signals-{model.pk}"
        context = {"follow": {**_button(request, request.path, following, key=key), "next": back}}
        return render(request, FOLLOW_TEMPLATE, context)
    return HttpResponseRedirect(back, status=303)


def _safe_next(request: HttpRequest, default: str) -> str:
    wanted = request.POST.get("next", "")
    allowed = url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return wanted if wanted and allowed else default


@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def alerts_unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    account = services.unsubscribe_account(token)
    if account is None:
        context = {"invalid": True}
        return render(request, UNSUBSCRIBE_TEMPLATE, context, status=400)
    if request.method == "POST":
        stopped = services.follows_unsubscribe(token=token)
        return render(request, UNSUBSCRIBE_TEMPLATE, {"done": True, "stopped": stopped})
    # A GET (a mail client's link preview fetches it too) changes nothing.
    follows = account.follows.count()
    return render(request, UNSUBSCRIBE_TEMPLATE, {"follows": follows, "token": token})
