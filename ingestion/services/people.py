"""People named by handle (harness contributors), written as one set."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from ingestion.models import Person


@transaction.atomic
def people_ensure(*, handles: Iterable[str]) -> list[Person]:
    """The Person of each handle, creating the missing ones: two queries however many,
    where one get_or_create each made a manifest's contributors cost a round trip
    apiece (the limits table bounds how many one manifest names)."""
    wanted = sorted(set(handles))  # one order: concurrent ingests never deadlock
    if not wanted:
        return []
    Person.objects.bulk_create([Person(handle=h) for h in wanted], ignore_conflicts=True)
    return list(Person.objects.filter(handle__in=wanted))
