from __future__ import annotations

import sys
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from ingestion.importers import FORMATS, detect_format
from ingestion.models import Submission
from ingestion.services.intake import (
    NativeSource,
    SubmittedByAnother,
    UploadTooLarge,
    submission_ingest,
)

# What each native format needs on the command line: (option, its dest) pairs.
_REQUIRED = {
    "harbor": (
        ("--harness", "harness"),
        ("--harness-version", "harness_version"),
        ("--suite", "suite"),
        ("--suite-version", "suite_version"),
    ),
    "tau-bench": (
        ("--harness", "harness"),
        ("--harness-version", "harness_version"),
        ("--suite", "suite"),
        ("--suite-version", "suite_version"),
        ("--model", "model"),
    ),
}
_DESCRIBED = {"harbor": "a Harbor job folder", "tau-bench": "a τ-bench results file"}
_NATIVE_OPTIONS = (
    ("--harness", "harness"),
    ("--harness-version", "harness_version"),
    ("--contributor", "contributor"),
    ("--suite", "suite"),
    ("--suite-version", "suite_version"),
    ("--model", "model"),
)


class Command(BaseCommand):
    help = (
        "Validate and ingest a bundle (archive or directory) synchronously; Harbor job "
        "folders and τ-bench result files are converted to arena-bundle/1 first."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", type=Path)
        parser.add_argument(
            "--user", help="account that owns the submission (default: first superuser)"
        )
        parser.add_argument(
            "--format",
            choices=["auto", *FORMATS],
            default="auto",
            help="arena-bundle/1, a Harbor job folder or a τ-bench results file "
            "(default: detected from the path)",
        )
        native = parser.add_argument_group("native formats (harbor, tau-bench)")
        native.add_argument("--harness", help="harness name")
        native.add_argument("--harness-version", help="harness version")
        native.add_argument(
            "--contributor",
            action="append",
            metavar="HANDLE",
            help="a contributor's handle (repeat for several)",
        )
        native.add_argument("--suite", metavar="SLUG", help="suite the tasks belong to")
        native.add_argument("--suite-version", help="version of that suite")
        native.add_argument(
            "--model",
            help="model of every run (harbor: default from each result.json; tau-bench: required)",
        )

    def handle(self, *args, path: Path, user: str | None, **options) -> None:
        path = Path(path)
        if not path.exists():
            raise CommandError(f"{path}: no such file or directory")
        detected = options["format"] == "auto"
        fmt = detect_format(path) if detected else options["format"]
        self._check_options(fmt, options, detected)
        owner = self._owner(user)
        if fmt == "arena":
            self._ingest(path, path.name, owner, options["verbosity"])
            return
        # Native files are kept as given and converted by the same step the worker
        # runs for the API; a folder is packed (deterministically) under its own name.
        filename = f"{path.name}.{fmt}.tar.gz" if path.is_dir() else path.name
        self._ingest(path, filename, owner, options["verbosity"], self._native(fmt, options))

    def _check_options(self, fmt: str, options: dict, detected: bool) -> None:
        if fmt == "arena":
            given = [opt for opt, dest in _NATIVE_OPTIONS if options.get(dest)]
            if given:
                why = (
                    ", and this path looks like an arena bundle (neither a Harbor trial "
                    "result.json nor a τ-bench results list was found); pass --format to choose"
                    if detected
                    else ""
                )
                raise CommandError(
                    f"{', '.join(given)} only apply to --format harbor or tau-bench{why}"
                )
            return
        missing = [opt for opt, dest in _REQUIRED[fmt] if not (options.get(dest) or "").strip()]
        if missing:
            raise CommandError(
                f"importing {_DESCRIBED[fmt]} needs {', '.join(missing)}: it does not record them"
            )

    def _native(self, fmt: str, options: dict) -> NativeSource:
        contributors = [c.strip() for c in options.get("contributor") or [] if c.strip()]
        return NativeSource(
            format=fmt, harness=options["harness"].strip(),
            harness_version=options["harness_version"].strip(), suite=options["suite"].strip(),
            suite_version=options["suite_version"].strip(),
            model=(options.get("model") or "").strip() or None, contributors=tuple(contributors),
        )  # fmt: skip

    def _ingest(
        self,
        upload: Path,
        filename: str,
        owner,
        verbosity: int,
        native: NativeSource | None = None,
    ) -> None:
        show_bar = sys.stderr.isatty() and verbosity > 0
        with tqdm(desc="records", unit=" rec", disable=not show_bar, file=sys.stderr) as bar:
            try:
                submission, created = submission_ingest(
                    upload=upload, user=owner, filename=filename, progress=bar.update,
                    native=native,
                )  # fmt: skip
            except (UploadTooLarge, SubmittedByAnother) as exc:
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
        # Errors in a converted runs.jsonl already name the native file they came from.
        errors = [(e["file"], e["line"], e["field"], e["message"]) for e in submission.errors]
        self._write_errors(errors, submission.error_count)

    def _write_errors(self, errors: list[tuple], total: int) -> None:
        for file, line, field, message in errors:
            self.stderr.write(f"{file}:{line if line is not None else ''}: {field}: {message}")
        if total > len(errors):
            self.stderr.write(f"… and {total - len(errors)} more errors")
