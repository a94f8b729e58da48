"""SafetyRollup: the runs under attack, which no other rollup holds any more; the rollups
of submissions that hold such runs are rebuilt (ingestion.rollups.safety_sql)."""

import django.db.models.deletion
from django.db import migrations, models

# The rule of ingestion.rollups.safety_sql, as it stood when this migration was written.
ATTACKED = "nullif(coalesce(extra ->> 'attack', 'none'), 'none') IS NOT NULL"


def rebuild_attacked(apps, schema_editor) -> None:
    """Rebuild the rollups of the submissions holding runs under attack: they were
    rolled up with the benign runs before."""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"SELECT DISTINCT submission_id FROM ingestion_run WHERE {ATTACKED}")
        ids = [row[0] for row in cursor.fetchall()]
    if ids:
        from ingestion.services.rollups import rollups_rebuild

        rollups_rebuild(submission_ids=ids)


class Migration(migrations.Migration):
    dependencies = [
        ("ingestion", "0025_task_human_time"),
    ]

    operations = [
        migrations.CreateModel(
            name="SafetyRollup",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("attack", models.CharField(max_length=200)),
                ("runs", models.IntegerField()),
                ("counted", models.IntegerField()),
                ("passes", models.IntegerField()),
                ("breaches", models.IntegerField()),
                (
                    "harness",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="ingestion.harness",
                    ),
                ),
                (
                    "model",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="ingestion.languagemodel",
                    ),
                ),
                (
                    "submission",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="ingestion.submission",
                    ),
                ),
                (
                    "suite",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="ingestion.suite",
                    ),
                ),
                (
                    "task",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="ingestion.task",
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["harness"], name="safetyrollup_harness")],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("submission", "harness", "model", "task", "attack"),
                        name="safetyrollup_group_unique",
                    )
                ],
            },
        ),
        migrations.RunPython(rebuild_attacked, migrations.RunPython.noop),
    ]
