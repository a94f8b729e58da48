"""The "moderator" group: decides conflicts, withdraws and restores submissions,
corrects people, authorship and contributors, and reads the rest; never edits users.

The list is frozen here as migrations are; leaderboard.moderation.MODERATOR_PERMISSIONS
is the living copy (used to resync the group) and must be changed with a new migration.
"""

from __future__ import annotations

from django.contrib.auth.management import create_permissions
from django.db import migrations

MODERATOR_PERMISSIONS = {
    "leaderboard": [
        "decide_conflict", "withdraw_submission", "view_conflictdecision",
        "view_submissiondecision", "view_conflictpair", "view_underreviewentry",
        "view_boardsnapshot",
    ],
    "ingestion": [
        "view_submission", "view_run", "view_suite", "view_category", "view_languagemodel",
        "view_task", "change_task", "view_harness", "change_harness",
        "view_person", "add_person", "change_person",
    ],
}  # fmt: skip


def moderator_group_create(apps, schema_editor) -> None:
    # Permissions are normally created after the whole migrate run; this group needs
    # the new ones now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name="moderator")
    for app_label, codenames in MODERATOR_PERMISSIONS.items():
        group.permissions.add(
            *Permission.objects.filter(content_type__app_label=app_label, codename__in=codenames)
        )


def moderator_group_delete(apps, schema_editor) -> None:
    apps.get_model("auth", "Group").objects.filter(name="moderator").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0003_moderation"),
        ("ingestion", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(moderator_group_create, moderator_group_delete)]
