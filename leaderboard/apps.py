from __future__ import annotations

from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    verbose_name = "Boards and moderation"

    def ready(self) -> None:
        # The recompute room listens to ingestion's "evidence changed" announcement.
        from leaderboard.recompute import receivers  # noqa: F401

        # The web layer warms each new snapshot's pages as it is swapped in.
        # ...and sends the alert e-mails of each new snapshot once it commits.
        from leaderboard.web import (
            alert_mail,  # noqa: F401
            warm,  # noqa: F401
        )
