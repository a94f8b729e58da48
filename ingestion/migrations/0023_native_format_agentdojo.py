"""AgentDojo joins the native formats a submission may hold."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ingestion", "0022_traces"),
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
                ],
                max_length=20,
            ),
        ),
    ]
