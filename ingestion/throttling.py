"""The upload rate limit, one for the API and the web form (ARENA_UPLOAD_RATE).

Its history lives in the default cache, which every process shares (Redis or the
database: arena/settings.py), so the limit holds however many web workers serve.
"""

from __future__ import annotations

from types import SimpleNamespace

from django.http import HttpRequest
from rest_framework.throttling import ScopedRateThrottle

UPLOAD_THROTTLE_SCOPE = "uploads"


class UploadThrottle(ScopedRateThrottle):
    """Rate-limits uploads per account; reading your submissions is not limited."""

    def allow_request(self, request, view) -> bool:
        if request.method != "POST":
            return True
        return super().allow_request(request, view)


def upload_wait(request: HttpRequest) -> float | None:
    """For the web form: None when this account may upload now (the upload is counted,
    in the same history as the API's), else the seconds until it may."""
    throttle = UploadThrottle()
    if throttle.allow_request(request, SimpleNamespace(throttle_scope=UPLOAD_THROTTLE_SCOPE)):
        return None
    return throttle.wait() or 0.0
