"""Session conflicts and the signal boards' provenance.

The session conflict rule, written once as the `leaderboard_sessionconflictpair` view
(methodology §3.3): an (account, model) pair is shown by the data when the account
belongs to an organisation that makes or serves the model (the model's `organisation`
or `provider` is the organisation's name, case and surrounding spaces aside, or an
administrator listed the model under it). A shown pair is excluded unless its latest
decision dismissed it; a pair whose latest decision confirmed it is excluded whatever
the data shows. The signal boards read `excluded`; the moderators' queue reads the rest.
Moderators may see the queue, the decisions and the organisations.
"""

import django.contrib.postgres.fields
import django.db.models.deletion
from django.conf import settings
from django.contrib.auth.management import create_permissions
from django.db import migrations, models

SESSION_CONFLICT_VIEW = """
CREATE OR REPLACE VIEW leaderboard_sessionconflictpair AS
WITH makers AS (
    SELECT o.id AS organisation_id, o.name, m.id AS model_id
    FROM ingestion_organisation o
    JOIN ingestion_languagemodel m
      ON lower(btrim(m.organisation)) = lower(btrim(o.name))
      OR lower(btrim(m.provider)) = lower(btrim(o.name))
    UNION
    SELECT o.id, o.name, om.languagemodel_id
    FROM ingestion_organisation o
    JOIN ingestion_organisation_made_models om ON om.organisation_id = o.id
),
shown AS (
    SELECT mem.user_id AS account_id, mk.model_id,
           array_agg(DISTINCT mk.name ORDER BY mk.name)::varchar[] AS organisations
    FROM ingestion_organisation_members mem
    JOIN makers mk ON mk.organisation_id = mem.organisation_id
    GROUP BY mem.user_id, mk.model_id
),
latest_decisions AS (
    SELECT DISTINCT ON (account_id, model_id) id, account_id, model_id, decision
    FROM leaderboard_sessionconflictdecision
    ORDER BY account_id, model_id, decided_at DESC, id DESC
),
pairs AS (
    SELECT account_id, model_id FROM shown
    UNION
    SELECT account_id, model_id FROM latest_decisions
)
SELECT pairs.account_id::text || '-' || pairs.model_id::text AS id,
       pairs.account_id,
       pairs.model_id,
       sh.account_id IS NOT NULL AS shown_by_data,
       COALESCE(sh.organisations, '{}'::varchar[]) AS organisations,
       (SELECT count(*)::int
        FROM ingestion_session s
        JOIN ingestion_submission sub ON sub.id = s.submission_id AND sub.status = 'ingested'
        WHERE sub.uploader_id = pairs.account_id AND s.model_id = pairs.model_id
       ) AS sessions_affected,
       CASE WHEN d.decision = 'dismiss' THEN 'dismissed'
            WHEN d.decision = 'confirm' THEN 'confirmed'
            ELSE 'excluded' END AS state,
       d.id IS NULL AS needs_review,
       d.id AS latest_decision_id,
       d.decision IS DISTINCT FROM 'dismiss' AS excluded
FROM pairs
LEFT JOIN shown sh ON sh.account_id = pairs.account_id AND sh.model_id = pairs.model_id
LEFT JOIN latest_decisions d ON d.account_id = pairs.account_id AND d.model_id = pairs.model_id
"""

# Added to the moderator group of migration 0004 (leaderboard.moderation.accounts keeps
# the living list). Deciding uses the benchmark conflicts' own permission.
MODERATOR_PERMISSIONS = {
    "leaderboard": ["view_sessionconflictpair", "view_sessionconflictdecision"],
    "ingestion": ["view_organisation"],
}


def moderator_permissions_add(apps, schema_editor) -> None:
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name="moderator").first()
    if group is None:
        return
    for app_label, codenames in MODERATOR_PERMISSIONS.items():
        group.permissions.add(
            *Permission.objects.filter(content_type__app_label=app_label, codename__in=codenames)
        )


class Migration(migrations.Migration):
    dependencies = [
        ("ingestion", "0028_organisation"),
        ("leaderboard", "0032_sessionscore_steering"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="SessionConflictPair",
            fields=[
                (
                    "id",
                    models.CharField(
                        help_text="account id-model id",
                        max_length=50,
                        primary_key=True,
                        serialize=False,
                    ),
                ),
                (
                    "shown_by_data",
                    models.BooleanField(
                        help_text="the account belongs to an organisation that makes or serves the model"
                    ),
                ),
                (
                    "organisations",
                    django.contrib.postgres.fields.ArrayField(
                        base_field=models.CharField(max_length=100), size=None
                    ),
                ),
                (
                    "sessions_affected",
                    models.IntegerField(help_text="sessions of ingested submissions"),
                ),
                (
                    "state",
                    models.CharField(
                        choices=[
                            ("excluded", "excluded, not reviewed"),
                            ("confirmed", "excluded, confirmed"),
                            ("dismissed", "counted, dismissed"),
                        ],
                        max_length=10,
                    ),
                ),
                ("needs_review", models.BooleanField()),
                (
                    "excluded",
                    models.BooleanField(
                        help_text="the signal boards leave this pair's sessions out"
                    ),
                ),
            ],
            options={
                "verbose_name": "session conflict",
                "verbose_name_plural": "session conflict queue",
                "db_table": "leaderboard_sessionconflictpair",
                "ordering": ["-needs_review", "-sessions_affected", "id"],
                "managed": False,
            },
        ),
        migrations.CreateModel(
            name="SessionConflictDecision",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "decision",
                    models.CharField(
                        choices=[("confirm", "Confirm"), ("dismiss", "Dismiss")], max_length=10
                    ),
                ),
                ("reason", models.TextField()),
                ("decided_at", models.DateTimeField(auto_now_add=True)),
                (
                    "account",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "decided_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "model",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="ingestion.languagemodel",
                    ),
                ),
            ],
            options={
                "ordering": ["-decided_at", "-id"],
                "indexes": [
                    models.Index(
                        fields=["account", "model", "-decided_at"],
                        name="leaderboard_account_d2626d_idx",
                    )
                ],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("reason", ""), _negated=True),
                        name="sessionconflictdecision_reason_required",
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="SignalUploader",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("model_name", models.CharField(max_length=200)),
                ("account_name", models.CharField(max_length=150)),
                ("sessions", models.PositiveIntegerField(help_text="counted sessions")),
                (
                    "confirmed",
                    models.PositiveIntegerField(help_text="of them, confirmed successes"),
                ),
                ("conflict_excluded", models.PositiveIntegerField(default=0)),
                (
                    "account",
                    models.ForeignKey(
                        db_constraint=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "snapshot",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="signal_uploaders",
                        to="leaderboard.boardsnapshot",
                    ),
                ),
            ],
            options={
                "ordering": ["snapshot", "model_name", "-sessions", "account_name"],
                "indexes": [
                    models.Index(fields=["snapshot", "model_name"], name="signaluploader_model_idx")
                ],
            },
        ),
        migrations.RunSQL(
            SESSION_CONFLICT_VIEW, "DROP VIEW IF EXISTS leaderboard_sessionconflictpair"
        ),
        migrations.RunPython(moderator_permissions_add, migrations.RunPython.noop),
    ]
