"""Refuse a request body past its limit from its Content-Length, before reading it.

Django only notices an oversized body while reading it (and the upload views only
after storing ARENA_MAX_UPLOAD_BYTES of it): a 250 MB upload was received whole before
being refused. Here the declared length is enough. The upload endpoints take a bundle
(ARENA_MAX_UPLOAD_BYTES plus the multipart framing); every other request at most
DATA_UPLOAD_MAX_MEMORY_SIZE. A body sent without a Content-Length (chunked) is not
read by Django at all; the web server in front bounds it too (docker/README.md).
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse

# Room for the multipart boundary, headers and the small form fields beside the file.
MULTIPART_OVERHEAD_BYTES = 64 * 1024
UPLOAD_URL_NAMES = ("submit", "api-submissions")


class BodyLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response
        self._upload_paths: frozenset[str] | None = None

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return _refuse(request, 400, "The Content-Length header is not a number.")
        limit = self.limit_for(request.path_info)
        if declared > limit:
            return _refuse(
                request, 413, f"The request body is larger than the limit of {limit:,} bytes."
            )
        return self.get_response(request)

    def limit_for(self, path: str) -> int:
        if self._upload_paths is None:  # URLs resolve only once the URLconf is loaded
            self._upload_paths = frozenset(reverse(name) for name in UPLOAD_URL_NAMES)
        if path in self._upload_paths:
            return settings.ARENA_MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD_BYTES
        return settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def _refuse(request: HttpRequest, status: int, message: str) -> HttpResponse:
    # (A WSGI application may not send "Connection: close"; the server discards the
    # unread body itself, and nginx in front refuses it first: docker/nginx.conf.)
    if request.path_info.startswith("/api/"):
        return JsonResponse({"detail": message}, status=status)
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")
