from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ingestion.services.registry import (
    DEFAULT_REGISTRY_PATH,
    RegistryError,
    registry_load,
    registry_read,
)


class Command(BaseCommand):
    help = "Create or update suites, categories and tasks from a registry file (idempotent)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_REGISTRY_PATH)

    def handle(self, *args, path: Path, **options) -> None:
        try:
            result = registry_load(data=registry_read(path))
        except RegistryError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            self.style.SUCCESS(
                f"{result.suites} suites; {result.tasks_created} tasks created, "
                f"{result.tasks_updated} updated"
            )
        )
