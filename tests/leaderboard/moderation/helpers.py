"""Reading the boards the moderation services caused (no recompute here)."""

from __future__ import annotations

from ingestion.models import Harness, Task
from leaderboard.models import BoardEntry
from leaderboard.recompute.entries import ENTRY_FIELDS

# terminal-bench tasks: fix-git is authored by mira.chen, regex-log by omar.haddad.
MIRA_TASK, OTHER_TASK = "fix-git", "regex-log"


def current(harness: str = "H", slug: str = "overall") -> BoardEntry:
    """The entry visitors see now: no recompute here, the services must have caused it."""
    return BoardEntry.objects.get(
        board__snapshot__is_current=True, board__slug=slug, harness_name=harness
    )


def figures(harness: str = "H") -> dict[str, dict]:
    """Every published figure of a harness on every board of the current snapshot."""
    rows = BoardEntry.objects.filter(board__snapshot__is_current=True, harness_name=harness)
    return {
        row.board.slug: {f: getattr(row, f) for f in (*ENTRY_FIELDS, "token_saving_ratio")}
        for row in rows.select_related("board")
    }


def pair(harness: str, task_id: str) -> tuple[Harness, Task]:
    return Harness.objects.get(name=harness), Task.objects.get(task_id=task_id)
