"""SWE-bench results and task matrices join the native formats."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ingestion", "0023_native_format_agentdojo"),
    ]

    operations = [
        migrations.AlterField(
            model_name="submission",
            name="native_format",
            field=models.CharField(
                blank=True,
                choices=[
                    ("harbor", "harbor"),
                    ("tau-bench", "tau-bench"),
                    ("tau2-bench", "tau2-bench"),
                    ("claude-code", "claude-code"),
                    ("agentdojo", "agentdojo"),
                    ("swebench", "swebench"),
                    ("task-matrix", "task-matrix"),
                ],
                max_length=20,
            ),
        ),
    ]
