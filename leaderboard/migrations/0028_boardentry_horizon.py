"""The time horizon of board entries (from their per-task counts and the tasks' human
minutes). No recompute is requested: no task has human minutes until the registry
states them, and loading the registry recomputes the boards."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0027_boardentry_traces"),
        ("ingestion", "0025_task_human_time"),
    ]

    operations = [
        migrations.AddField(
            model_name="boardentry",
            name="horizon",
            field=models.JSONField(default=dict),
        ),
    ]
