from __future__ import annotations

from django.core.management.base import BaseCommand

from ingestion.services.dry_runs import dry_runs_requeue_stuck
from ingestion.services.queue import submissions_requeue_stuck
from leaderboard.models import BoardSnapshot, RecomputeRequest
from leaderboard.recompute.services import boards_recompute_pending


class Command(BaseCommand):
    help = (
        "Recompute every board now, synchronously, into a new current snapshot. With "
        "--pending: the sweep, by hand (uploads stuck in the queue or abandoned mid-ingest, "
        "and dry runs the broker never took, are queued again, and only what the "
        "recompute outbox asks for is recomputed)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--board",
            help="accepted for compatibility; every board is recomputed together so that "
            "one snapshot is always consistent across boards",
        )
        parser.add_argument(
            "--pending",
            action="store_true",
            help="queue stuck uploads and dry runs again and recompute only what is pending",
        )

    def handle(self, *args, **options) -> None:
        if options["pending"]:
            self._sweep()
            return
        self._report(boards_recompute_pending(full=True))

    def _sweep(self) -> None:
        requeued = submissions_requeue_stuck()
        self.stdout.write(
            f"uploads queued again: {len(requeued)}"
            + (f" ({', '.join(map(str, requeued))})" if requeued else "")
        )
        checks = dry_runs_requeue_stuck()
        self.stdout.write(
            f"dry runs queued again: {len(checks)}"
            + (f" ({', '.join(map(str, checks))})" if checks else "")
        )
        waiting = RecomputeRequest.objects.count()
        self.stdout.write(f"recompute requests waiting: {waiting}")
        snapshot = boards_recompute_pending()
        if snapshot is None:
            self.stdout.write(self.style.SUCCESS("boards up to date; nothing recomputed"))
        else:
            self._report(snapshot)

    def _report(self, snapshot: BoardSnapshot) -> None:
        boards = snapshot.boards.count()
        self.stdout.write(
            self.style.SUCCESS(
                f"snapshot {snapshot.pk}: {boards} boards over {snapshot.runs_total} runs "
                f"in {snapshot.duration_ms} ms"
            )
        )
