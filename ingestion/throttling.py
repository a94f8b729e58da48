"""The upload rate limit, one for the API and the web form (ARENA_UPLOAD_RATE), and
the limit on creating and rotating API tokens.

Both count in the default cache, which every process shares (Redis or the database:
arena/settings.py), so the limits hold however many web workers serve. A count is one
atomic increment, never a read-modify-write of a history, so simultaneous requests
cannot pass the limit together. While Redis is unreachable the counts move to the
database cache: uploads are still limited (and still accepted), never let through
unlimited nor refused for an outage. Reading is never limited.
"""

from __future__ import annotations

import time
from contextlib import suppress
from dataclasses import dataclass
from types import SimpleNamespace

from django.core.cache import caches
from django.http import HttpRequest
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from arena.cache import CacheUnavailable

UPLOAD_THROTTLE_SCOPE = "uploads"
API_TOKEN_RATE = "10/hour"
PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True)
class Rate:
    limit: int
    window_s: int

    @classmethod
    def parse(cls, text: str) -> Rate:
        """DRF's notation: "30/hour", "5/min", "100/day", "2/s"."""
        count, period = text.split("/")
        return cls(int(count), PERIODS[period.strip()[0]])


@dataclass(frozen=True)
class Usage:
    previous: int  # the previous window's count
    current: int  # this window's, before the request
    elapsed: float  # seconds into this window

    def weighed(self, window_s: int) -> float:
        """Requests in the last window_s seconds, the previous window's taken pro rata."""
        return self.previous * (1 - self.elapsed / window_s) + self.current


def wait_seconds(usage: Usage, rate: Rate) -> float:
    """Seconds until one more request fits, for a request that did not."""
    limit, window = rate.limit, rate.window_s
    room = limit - 1 - usage.current
    if room >= 0:  # this window has room once the previous one has faded enough
        if not usage.previous:
            return 0.0
        return max(0.0, window * (1 - room / usage.previous) - usage.elapsed)
    fade = window * (1 - (limit - 1) / usage.current) if usage.current else 0.0
    return window - usage.elapsed + max(0.0, fade)


class WindowCounter:
    """A sliding-window limit on atomic increments: each window of `window_s` seconds
    has a counter, and a request passes while the previous window's count, weighted by
    how much of it still lies in the last `window_s` seconds, plus this window's (the
    request's own increment included) stays within the limit. Every increment sees its
    own count, so at most `limit` pass however many arrive at once; one refused takes
    its increment back."""

    def __init__(self, scope: str, rate: Rate) -> None:
        self.scope, self.rate = scope, rate

    def hit(self, ident: object) -> float | None:
        """Count a request: None when it may pass, else the seconds to wait."""
        try:
            return self._hit(caches["default"], ident)
        except CacheUnavailable:
            return self._hit(caches["database"], ident)

    def usage(self, ident: object) -> int:
        """Requests counted in the last window (the shared cache's view)."""
        usage = self._usage(caches["default"], ident, time.time(), counted=0)
        return round(usage.weighed(self.rate.window_s))

    def reset(self, ident: object) -> None:
        index = int(time.time() // self.rate.window_s)
        keys = [self._key(ident, index), self._key(ident, index - 1)]
        for alias in ("default", "database"):
            caches[alias].delete_many(keys)

    def _hit(self, cache, ident: object) -> float | None:
        now = time.time()
        key = self._key(ident, int(now // self.rate.window_s))
        # A key outlives its window by a whole window: it is never incremented after it
        # expired (which would make one without an expiry).
        cache.add(key, 0, timeout=2 * self.rate.window_s)
        try:
            count = cache.incr(key)
        except ValueError:  # the database cache culled it meanwhile
            cache.set(key, 1, timeout=2 * self.rate.window_s)
            count = 1
        usage = self._usage(cache, ident, now, counted=count)
        if usage.weighed(self.rate.window_s) + 1 <= self.rate.limit:
            return None
        with suppress(CacheUnavailable):  # gone meanwhile: this refusal stays counted
            cache.decr(key)
        return wait_seconds(usage, self.rate)

    def _usage(self, cache, ident: object, now: float, *, counted: int | None) -> Usage:
        """The counts around `now`; `counted` is this window's count with the request's
        own increment (0: read it), so the usage is what was there before it."""
        index, elapsed = divmod(now, self.rate.window_s)
        current_key, previous_key = self._key(ident, int(index)), self._key(ident, int(index) - 1)
        found = cache.get_many([previous_key] if counted else [previous_key, current_key])
        current = counted - 1 if counted else found.get(current_key, 0)
        return Usage(found.get(previous_key, 0), current, elapsed)

    def _key(self, ident: object, index: int) -> str:
        return f"limit:{self.scope}:{ident}:{index}"


def upload_limiter() -> WindowCounter | None:
    """The upload limit (ARENA_UPLOAD_RATE), or None when uploads are not limited."""
    text = api_settings.DEFAULT_THROTTLE_RATES.get(UPLOAD_THROTTLE_SCOPE)
    return WindowCounter(UPLOAD_THROTTLE_SCOPE, Rate.parse(text)) if text else None


def api_token_limiter() -> WindowCounter:
    return WindowCounter("api_tokens", Rate.parse(API_TOKEN_RATE))


def _ident(request) -> object:
    user = request.user
    return user.pk if user.is_authenticated else f"address:{BaseThrottle().get_ident(request)}"


class UploadThrottle(BaseThrottle):
    """Rate-limits uploads per account; reading your submissions is not limited."""

    def allow_request(self, request, view) -> bool:
        self.waiting: float | None = None
        limiter = upload_limiter()
        if request.method != "POST" or limiter is None:
            return True
        self.waiting = limiter.hit(_ident(request))
        return self.waiting is None

    def wait(self) -> float | None:
        return self.waiting


def upload_wait(request: HttpRequest) -> float | None:
    """For the web form: None when this account may upload now (the upload is counted,
    in the same count as the API's), else the seconds until it may."""
    throttle = UploadThrottle()
    if throttle.allow_request(request, SimpleNamespace(throttle_scope=UPLOAD_THROTTLE_SCOPE)):
        return None
    return throttle.wait() or 0.0


class ApiTokenThrottle(BaseThrottle):
    """Creating and rotating one's API token, per account: enough for any real need, and
    a cap on a script (or a stolen session) minting keys."""

    def allow_request(self, request, view) -> bool:
        self.waiting = api_token_limiter().hit(request.user.pk)
        return self.waiting is None

    def wait(self) -> float | None:
        return self.waiting


def api_token_wait(request: HttpRequest) -> float | None:
    """None when this account may create or rotate its token now (counted), else the
    seconds until it may."""
    throttle = ApiTokenThrottle()
    if throttle.allow_request(request, None):
        return None
    return throttle.wait() or 0.0
