"""Traces: a run's trace read against reference calls and rules, and their rollups."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ingestion", "0021_task_published"),
    ]

    operations = [
        migrations.CreateModel(
            name="RunTrace",
            fields=[
                (
                    "run",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="trace",
                        serialize=False,
                        to="ingestion.run",
                    ),
                ),
                ("figures", models.JSONField(blank=True, default=dict)),
                ("calls", models.IntegerField(default=0)),
                ("reference_calls", models.IntegerField(null=True)),
                ("failed_calls", models.IntegerField(default=0)),
                ("ignored_calls", models.IntegerField(default=0)),
                ("alignment", models.JSONField(blank=True, default=list)),
                ("violations", models.JSONField(blank=True, null=True)),
            ],
        ),
        migrations.AddField(
            model_name="suite",
            name="rules",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name="suite",
            name="trajectory",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name="task",
            name="reference_calls",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.CreateModel(
            name="TraceRollup",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("outcome", models.CharField(max_length=20)),
                ("figure", models.CharField(max_length=40)),
                ("total", models.FloatField()),
                ("runs", models.IntegerField()),
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
                    "task",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="ingestion.task",
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["harness"], name="tracerollup_harness")],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("submission", "harness", "model", "task", "outcome", "figure"),
                        name="tracerollup_group_unique",
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="ViolationRollup",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("outcome", models.CharField(max_length=20)),
                ("rule", models.CharField(blank=True, max_length=100)),
                ("runs", models.IntegerField()),
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
                    "task",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="ingestion.task",
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["harness"], name="violationrollup_harness")],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("submission", "harness", "model", "task", "outcome", "rule"),
                        name="violationrollup_group_unique",
                    )
                ],
            },
        ),
    ]
