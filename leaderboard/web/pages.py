"""Cached htmx pages: canonical parameters → cache → the whole page or its partial.

The rendered bytes, their ETag and Cache-Control are arena.http_cache's; this module
names the current snapshot cheaply (for pages that have no Board row in hand), picks the
template an htmx request asks for, and sets the one `Vary` every page shares.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers

from arena.http_cache import versioned_response
from leaderboard.boards.current import NO_SNAPSHOT, current_snapshot_id

__all__ = ["NO_SNAPSHOT", "cached_page", "current_snapshot_id", "htmx_page", "htmx_template"]

HTML = "text/html; charset=utf-8"
# What a page's bytes depend on besides the URL: whether htmx asked, for which region,
# and whether it restores history after a cache miss (then it wants the whole page).
HTMX_VARY = ("HX-Request", "HX-Target", "HX-History-Restore-Request")


def htmx_template(
    request: HttpRequest, template: str, partials: Collection[str], default: str | None
) -> str:
    """The template, or the partial of it (`template#target`) an htmx request targets.

    A target outside `partials` gets `default` (None: the whole page). A history restore
    after a cache miss asks for the whole page, htmx or not.
    """
    if not request.htmx or request.htmx.history_restore_request:
        return template
    target = request.htmx.target if request.htmx.target in partials else default
    return f"{template}#{target}" if target else template


def htmx_page(request: HttpRequest, response: HttpResponse, push_url: str | None) -> HttpResponse:
    """Push the canonical address to an htmx request (the form sends every field) and
    name the headers the response depends on."""
    if request.htmx and push_url is not None:
        response["HX-Push-Url"] = push_url
    patch_vary_headers(response, HTMX_VARY)
    return response


def cached_page(
    request: HttpRequest,
    *,
    template: str,
    key: str,
    context: Callable[[], dict[str, Any]],
    version: int | None = None,
    push_url: str | None = None,
) -> HttpResponse:
    """The page rendered from `template` (a whole page or a partial, htmx_template),
    cached per snapshot (`version`, default the current one) and canonical parameters.

    Visitors who are not logged in all see the same page for a snapshot and `key`, the
    page's canonical parameters (unknown ones dropped, values checked, order fixed), so
    `?junk=1` is the cached page too. `context` is called only on a miss. A partial is
    told its name (`htmx_partial`), so it can carry the page's <title> for htmx to set.
    """
    partial = template.partition("#")[2]
    response = versioned_response(
        request,
        version=current_snapshot_id() if version is None else version,
        key=f"page {template} {key}",
        content_type=HTML,
        build=lambda: render(request, template, {**context(), "htmx_partial": partial}),
        public=not request.user.is_authenticated,
    )
    return htmx_page(request, response, push_url)
