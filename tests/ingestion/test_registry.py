from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from ingestion.models import Category, Person, Suite, Task
from ingestion.services.registry import DEFAULT_REGISTRY_PATH, registry_load, registry_read

pytestmark = pytest.mark.django_db


def test_it_loads_every_suite_task_and_author():
    result = registry_load(data=registry_read(DEFAULT_REGISTRY_PATH))
    assert (result.suites, result.tasks_created) == (3, 50)
    assert Task.objects.approved_official().count() == 50
    fix_git = Task.objects.get(suite__slug="terminal-bench", task_id="fix-git")
    assert fix_git.category.name == "bugfix"
    assert list(fix_git.authors.values_list("handle", flat=True)) == ["mira.chen"]
    assert set(Category.objects.filter(coding=True).values_list("name", flat=True)) == {
        "exercise", "bugfix", "terminal", "web_feature",
    }  # fmt: skip


def test_it_is_idempotent():
    data = registry_read(DEFAULT_REGISTRY_PATH)
    registry_load(data=data)
    counts = (Suite.objects.count(), Task.objects.count(), Person.objects.count())
    again = registry_load(data=data)
    assert (again.tasks_created, again.tasks_updated) == (0, 50)
    assert (Suite.objects.count(), Task.objects.count(), Person.objects.count()) == counts


def test_it_updates_corrected_authors_and_categories(tmp_path):
    data = registry_read(DEFAULT_REGISTRY_PATH)
    registry_load(data=data)
    data["suites"][0]["tasks"][0]["authors"] = ["someone.else"]
    data["suites"][0]["tasks"][0]["approved"] = False
    registry_load(data=data)
    task = Task.objects.get(suite__slug="terminal-bench", task_id="fix-git")
    assert list(task.authors.values_list("handle", flat=True)) == ["someone.else"]
    assert task.approved is False


def test_it_refuses_a_file_of_another_format(tmp_path):
    path = tmp_path / "registry.json"
    path.write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(CommandError, match="arena-registry/1"):
        call_command("load_registry", str(path))


def test_it_loads_the_default_registry_from_the_command(capsys):
    call_command("load_registry")
    assert "3 suites; 50 tasks created" in capsys.readouterr().out
