"""Organisations: accounts that belong together, and the models they make or serve.

An organisation makes or serves a model when the model's registry `organisation` (who
made it) or `provider` (who serves it) is the organisation's name (case and surrounding
spaces aside), or when an administrator lists the model under it. Sessions its member
accounts upload of such a model are conflict-excluded from that model's signal ranking;
the rule is written once, as the `leaderboard_sessionconflictpair` database view.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Organisation(models.Model):
    name = models.CharField(
        max_length=100,
        unique=True,
        help_text="as the registry names it as a model's organisation or provider",
    )
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="organisations",
        help_text="accounts that belong to this organisation",
    )
    made_models = models.ManyToManyField(
        "ingestion.LanguageModel",
        blank=True,
        related_name="organisations",
        help_text="models it makes or serves that the registry does not name it for",
    )

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=~models.Q(name=""), name="organisation_name_not_blank")
        ]

    def __str__(self) -> str:
        return self.name
