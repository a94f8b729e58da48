"""Who follows what, and which alert e-mails went out (so none goes out twice)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from ingestion.models import Harness, LanguageModel


class Follow(models.Model):
    """An account's opt-in to alerts about an agent (a harness version with a model, on
    the benchmark boards) or a model on the signal boards (no harness)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="follows"
    )
    harness = models.ForeignKey(
        Harness, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    model = models.ForeignKey(LanguageModel, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["user", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "harness", "model"], name="follow_unique", nulls_distinct=False
            )
        ]
        indexes = [
            models.Index(fields=["harness", "model"], name="follow_agent"),
            models.Index(fields=["model"], condition=Q(harness=None), name="follow_signal_model"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} follows {self.harness_id or 'signals'} · {self.model_id}"

    @property
    def is_agent(self) -> bool:
        return self.harness_id is not None


class AlertDelivery(models.Model):
    """One account's alert e-mail for one snapshot: written in the transaction that
    sends it, so a second delivery of the task for that snapshot finds it and skips."""

    snapshot_id = models.BigIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    sent_at = models.DateTimeField(auto_now_add=True)
    moves = models.PositiveIntegerField(help_text="the moves past an interval it told of")

    class Meta:
        ordering = ["-snapshot_id", "pk"]
        verbose_name_plural = "alert deliveries"
        constraints = [
            models.UniqueConstraint(fields=["snapshot_id", "user"], name="alertdelivery_unique")
        ]

    def __str__(self) -> str:
        return f"alert to {self.user_id} for snapshot {self.snapshot_id}"
