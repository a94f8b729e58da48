"""Per-session scores: each session scored once for the signal boards."""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models.functions import Now


class SessionScore(models.Model):
    """One session's own contribution to the signal boards, scored once.

    Written by leaderboard.signalboard.scoring for every session that has none yet (or
    one of an older `version`); a signal recompute aggregates these rows and never reads
    turns again. The model, scenario, confirmation and counting status are joined from
    the session when aggregating, so a model merge or a withdrawal needs no rescoring.
    Edits to a scored session's turns, tool calls or toolset delete its row (database
    triggers of migration 0013), so the next recompute scores it afresh. The foreign key
    cascades in the database too: raw deletes of sessions take their scores with them.
    """

    session = models.OneToOneField(
        "ingestion.Session",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="score",
        # Declared by migration 0013 with ON DELETE CASCADE (Django 5.2 cannot).
        db_constraint=False,
    )
    version = models.PositiveSmallIntegerField()
    scored_at = models.DateTimeField(db_default=Now())
    # The highest turn and tool-call ids when this row was scored: rows added later to a
    # scored session (an admin edit) are found above them (see scoring.py).
    turns_seen = models.BigIntegerField()
    calls_seen = models.BigIntegerField()
    praise_complaint = models.BooleanField(null=True, help_text="null: not scored")
    assistant_turns = models.PositiveIntegerField()
    effort = models.PositiveIntegerField(help_text="sum of the steering efforts")
    episodes = models.PositiveIntegerField(help_text="bash episodes")
    episode_score = models.FloatField(help_text="sum of the bash episode scores")
    attempts = ArrayField(
        models.PositiveIntegerField(), default=list, help_text="attempts of resolved episodes"
    )
    tool_calls = models.PositiveIntegerField(null=True, help_text="null: no toolset")
    hallucinated = models.PositiveIntegerField()
    shell_calls = models.PositiveIntegerField()
    shell_successes = models.PositiveIntegerField()
    claims = models.PositiveIntegerField(
        default=0, help_text="assistant turns claiming a capability the toolset lacks"
    )
    episodes_unaided = models.PositiveIntegerField(
        default=0, help_text="bash episodes resolved before the user's next words"
    )
    recovery_turns = models.PositiveIntegerField(
        default=0, help_text="sum of the turns to recover of the corrections recovered from"
    )
    corrections_recovered = models.PositiveIntegerField(
        default=0, help_text="corrections the model got back on track from"
    )
    corrections_open = models.PositiveIntegerField(
        default=0, help_text="corrections the session ended before recovering from"
    )

    class Meta:
        verbose_name = "session score"

    def __str__(self) -> str:
        return f"score of session {self.session_id} (v{self.version})"
