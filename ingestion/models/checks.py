"""Dry runs ("Check only", the API's `dry_run=1`): an upload checked by the worker.

The bytes wait under ARENA_UPLOAD_DIR until the worker has checked them and are deleted
then; the row keeps the result for its uploader to read (the page polls it).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from ingestion.bundles import limits


class DryRunQuerySet(models.QuerySet):
    def owned_by(self, user) -> DryRunQuerySet:
        return self.filter(uploader=user)


class DryRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        CHECKING = "checking"
        DONE = "done"

    uploader = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="dry_runs"
    )
    original_name = models.CharField(max_length=255, blank=True)
    # As on Submission: a native upload's format and the parameters it is converted with.
    native_format = models.CharField(max_length=limits.NATIVE_FORMAT_LENGTH, blank=True)
    native_params = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    # ingestion.services.checking.BundleCheck.to_json(), once done.
    result = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # When its check was last sent (None: never, or the broker refused it): as on
    # Submission, the sweep sends at once what no queue holds.
    enqueued_at = models.DateTimeField(null=True, blank=True)

    objects = DryRunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"dry run {self.pk} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status == self.Status.DONE
