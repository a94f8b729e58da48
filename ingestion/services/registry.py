"""Loading the official suite registry (`arena-registry/1`) into the database."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import transaction

from ingestion.models import Category, Person, Suite, Task

REGISTRY_FORMAT = "arena-registry/1"
DEFAULT_REGISTRY_PATH = Path(__file__).resolve().parent.parent / "fixtures" / "registry.json"


class RegistryError(ValueError):
    pass


@dataclass(frozen=True)
class RegistryLoadResult:
    suites: int
    tasks_created: int
    tasks_updated: int


def registry_read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RegistryError(f"{path}: cannot read registry: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != REGISTRY_FORMAT:
        raise RegistryError(f"{path}: format must be {REGISTRY_FORMAT!r}")
    return data


@transaction.atomic
def registry_load(*, data: dict[str, Any]) -> RegistryLoadResult:
    """Create or update suites, categories, tasks and authors; running it twice changes nothing.

    Tasks missing from the file are left as they are: retiring a task is an explicit
    admin decision (un-approve it), not a side effect of loading an older file.
    """
    coding = set(data.get("coding_categories", []))
    for name in coding:
        Category.objects.update_or_create(name=name, defaults={"coding": True})
    created = updated = 0
    for suite_data in data.get("suites", []):
        suite = _suite_upsert(suite_data)
        for task_data in suite_data.get("tasks", []):
            was_created = _task_upsert(suite, task_data, coding)
            created += was_created
            updated += not was_created
    return RegistryLoadResult(
        suites=len(data.get("suites", [])), tasks_created=created, tasks_updated=updated
    )


def _suite_upsert(suite_data: dict[str, Any]) -> Suite:
    suite, _ = Suite.objects.update_or_create(
        slug=suite_data["slug"],
        version=suite_data["version"],
        defaults={
            "name": suite_data.get("name", suite_data["slug"]),
            "official": bool(suite_data.get("official", False)),
            "execution": suite_data.get("execution", ""),
            "scoring": suite_data.get("scoring", ""),
            "limitations": suite_data.get("limitations", ""),
        },
    )
    return suite


def _task_upsert(suite: Suite, task_data: dict[str, Any], coding: set[str]) -> bool:
    category, _ = Category.objects.get_or_create(
        name=task_data["category"], defaults={"coding": task_data["category"] in coding}
    )
    approved = task_data.get("approved")
    task, created = Task.objects.update_or_create(
        suite=suite,
        task_id=task_data["task_id"],
        defaults={"category": category, "approved": True if approved is None else bool(approved)},
    )
    authors = [Person.objects.get_or_create(handle=h)[0] for h in task_data.get("authors", [])]
    task.authors.set(authors)
    return created
