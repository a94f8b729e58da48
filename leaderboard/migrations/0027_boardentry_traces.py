"""Trajectory figures and rule-violation counts of board entries (from the trace
rollups). No recompute is requested: no run has a trace until the registry states
reference calls or rules, and loading those recomputes the boards."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0026_boardentry_coverage_run_config"),
        ("ingestion", "0023_native_format_agentdojo"),
    ]

    operations = [
        migrations.AddField(
            model_name="boardentry",
            name="trajectory",
            field=models.JSONField(default=dict),
        ),
        migrations.AddField(
            model_name="boardentry",
            name="violations",
            field=models.JSONField(default=dict),
        ),
    ]
