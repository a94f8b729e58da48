"""What every registry and evidence admin shares: saves and deletes that can move a
figure announce that evidence changed once they commit."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from ingestion.evidence import EvidenceCause, evidence_changed_announce


class AnnouncesEvidence(admin.ModelAdmin):
    """Saving or deleting here changes what the boards count: announce it on commit."""

    # True where the model holds user-session evidence (the signal boards read it).
    holds_sessions = False

    def evidence_harness_ids(self, obj) -> list[int] | None:
        """Harness ids whose entries may change, or None for every board."""
        return None

    def save_related(self, request: HttpRequest, form, formsets, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        if not change or form.has_changed() or any(fs.has_changed() for fs in formsets):
            self._announce(self.evidence_harness_ids(form.instance))

    def delete_model(self, request: HttpRequest, obj) -> None:
        scope = self.evidence_harness_ids(obj)
        super().delete_model(request, obj)
        self._announce(scope)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet) -> None:
        scopes = [self.evidence_harness_ids(obj) for obj in queryset]
        super().delete_queryset(request, queryset)
        every = any(scope is None for scope in scopes)
        self._announce(None if every else [i for scope in scopes for i in scope])

    def _announce(self, harness_ids: list[int] | None) -> None:
        label = f"{self.model._meta.verbose_name} edited in the admin"
        evidence_changed_announce(
            sender=__name__,
            harness_ids=harness_ids,
            sessions=self.holds_sessions,
            cause=EvidenceCause("admin", label=label),
        )


# -- people, authorship, contributors ----------------------------------------------------
