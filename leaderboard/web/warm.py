"""A new snapshot's most-read pages and API bodies, rendered into the cache before readers
see it, so that no visitor pays an uncached render after an ingest.

Every cached body is keyed by its snapshot (arena.http_cache), so each recompute starts
with an empty cache. When a snapshot is being swapped in, readers are held on the one
they see (leaderboard.boards.current) and, once the swap commits, `snapshot_warm`
renders the pages below through their own views, with the request an anonymous
visitor's browser or API client sends: the keys filled are the keys those requests
read (same canonical parameters, same htmx headers, same content type). Then every
reader is moved to the new snapshot at once.

Warmed: the home page; each board's and each safety board's default view, whole and as
the htmx tab switch asks for it; the signal board; and the first (only) page of every
API list: the board list, each board, each safety board, the signals.
"""

from __future__ import annotations

import logging
from functools import partial

from celery import shared_task
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import transaction
from django.dispatch import receiver
from django.test import RequestFactory
from django.urls import resolve, reverse
from django_htmx.middleware import HtmxDetails
from kombu.exceptions import OperationalError as BrokerError

from leaderboard.boards.current import readers_hold, readers_show, rendering
from leaderboard.boards.safety_selectors import tab_safety_boards
from leaderboard.models import Board, BoardSnapshot
from leaderboard.recompute.announcements import snapshot_filling, snapshot_swapping

logger = logging.getLogger(__name__)

# What the board tabs send (board.html: hx-target="#board-page").
TAB_SWITCH = {"HX-Request": "true", "HX-Target": "board-page"}
API = {"Accept": "application/json"}
# The receiver's dispatch uid, for a bench that leaves the warm out (bench/_django.py).
WARM_RECEIVER = "leaderboard.web.warm.snapshot_swapping"
FILL_RECEIVER = "leaderboard.web.warm.snapshot_filling"


def warm_requests(boards: list[Board]) -> list[tuple[str, dict[str, str]]]:
    """(path, request headers) of every response warmed, most read first."""
    pages: list[tuple[str, dict[str, str]]] = [(reverse("home"), {})]
    apis = [(reverse("api-boards"), API)]
    for board in boards:
        page = reverse("board", args=[board.slug])
        pages += [(page, {}), (page, TAB_SWITCH)]
        apis.append((reverse("api-board-detail", args=[board.slug]), API))
    for safety in tab_safety_boards(boards):
        pages.append((reverse("safety-board", args=[safety.slug]), {}))
        apis.append((reverse("api-safety-board", args=[safety.slug]), API))
    pages.append((reverse("signals"), {}))
    apis.append((reverse("api-signals"), API))
    return pages + apis


def snapshot_pages_warm(*, snapshot_id: int) -> int | None:
    """Render the snapshot's warmed responses into the cache, then show it to every
    reader; None (nothing done) when it is no longer current. Returns how many of them
    answered 200."""
    if not BoardSnapshot.objects.filter(pk=snapshot_id, is_current=True).exists():
        return None  # superseded: the newer snapshot's own warm shows it
    with rendering(snapshot_id) as boards:
        try:
            return sum(_render(path, headers) for path, headers in warm_requests(boards))
        finally:
            readers_show(boards)  # a failed render must not keep readers on the old one


def _render(path: str, headers: dict[str, str]) -> bool:
    """Call the view as a visitor's request would reach it (anonymous, not logged in)."""
    request = RequestFactory().get(path, headers=headers, HTTP_HOST=_host())
    request.user = AnonymousUser()
    request.htmx = HtmxDetails(request)
    match = resolve(path)
    try:
        response = match.func(request, *match.args, **match.kwargs)
    except Exception:
        # One broken page must not leave the others cold; its visitors see the error.
        logger.exception("warming %s failed", path)
        return False
    return response.status_code == 200


def _host() -> str:
    """A host the request validation accepts (responses name it only in headers)."""
    for host in settings.ALLOWED_HOSTS:
        if host != "*":
            return host.lstrip(".")
    return "localhost"


@shared_task(soft_time_limit=120, time_limit=150)
def snapshot_warm(snapshot_id: int) -> str:
    warmed = snapshot_pages_warm(snapshot_id=snapshot_id)
    return "superseded" if warmed is None else f"warmed {warmed} responses"


def warm_kick(snapshot_id: int) -> None:
    """Queue the warm (run in place when Celery is eager). A broker that cannot take it
    leaves readers held until the hold lapses: the snapshot shows late, pages cold."""
    try:
        snapshot_warm.delay(snapshot_id)
    except BrokerError:
        logger.exception("could not queue the page warm of snapshot %s", snapshot_id)


@receiver(snapshot_swapping, dispatch_uid=WARM_RECEIVER)
def snapshot_swapping_received(sender: str, *, snapshot_id: int, **kwargs: object) -> None:
    """In the swap's transaction: hold readers, warm once it commits."""
    if not settings.ARENA_PAGE_WARM:
        return
    readers_hold()
    transaction.on_commit(partial(warm_kick, snapshot_id), robust=True)


@receiver(snapshot_filling, dispatch_uid=FILL_RECEIVER)
def snapshot_filling_received(sender: str, *, snapshot_id: int, **kwargs: object) -> None:
    """In the fill's transaction, before it writes: the bounds change the pages' keys
    (the "intervals being computed" state), so readers stay on the warmed pages that
    say so until the filled ones are rendered."""
    if not settings.ARENA_PAGE_WARM:
        return
    readers_hold()
    transaction.on_commit(partial(warm_kick, snapshot_id), robust=True)
