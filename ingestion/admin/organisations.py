"""Organisations in the admin: who belongs to one, and which models it makes or serves.

Superusers edit them (moderators may look); every save or delete recomputes the signal
boards, since membership decides which sessions are conflict-excluded.
"""

from __future__ import annotations

from django.contrib import admin

from ingestion.admin.base import AnnouncesEvidence
from ingestion.models import Organisation


@admin.register(Organisation)
class OrganisationAdmin(AnnouncesEvidence):
    holds_sessions = True
    list_display = ["name", "member_count", "listed_models"]
    search_fields = ["name", "members__username"]
    filter_horizontal = ["members", "made_models"]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("made_models", "members")

    def evidence_harness_ids(self, obj) -> list[int]:
        # Membership moves sessions only: the benchmark boards are carried over.
        return []

    @admin.display(description="members")
    def member_count(self, organisation: Organisation) -> int:
        return len(organisation.members.all())

    @admin.display(description="models listed by hand")
    def listed_models(self, organisation: Organisation) -> str:
        return ", ".join(model.name for model in organisation.made_models.all()) or "—"
