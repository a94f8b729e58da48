"""Loading the official suite registry (`arena-registry/1`) into the database.

One parser (`registry_parse`) serves the command line, the admin upload and the test
fixtures; every load announces that evidence changed, since suites, tasks, categories
and authors all decide what the boards count.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import transaction
from django.db.models import QuerySet

from ingestion.evidence import evidence_changed_announce
from ingestion.models import Category, Person, Suite, Task
from ingestion.services.permissions import permission_require

REGISTRY_FORMAT = "arena-registry/1"
DEFAULT_REGISTRY_PATH = Path(__file__).resolve().parent.parent / "fixtures" / "registry.json"
# Who may load a registry file from the admin (the command line is an operator's).
LOAD_REGISTRY = "ingestion.change_suite"


class RegistryError(ValueError):
    pass


@dataclass(frozen=True)
class RegistryLoadResult:
    suites: int
    tasks_created: int
    tasks_updated: int


def registry_parse(raw: bytes, *, source: str = "registry") -> dict[str, Any]:
    """A registry file's bytes as data; RegistryError when it is not `arena-registry/1`."""
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RegistryError(f"{source}: cannot read registry: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != REGISTRY_FORMAT:
        raise RegistryError(f"{source}: format must be {REGISTRY_FORMAT!r}")
    return data


def registry_read(path: Path) -> dict[str, Any]:
    """Read and parse a registry file from disk."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise RegistryError(f"{path}: cannot read registry: {exc}") from exc
    return registry_parse(raw, source=str(path))


@transaction.atomic
def registry_file_load(*, data: dict[str, Any], user) -> RegistryLoadResult:
    """Load a registry file on behalf of `user` (who needs LOAD_REGISTRY)."""
    permission_require(user, LOAD_REGISTRY)
    return registry_load(data=data)


@transaction.atomic
def registry_load(*, data: dict[str, Any]) -> RegistryLoadResult:
    """Create or update suites, categories, tasks and authors; running it twice changes nothing.

    Tasks missing from the file are left as they are: retiring a task is an explicit
    admin decision (un-approve it), not a side effect of loading an older file.
    """
    try:
        result = _registry_apply(data)
    except (KeyError, TypeError, AttributeError) as exc:
        raise RegistryError(f"malformed registry: {exc!r}") from exc
    evidence_changed_announce(sender=__name__)
    return result


def _registry_apply(data: dict[str, Any]) -> RegistryLoadResult:
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


# Who may approve or retire tasks (moderators hold it).
CHANGE_REGISTRY = "ingestion.change_task"


@transaction.atomic
def tasks_approval_set(*, tasks: QuerySet[Task], approved: bool, user) -> int:
    """Approve or retire tasks; runs on retired tasks leave every board."""
    permission_require(user, CHANGE_REGISTRY)
    changed = tasks.exclude(approved=approved).update(approved=approved)
    if changed:
        evidence_changed_announce(sender=__name__)
    return changed
