"""The client's address, for login throttling (django-axes' AXES_CLIENT_IP_CALLABLE).

Behind the proxy of docker/nginx.conf every request comes from the proxy, so
REMOTE_ADDR alone would lock out everyone who tries one username. The proxy overwrites
X-Forwarded-For with the address it saw, so with ARENA_BEHIND_PROXY=1 its last entry
is trusted; without a proxy the header is the client's own word and is ignored.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str | None:
    if settings.ARENA_BEHIND_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        last = forwarded.rsplit(",", 1)[-1].strip()
        if last:
            return last
    return request.META.get("REMOTE_ADDR")
