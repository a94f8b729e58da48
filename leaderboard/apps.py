from __future__ import annotations

from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    verbose_name = "Boards and moderation"

    def ready(self) -> None:
        # The recompute room listens to ingestion's "evidence changed" announcement.
        from leaderboard.recompute import receivers  # noqa: F401
