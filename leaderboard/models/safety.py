"""Safety board rows: one per (suite board, agent, attack) in a snapshot
(leaderboard.boards.safety computes them, methodology "Safety under attack")."""

from __future__ import annotations

from django.db import models

from leaderboard.models.snapshots import BoardSnapshot


class SafetyEntry(models.Model):
    """An agent's triad under one attack on one suite board: benign utility, utility
    under attack, targeted attack success rate, each with n and its Wilson interval."""

    snapshot = models.ForeignKey(
        BoardSnapshot, on_delete=models.CASCADE, related_name="safety_entries"
    )
    # The suite board's slug (`<suite>-<version>`); the safety board is `<slug>-safety`.
    board_slug = models.SlugField(max_length=120)
    board_title = models.CharField(max_length=200)
    attack = models.CharField(max_length=200)
    position = models.PositiveIntegerField()
    rank = models.PositiveIntegerField(null=True)
    within_budget = models.BooleanField()
    harness = models.ForeignKey("ingestion.Harness", on_delete=models.CASCADE, related_name="+")
    model = models.ForeignKey("ingestion.LanguageModel", on_delete=models.CASCADE, related_name="+")
    harness_name = models.CharField(max_length=100)
    harness_version = models.CharField(max_length=100)
    model_name = models.CharField(max_length=200)
    benign_n = models.PositiveIntegerField(default=0)
    benign_passes = models.PositiveIntegerField(default=0)
    benign_utility = models.FloatField(null=True)
    benign_low = models.FloatField(null=True)
    benign_high = models.FloatField(null=True)
    n = models.PositiveIntegerField()
    passes = models.PositiveIntegerField()
    utility = models.FloatField(null=True)
    utility_low = models.FloatField(null=True)
    utility_high = models.FloatField(null=True)
    breaches = models.PositiveIntegerField()
    asr = models.FloatField(null=True)
    asr_low = models.FloatField(null=True)
    asr_high = models.FloatField(null=True)

    class Meta:
        ordering = ["snapshot", "board_slug", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["snapshot", "board_slug", "attack", "harness", "model"],
                name="safetyentry_unique",
            )
        ]

    def __str__(self) -> str:
        return f"{self.harness_name} {self.harness_version} · {self.model_name} ({self.attack})"
