"""Rebuild the rollups the boards read from the runs (ingestion.services.rollups).

    python manage.py rollups_rebuild [--submission ID ...]

Exit status 0 on success; a recompute is announced so the boards follow.
"""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from ingestion.evidence import EvidenceCause, evidence_changed_announce
from ingestion.models import Submission
from ingestion.services.rollups import rollups_rebuild


class Command(BaseCommand):
    help = "Rebuild the board rollups from the runs (all submissions, or the ones given)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--submission", type=int, action="append", dest="submissions")

    def handle(self, *args, submissions: list[int] | None = None, **options) -> None:
        if submissions:
            missing = set(submissions) - set(
                Submission.objects.filter(pk__in=submissions).values_list("pk", flat=True)
            )
            if missing:
                raise CommandError(f"no such submission: {', '.join(map(str, sorted(missing)))}")
        with tqdm(
            desc="submissions", unit=" sub", file=sys.stderr, disable=options["verbosity"] < 1
        ) as bar:

            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            rebuilt = rollups_rebuild(submission_ids=submissions, progress=progress)
        evidence_changed_announce(
            sender=__name__, cause=EvidenceCause("admin", label="run summaries rebuilt")
        )
        self.stdout.write(f"rebuilt the rollups of {rebuilt} submission(s)")
