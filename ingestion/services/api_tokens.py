"""A submitter's own API token: created by an explicit request, shown once, rotated.

Only the key's SHA-256 is stored (ingestion.models.ApiToken): the key is in the
response that created it and nowhere else, so a copy of the database holds no usable
key. A key is 160 random bits (as DRF's were), so one unsalted hash suffices: nothing
can be guessed (docs/decisions.md). The operator's tools (revoke, rotate for another
account) are leaderboard.moderation.accounts.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from django.db import IntegrityError, transaction

from ingestion.models import ApiToken

# 20 random bytes, written as 40 hex digits: DRF's form, which clients already accept.
KEY_BYTES = 20


@dataclass(frozen=True)
class IssuedToken:
    token: ApiToken
    key: str  # the plaintext, for the one response that shows it


def api_key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _issue(user) -> IssuedToken:
    key = secrets.token_hex(KEY_BYTES)
    return IssuedToken(ApiToken.objects.create(user=user, key_hash=api_key_hash(key)), key)


def api_token_create(*, user) -> IssuedToken | None:
    """A first API token for `user`, or None when they already have one (whose key is
    not shown again: rotating it is the way to a key they can see)."""
    if ApiToken.objects.filter(user=user).exists():
        return None
    try:
        with transaction.atomic():
            return _issue(user)
    except IntegrityError:  # a second tab created it in between (one token per user)
        return None


@transaction.atomic
def api_token_rotate(*, user) -> IssuedToken:
    """Replace `user`'s API token with a new one; the old key stops working at once."""
    ApiToken.objects.filter(user=user).delete()
    return _issue(user)


def api_token_revoke(*, user) -> bool:
    """Delete `user`'s API token; True when there was one."""
    deleted, _ = ApiToken.objects.filter(user=user).delete()
    return bool(deleted)


def api_token_find(*, key: str) -> ApiToken | None:
    """The token with this key (its account selected), or None."""
    return ApiToken.objects.select_related("user").filter(key_hash=api_key_hash(key)).first()
