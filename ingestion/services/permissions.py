"""The one permission check every service that changes evidence makes itself.

Services check the acting user, so the admin and the API are thin layers and no other
caller can skip the check.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError


def permission_require(user, perm: str) -> None:
    """Raise PermissionDenied unless `user` is active and holds `perm`."""
    if user is None or not user.is_active or not user.has_perm(perm):
        raise PermissionDenied(f"{getattr(user, 'username', 'anonymous')} lacks {perm}")


def reason_require(reason: str | None) -> str:
    """A decision's reason, stripped; refused when empty (every decision is explained)."""
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError("a reason is required")
    return reason
