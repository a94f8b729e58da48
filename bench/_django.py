"""Set up Django for a bench script run as `python bench/<name>.py` from the project root."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def setup(*, page_warm: bool = False) -> None:
    """Django, without the page warm of each new snapshot unless `page_warm`: in
    production a worker renders those pages apart from the ingest; in a bench without
    a broker it would run inside every timed ingest and recompute. bench/pages.py,
    which measures what it saves, keeps it."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    import django

    django.setup()
    if not page_warm:
        from leaderboard.recompute.announcements import snapshot_filling, snapshot_swapping
        from leaderboard.web.warm import FILL_RECEIVER, WARM_RECEIVER

        snapshot_swapping.disconnect(dispatch_uid=WARM_RECEIVER)
        snapshot_filling.disconnect(dispatch_uid=FILL_RECEIVER)


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_account(username: str):
    """The account a bench uploads with: staff, so its uploads publish at once. An
    account of that name made earlier (by another phase, or without staff rights) is
    given the rights, so a bench never waits on review."""
    from django.contrib.auth import get_user_model

    user, _ = get_user_model().objects.get_or_create(username=username)
    if not user.is_staff:
        user.is_staff = True
        user.save(update_fields=["is_staff"])
    return user
