"""Dry run: check a bundle exactly as an upload would be checked, and keep nothing.

`bundle_check` (the command's `--check`, the API's `dry_run=1`, the form's "Check
only") runs the ingest's own step, `processing.bundle_write`, inside a transaction that
is always rolled back: the same reader and validators, the same registry lookups
(suites, tasks, agents, harness ownership), the same duplicate checks against stored
runs, the same native conversion. So a check can never pass a bundle the upload then
rejects, nor the reverse (short of the registry or the stored runs changing between
the two). Nothing is kept: no submission row (its placeholder is rolled back with the
rows), no bytes (the spooled file is removed), no "evidence changed" announcement
(the ingest's outcome step, which announces, is not run).
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, field

from django.db import transaction

from ingestion.bundles import BundleError, BundleRejected
from ingestion.models import Run, Session, Submission
from ingestion.services.conversion import AlreadySubmitted, native_bundle
from ingestion.services.intake import NativeSource, Upload, upload_spooled
from ingestion.services.processing import INTERNAL_ERROR, ProgressCallback, bundle_write
from ingestion.services.trust import uploader_is_trusted

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class BundleCheck:
    """What a dry run found: the errors an upload would be rejected with (the first
    ones whole, the rest grouped by cause, as on a submission), or what it would add."""

    errors: list[BundleError] = field(default_factory=list)
    error_count: int = 0
    runs: int = 0
    sessions: int = 0
    harness: str = ""
    suites: list[str] = field(default_factory=list)  # "slug version"
    models: list[str] = field(default_factory=list)
    held_for_review: bool = False  # an account not yet trusted: a moderator checks it
    warnings: list[str] = field(default_factory=list)
    # Nothing new: what an upload would say (the submission that holds its results).
    nothing_new: str = ""
    duplicate_of: int | None = None
    added: str = ""  # stored sessions that would grow, in words

    @property
    def valid(self) -> bool:
        return self.error_count == 0

    def to_json(self) -> dict:
        """The API's answer (and the command's summary): errors as a submission lists them."""
        return {
            "valid": self.valid, "error_count": self.error_count,
            "errors": [error.to_json() for error in self.errors], "runs": self.runs,
            "sessions": self.sessions, "harness": self.harness, "suites": self.suites,
            "models": self.models, "held_for_review": self.held_for_review,
            "warnings": self.warnings, "nothing_new": self.nothing_new,
            "duplicate_of": self.duplicate_of, "added": self.added,
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: dict) -> BundleCheck:
        """The check to_json wrote (a dry run's stored result)."""
        names = {"error_count", "runs", "sessions", "harness", "suites", "models",
                 "held_for_review", "warnings", "nothing_new", "duplicate_of", "added"}  # fmt: skip
        errors = [BundleError.from_json(error) for error in data.get("errors", [])]
        return cls(errors=errors, **{name: data[name] for name in names if name in data})


class _RollBack(Exception):
    """Leaves the dry run's transaction with what it found: everything is undone."""

    def __init__(self, check: BundleCheck) -> None:
        self.check = check


def bundle_check(
    *,
    upload: Upload,
    user,
    filename: str = "",
    native: NativeSource | None = None,
    progress: ProgressCallback | None = None,
) -> BundleCheck:
    """Validate an upload fully, as `submission_receive` + the worker would, storing
    nothing. Raises UploadTooLarge like an upload (nothing kept either)."""
    with upload_spooled(upload=upload, native=native) as path:
        try:
            with transaction.atomic():
                submission = _placeholder(user, filename, native)
                with native_bundle(submission, path) as bundle:
                    runs, sessions = bundle_write(
                        submission=submission, path=bundle, progress=progress
                    )
                raise _RollBack(_summary(submission, user, runs, sessions))
        except _RollBack as done:
            return done.check
        except AlreadySubmitted as same:
            submission.duplicate_of = same.earlier
            return _nothing_new(submission)
        except BundleRejected as rejected:
            return BundleCheck(errors=list(rejected.errors), error_count=rejected.total)
        except Exception:  # the upload would fail the same way: said, not raised
            logger.exception("dry run of %r failed", filename)
            return BundleCheck(errors=[INTERNAL_ERROR], error_count=1)


def _placeholder(user, filename: str, native: NativeSource | None) -> Submission:
    """The submission the rows hang on until the rollback. Its hash is random (never a
    real upload's, so it cannot collide with one, nor two checks with each other)."""
    return Submission.objects.create(
        uploader=user,
        sha256=secrets.token_hex(32),
        original_name=filename[:255],
        status=Submission.Status.PROCESSING,
        **(native.fields() if native else {}),
    )


def _nothing_new(submission: Submission) -> BundleCheck:
    return BundleCheck(
        nothing_new=submission.summary, duplicate_of=submission.duplicate_of_id,
        warnings=list((submission.report or {}).get("warnings", [])),
    )  # fmt: skip


def _summary(submission: Submission, user, runs: int, sessions: int) -> BundleCheck:
    """What the upload would add, read back from the rows before they are undone."""
    if submission.duplicate_of_id is not None:
        return _nothing_new(submission)
    stored_runs = Run.objects.filter(submission=submission).order_by()  # distinct rows only
    suites = stored_runs.values_list("task__suite__slug", "task__suite__version").distinct()
    models = set(stored_runs.values_list("model__name", flat=True).distinct())
    models |= set(
        Session.objects.filter(submission=submission)
        .order_by()
        .values_list("model__name", flat=True)
        .distinct()
    )
    harness = submission.harness
    submission.sessions_count = sessions  # as the ingest would record it, for `summary`
    return BundleCheck(
        runs=runs, sessions=sessions,
        harness=f"{harness.name} {harness.version}" if harness else "",
        suites=sorted(f"{slug} {version}" for slug, version in suites),
        models=sorted(models), held_for_review=not uploader_is_trusted(user),
        warnings=list((submission.report or {}).get("warnings", [])), added=submission.summary,
    )  # fmt: skip
