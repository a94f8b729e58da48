from __future__ import annotations

import sys
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from ingestion.bundles.errors import BundleError
from ingestion.bundles.limits import CONFIRMATIONS, NATIVE_FORMATS, SCENARIOS
from ingestion.bundles.run_config import FIELDS, run_config_check, run_config_from_pairs
from ingestion.importers import DESCRIPTIONS, FORMATS, REQUIRED_PARAMS, detect_format
from ingestion.importers.agentdojo import task_ids_of_version
from ingestion.importers.native_json import NotJson, load_json
from ingestion.models import Submission
from ingestion.services.checking import BundleCheck, bundle_check
from ingestion.services.intake import (
    NativeSource,
    SubmittedByAnother,
    UploadTooLarge,
    submission_ingest,
    submission_taken_again,
)

# Each option of the native formats, by the parameter it gives (REQUIRED_PARAMS names).
_OPTION = {
    "harness": "--harness",
    "harness_version": "--harness-version",
    "contributor": "--contributor",
    "suite": "--suite",
    "suite_version": "--suite-version",
    "model": "--model",
    "scenario": "--scenario",
    "confirmation": "--confirmation",
    "run_config": "--run-config",
    "attack": "--attack",
    "task_ids": "--task-ids",
    "entry": "--entry",
}
AGENTDOJO_ONLY = ("attack", "task_ids", "benchmark_version")


class Command(BaseCommand):
    help = (
        "Validate and ingest a bundle (archive or directory) synchronously; native results "
        "(Harbor job folders, τ-bench and τ²-bench result files, AgentDojo run folders, "
        "Claude Code transcripts) "
        "are converted to arena-bundle/1 first."
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
            help="arena-bundle/1 or a native format (default: detected from the path)",
        )
        parser.add_argument(
            "--check",
            action="store_true",
            help="dry run: validate fully (registry lookups included) and store nothing; "
            "exit status 0 if the bundle would be accepted, 1 if not",
        )
        native = parser.add_argument_group("native formats (" + ", ".join(NATIVE_FORMATS) + ")")
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
            help="model of the records whose files name none (tau-bench: required)",
        )
        native.add_argument(
            "--scenario", choices=SCENARIOS, help="claude-code: what the sessions are about"
        )
        native.add_argument(
            "--confirmation",
            choices=CONFIRMATIONS,
            help="claude-code: whether the user confirmed the sessions' task done",
        )
        native.add_argument(
            "--entry",
            help="swebench, task-matrix: which entry (agent) of a file holding several",
        )
        native.add_argument(
            "--run-config",
            action="append",
            metavar="KEY=VALUE",
            help="a run configuration setting the files do not record (repeat for several; "
            "one that contradicts what they record is an error): "
            + "; ".join(f"{f.name} ({f.kind})" for f in FIELDS),
        )

        native.add_argument(
            "--attack",
            metavar="NAME",
            help="agentdojo: convert the runs under this attack (default: the benign runs, none)",
        )
        native.add_argument(
            "--task-ids",
            type=Path,
            metavar="FILE",
            help="agentdojo: keep only the runs of these tasks: a JSON list of <suite>/<task> "
            "ids, or AgentDojo's task ids by version ({version: {suite: {user_tasks, "
            "injection_tasks}}}) with --benchmark-version",
        )
        native.add_argument(
            "--benchmark-version",
            metavar="VERSION",
            help="agentdojo: the version of --task-ids to keep (e.g. v1.1.2)",
        )

    def handle(self, *args, path: Path, user: str | None, **options) -> None:
        path = Path(path)
        if not path.exists():
            raise CommandError(f"{path}: no such file or directory")
        detected = options["format"] == "auto"
        fmt = detect_format(path) if detected else options["format"]
        self._check_options(fmt, options, detected)
        owner = self._owner(user)
        # Native files are kept as given and converted by the same step the worker
        # runs for the API; a folder is packed (deterministically) under its own name.
        native = None if fmt == "arena" else self._native(fmt, options)
        filename = f"{path.name}.{fmt}.tar.gz" if native and path.is_dir() else path.name
        if options["check"]:
            self._check(path, filename, owner, options["verbosity"], native)
            return
        self._ingest(path, filename, owner, options["verbosity"], native)

    def _check_options(self, fmt: str, options: dict, detected: bool) -> None:
        if fmt == "arena":
            given = [option for dest, option in _OPTION.items() if options.get(dest)]
            if given:
                why = (
                    ", and this path looks like an arena bundle (no native format was "
                    "recognised); pass --format to choose"
                    if detected
                    else ""
                )
                raise CommandError(f"{', '.join(given)} only apply to a native --format{why}")
            return
        if fmt != "agentdojo":
            given = [f"--{n.replace('_', '-')}" for n in AGENTDOJO_ONLY if options.get(n)]
            if given:
                raise CommandError(f"{', '.join(given)} only apply to --format agentdojo")
        if fmt == "claude-code" and options.get("run_config"):
            raise CommandError("--run-config applies to runs, not to claude-code sessions")
        missing = [_OPTION[name] for name in REQUIRED_PARAMS[fmt] if not _text(options, name)]
        if missing:
            raise CommandError(
                f"importing {DESCRIPTIONS[fmt]} needs {', '.join(missing)}: it does not record them"
            )

    def _native(self, fmt: str, options: dict) -> NativeSource:
        contributors = [c.strip() for c in options.get("contributor") or [] if c.strip()]
        text = {
            name: _text(options, name)
            for name in ("harness", "harness_version", "suite", "suite_version")
        }
        return NativeSource(
            format=fmt, **text, model=_text(options, "model") or None,
            contributors=tuple(contributors), scenario=options.get("scenario"),
            confirmation=options.get("confirmation"),
            run_config=_run_config(options.get("run_config") or []),
            attack=_text(options, "attack") or None, task_ids=_task_ids(options),
            entry=_text(options, "entry") or None,
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

    def _check(
        self, upload: Path, filename: str, owner, verbosity: int, native: NativeSource | None
    ) -> None:
        show_bar = sys.stderr.isatty() and verbosity > 0
        with tqdm(desc="records", unit=" rec", disable=not show_bar, file=sys.stderr) as bar:
            try:
                check = bundle_check(
                    upload=upload, user=owner, filename=filename, native=native,
                    progress=bar.update,
                )  # fmt: skip
            except UploadTooLarge as exc:
                raise CommandError(str(exc)) from exc
        self._report_check(check)
        if not check.valid:
            sys.exit(1)

    def _report_check(self, check: BundleCheck) -> None:
        if not check.valid:
            self.stdout.write(f"check: invalid, {check.error_count} errors; nothing was stored")
            self._write_errors(check.errors, check.error_count)
            return
        if check.nothing_new:
            self.stdout.write(f"check: valid; nothing was stored. {check.nothing_new}")
            for warning in check.warnings:
                self.stderr.write(f"warning: {warning}")
            return
        review = " (held for review: the account is not yet trusted)" * check.held_for_review
        self.stdout.write(
            f"check: valid; nothing was stored. An upload would add {check.runs} runs and "
            f"{check.sessions} sessions{review}."
        )
        for label, value in (
            ("harness", check.harness), ("suites", ", ".join(check.suites)),
            ("models", ", ".join(check.models)),
        ):  # fmt: skip
            if value:
                self.stdout.write(f"  {label}: {value}")
        if check.added:
            self.stdout.write(f"  added: {check.added}")
        for warning in check.warnings:
            self.stderr.write(f"warning: {warning}")

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
        if submission_taken_again(submission):
            prefix = "taken again: it was rejected before; "
        if submission.duplicate_of_id is not None:  # a success: the holder is named
            self.stdout.write(f"{prefix}submission {submission.pk}: {submission.summary}")
            return
        self.stdout.write(
            f"{prefix}submission {submission.pk} {submission.status}: "
            f"{submission.runs_count} runs, {submission.sessions_count} sessions"
        )
        if submission.summary:
            self.stdout.write(f"  added: {submission.summary}")
        # Errors in a converted runs.jsonl already name the native file they came from.
        errors = [BundleError.from_json(e) for e in submission.errors]
        self._write_errors(errors, submission.error_count)

    def _write_errors(self, errors: list[BundleError], total: int) -> None:
        # The first errors line by line, then one line per cause with its count.
        for error in errors:
            self.stderr.write(str(error))
        shown = sum(error.lines for error in errors)
        if total > shown:
            self.stderr.write(f"… and {total - shown} more errors")


def _text(options: dict, name: str) -> str:
    return (options.get(name) or "").strip()


def _run_config(pairs: list[str]) -> dict:
    """`--run-config` settings as checked run_config, or CommandError naming each problem."""
    config, problems = run_config_from_pairs(pairs)
    if not problems:
        config, problems = run_config_check(config)
    if problems:
        raise CommandError("--run-config: " + "; ".join(problems))
    return config


def _task_ids(options: dict) -> tuple[str, ...] | None:
    """--task-ids read: a JSON list of task ids, or AgentDojo's lists by version."""
    path, version = options.get("task_ids"), _text(options, "benchmark_version")
    if path is None:
        if version:
            raise CommandError("--benchmark-version needs --task-ids: the file of its tasks")
        return None
    try:
        data = load_json(Path(path))
    except (OSError, NotJson) as exc:
        raise CommandError(f"--task-ids {path}: {exc}") from None
    if isinstance(data, list) and all(isinstance(t, str) and t for t in data):
        if version:
            raise CommandError("--benchmark-version applies to a task list by version only")
        return tuple(data)
    if not version:
        raise CommandError(
            f"--task-ids {path}: must be a JSON list of task ids, or task lists by version "
            "with --benchmark-version"
        )
    try:
        return tuple(sorted(task_ids_of_version(data, version)))
    except ValueError as exc:
        raise CommandError(f"--task-ids {path}: {exc}") from None
