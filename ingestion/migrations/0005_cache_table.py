# The database cache table (settings.CACHES when REDIS_CACHE_URL is unset): the upload
# rate limit must be shared by every web process, so `migrate` alone creates it.
# createcachetable skips tables that exist and caches that are not database caches.

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor) -> None:
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [
        ("ingestion", "0004_harness_ownership"),
    ]

    operations = [
        migrations.RunPython(create_cache_table, migrations.RunPython.noop, elidable=True),
    ]
