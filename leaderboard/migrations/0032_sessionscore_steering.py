"""Finer steering: SessionScore's turns to recover and its bash episodes fixed before the
user's next words.

The new columns default to 0. Stored scores of the older SCORING_VERSION are scored
again by the next recompute (signalboard.scoring), which fills them in; where sessions
exist, a recompute of everything is requested here (the outbox's periodic sweep runs
it), as migration 0020 does, so a deploy needs no manual `recompute` for the new
figures to reach the boards.
"""

from django.db import migrations, models


def request_recompute(apps, schema_editor) -> None:
    if not apps.get_model("ingestion", "Session").objects.exists():
        return
    apps.get_model("leaderboard", "RecomputeRequest").objects.create(
        harness_ids=None,
        sessions=True,
        cause_kind="other",
        cause_label="Signal rules changed (turns to recover, bash recovery before and after"
        " the user's words)",
    )


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0031_alerts_signal_history")]

    operations = [
        migrations.AddField(
            model_name="sessionscore",
            name="corrections_open",
            field=models.PositiveIntegerField(
                default=0, help_text="corrections the session ended before recovering from"
            ),
        ),
        migrations.AddField(
            model_name="sessionscore",
            name="corrections_recovered",
            field=models.PositiveIntegerField(
                default=0, help_text="corrections the model got back on track from"
            ),
        ),
        migrations.AddField(
            model_name="sessionscore",
            name="episodes_unaided",
            field=models.PositiveIntegerField(
                default=0, help_text="bash episodes resolved before the user's next words"
            ),
        ),
        migrations.AddField(
            model_name="sessionscore",
            name="recovery_turns",
            field=models.PositiveIntegerField(
                default=0,
                help_text="sum of the turns to recover of the corrections recovered from",
            ),
        ),
        migrations.RunPython(request_recompute, migrations.RunPython.noop),
    ]
