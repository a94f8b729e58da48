from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

app = Celery("arena")
# Every CELERY_* Django setting configures the app (broker, eager mode, limits).
app.config_from_object("django.conf:settings", namespace="CELERY")
# Task modules: each app's `tasks`, and the recompute and effects rooms'.
app.autodiscover_tasks(["ingestion", "leaderboard.recompute", "leaderboard.effects"])
