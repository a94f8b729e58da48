"""Tasks carry a human time and a family, suites a time-horizon fitting mode."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ingestion", "0024_native_formats_swebench_task_matrix"),
    ]

    operations = [
        migrations.AddField(
            model_name="task",
            name="human_minutes",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="task",
            name="family",
            field=models.CharField(blank=True, db_default="", max_length=100),
        ),
        migrations.AddField(
            model_name="suite",
            name="horizon_mode",
            field=models.CharField(
                choices=[("headline", "headline"), ("cross_domain", "cross_domain")],
                db_default="headline",
                default="headline",
                max_length=20,
            ),
        ),
    ]
