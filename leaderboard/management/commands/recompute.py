from __future__ import annotations

from django.core.management.base import BaseCommand

from leaderboard.recompute.services import boards_recompute


class Command(BaseCommand):
    help = "Recompute every board now, synchronously, into a new current snapshot."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--board",
            help="accepted for compatibility; every board is recomputed together so that "
            "one snapshot is always consistent across boards",
        )

    def handle(self, *args, **options) -> None:
        snapshot = boards_recompute()
        boards = snapshot.boards.count()
        self.stdout.write(
            self.style.SUCCESS(
                f"snapshot {snapshot.pk}: {boards} boards over {snapshot.runs_total} runs "
                f"in {snapshot.duration_ms} ms"
            )
        )
