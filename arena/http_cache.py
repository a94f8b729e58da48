"""HTTP caching of responses that are the same for everyone until a version changes.

A board page, the board API and the signals page show one immutable board snapshot:
their bytes are a function of (snapshot id, canonical request) only. This module keeps
those bytes in the bounded "pages" cache (arena/settings.py CACHES), names them with an
ETag derived from the same pair, answers a matching If-None-Match with 304 before
anything is built, and marks them `Cache-Control: public`. A response for a logged-in
visitor (their name and a CSRF token in the header) is built every time and marked
private, never stored.

The key is the caller's canonical form of what the page understands (its params
module), never the raw query string: `?junk=1` and `?junk=2` are one entry.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.core.cache import caches
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.connection import ConnectionProxy
from django.utils.http import parse_etags

# Bounded by MAX_ENTRIES per process (LocMemCache) or by Redis's own memory policy.
pages_cache = ConnectionProxy(caches, "pages")

# Entries of an old snapshot are never read again (the new id makes new keys): they
# age out, or are culled first as the least recently used.
ENTRY_SECONDS = 600
# How long a browser or shared cache may reuse a public response without asking. A new
# snapshot shows at most this late; after it, a revalidation is a cheap 304.
PUBLIC_MAX_AGE = 30


def cached_bytes(*, version: int, key: str, build: Callable[[], bytes]) -> bytes:
    """The cached bytes for (version, key), built and stored on a miss."""
    cache_key = f"snapshot:{version}:{_digest(key)}"
    body = pages_cache.get(cache_key)
    if body is None:
        body = build()
        pages_cache.set(cache_key, body, ENTRY_SECONDS)
    return body


def versioned_response(
    request: HttpRequest,
    *,
    version: int,
    key: str,
    content_type: str,
    build: Callable[[], HttpResponse],
    public: bool,
    vary: tuple[str, ...] = (),
) -> HttpResponse:
    """The response for (version, key): cached, tagged and public, or built and private.

    `public` is False when the response carries the visitor's own content (logged in):
    it is then built by `build` every time and marked private, no-store. `vary` names
    the request headers besides the URL that the key depends on (say, Accept for an
    API that negotiates its format), for shared caches to keep their copies apart.
    """
    if not public:
        response = build()
        mark_private(response)
    else:
        response = _public_response(request, version, key, content_type, build)
    if vary:  # patching with nothing would write an empty Vary, then an empty token
        patch_vary_headers(response, vary)
    return response


def _public_response(
    request: HttpRequest,
    version: int,
    key: str,
    content_type: str,
    build: Callable[[], HttpResponse],
) -> HttpResponse:
    etag = etag_for(version=version, key=key, content_type=content_type)
    if etag_matches(request, etag):
        response: HttpResponse = HttpResponseNotModified()
    else:
        body = cached_bytes(
            version=version, key=f"{content_type} {key}", build=lambda: build().content
        )
        response = HttpResponse(body, content_type=content_type)
    mark_public(response, etag)
    return response


def etag_for(*, version: int, key: str, content_type: str) -> str:
    """A strong ETag for the identity bytes; compression weakens it (arena.compression)."""
    return f'"s{version}-{_digest(f"{content_type} {key}")[:20]}"'


def etag_matches(request: HttpRequest, etag: str) -> bool:
    """If-None-Match names this ETag (weak comparison, RFC 9110 13.1.2), or is `*`."""
    header = request.META.get("HTTP_IF_NONE_MATCH", "")
    if not header:
        return False
    wanted = _opaque(etag)
    return any(tag == "*" or _opaque(tag) == wanted for tag in parse_etags(header))


def mark_public(response: HttpResponse, etag: str) -> None:
    response["ETag"] = etag
    patch_cache_control(response, public=True, max_age=PUBLIC_MAX_AGE)


def mark_private(response: HttpResponse) -> None:
    # Never reused by a shared cache, nor kept by the browser: it names the visitor and
    # carries their CSRF token.
    patch_cache_control(response, private=True, no_store=True, max_age=0)


def _opaque(tag: str) -> str:
    return tag.removeprefix("W/").strip('"')


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()
