"""Static files get hashed names in pages, and whitenoise caches those for a year.

The suite renders plain names (conftest.py at the root); this test collects the
project's own static folder into a temporary STATIC_ROOT with the production storage,
as `collectstatic` does in `make run` and the Docker image, with stand-ins for the
large vendored files so that compressing them costs nothing.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

import arena.settings
from tests.leaderboard.boards.builders import build_snapshot, standard_boards

STATIC_SOURCE = Path(arena.settings.BASE_DIR) / "static"
# Only the names matter here; the Plotly bundle alone is 1 MB.
STAND_INS = {"vendor/plotly-basic.min.js", "vendor/htmx.min.js"}


@pytest.fixture
def collected(settings, tmp_path) -> Path:
    source, root = tmp_path / "source", tmp_path / "root"
    shutil.copytree(STATIC_SOURCE, source)
    for name in STAND_INS:
        (source / name).write_text(f"/* stand-in for {name} */\n" * 20)
    settings.STATICFILES_DIRS = [source]
    settings.STATICFILES_FINDERS = ["django.contrib.staticfiles.finders.FileSystemFinder"]
    settings.STATIC_ROOT = root
    # The production storage, exactly as arena/settings.py configures it (DEBUG off).
    settings.STORAGES = arena.settings.STORAGES
    call_command("collectstatic", interactive=False, verbosity=0)
    return root


def test_it_configures_the_compressed_manifest_storage():
    backend = arena.settings.STORAGES["staticfiles"]["BACKEND"]
    assert backend == "whitenoise.storage.CompressedManifestStaticFilesStorage"


@pytest.mark.django_db
def test_it_renders_hashed_names_served_for_a_year_with_brotli(collected):
    build_snapshot(standard_boards())
    client = Client()  # a new handler: whitenoise reads the new STATIC_ROOT
    page = client.get("/").content.decode()
    stylesheet = re.search(r'href="(/static/css/arena\.[0-9a-f]{12}\.css)"', page)
    assert stylesheet, "the page links the stylesheet by its hashed name"
    assert re.search(r'src="/static/vendor/htmx\.min\.[0-9a-f]{12}\.js"', page)
    asset = client.get(stylesheet[1], headers={"Accept-Encoding": "br"})
    assert asset.status_code == 200
    assert asset["Content-Encoding"] == "br"
    assert "max-age=315360000" in asset["Cache-Control"]
    assert "immutable" in asset["Cache-Control"]
    assert (collected / stylesheet[1].removeprefix("/static/")).with_suffix(".css.br").exists()
