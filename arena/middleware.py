"""Refuse a NUL character anywhere in a request's URL (path or query string).

PostgreSQL text cannot hold NUL, so a `%00` that reaches a query (a board filter, an
admin changelist search, a slug) fails there with a server error. No page, API or admin
filter has a use for one; refusing it here, before any view runs, covers them all.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse

MESSAGE = "The URL contains a NUL character (%00), which no page or API accepts."


class RefuseNulMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if has_nul(request):
            if request.path_info.startswith("/api/"):
                return JsonResponse({"detail": MESSAGE}, status=400)
            return HttpResponseBadRequest(MESSAGE, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


def has_nul(request: HttpRequest) -> bool:
    # The query string arrives still percent-encoded; the path arrives decoded.
    query = request.META.get("QUERY_STRING", "")
    return "%00" in query or "\0" in query or "\0" in request.path_info
