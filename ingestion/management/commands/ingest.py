from __future__ import annotations

import sys
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from ingestion.models import Submission
from ingestion.services.submissions import UploadTooLarge, submission_ingest


class Command(BaseCommand):
    help = "Validate and ingest a bundle (archive or directory) synchronously."

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", type=Path)
        parser.add_argument(
            "--user", help="account that owns the submission (default: first superuser)"
        )
        parser.add_argument(
            "--format",
            choices=["auto", "arena"],
            default="auto",
            help="bundle format (arena-bundle/1; native importers are not available yet)",
        )

    def handle(self, *args, path: Path, user: str | None, **options) -> None:
        if not path.exists():
            raise CommandError(f"{path}: no such file or directory")
        owner = self._owner(user)
        show_bar = sys.stderr.isatty() and options["verbosity"] > 0
        with tqdm(desc="records", unit=" rec", disable=not show_bar, file=sys.stderr) as bar:
            try:
                submission, created = submission_ingest(
                    upload=path, user=owner, filename=path.name, progress=bar.update
                )
            except UploadTooLarge as exc:
                raise CommandError(str(exc)) from exc
        self._report(submission, created)
        if submission.status == Submission.Status.REJECTED:
            sys.exit(1)

    def _owner(self, username: str | None):
        users = get_user_model().objects
        if username:
            owner = users.filter(username=username).first()
        else:
            owner = users.filter(is_superuser=True).order_by("pk").first()
        if owner is None:
            raise CommandError(
                f"no user {username!r}" if username else "no superuser: pass --user NAME"
            )
        return owner

    def _report(self, submission: Submission, created: bool) -> None:
        prefix = "" if created else "already uploaded: "
        self.stdout.write(
            f"{prefix}submission {submission.pk} {submission.status}: "
            f"{submission.runs_count} runs, {submission.sessions_count} sessions"
        )
        for error in submission.errors:
            line = error["line"] if error["line"] is not None else ""
            self.stderr.write(f"{error['file']}:{line}: {error['field']}: {error['message']}")
        if submission.error_count > len(submission.errors):
            self.stderr.write(
                f"… and {submission.error_count - len(submission.errors)} more errors"
            )
