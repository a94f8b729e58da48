"""The aggregate boards, the ones that gather suites: their slugs, titles and who joins.

Pure, and the one definition: the registry format reads it (the groups a suite may
join, `joins`), the registry loader stores a suite's membership in the Suite flag each
names, and the leaderboard's board catalogue (leaderboard.boards.catalogue) builds the
boards from it. It lives in ingestion because ingestion may not import the leaderboard,
while the leaderboard imports ingestion (docs/decisions.md).

A task counts on its suite's board, on Overall when its suite joins Overall, and on
Coding when its suite joins Coding and its category is a coding one. Overall is also
cut by category: one board per category, `category-<name>`, of the tasks of that
category that count on Overall (docs/decisions.md "Per-category boards").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AggregateBoard:
    slug: str  # the board's slug, and the group's name in a registry file
    title: str  # its tab
    suite_flag: str  # the Suite field that says a suite joins it


OVERALL = AggregateBoard("overall", "Overall", "in_overall")
CODING = AggregateBoard("coding", "Coding", "in_coding")
# In the order the tabs show them, before every suite's own board.
AGGREGATE_BOARDS = (OVERALL, CODING)
AGGREGATE_SLUGS = tuple(board.slug for board in AGGREGATE_BOARDS)


def suite_flags(joins: list[str]) -> dict[str, bool]:
    """The Suite flags of a registry suite's `joins` (its group names)."""
    return {board.suite_flag: board.slug in joins for board in AGGREGATE_BOARDS}


def joined_titles(suite: object) -> list[str]:
    """The titles of the aggregate boards a suite (anything with the flags) joins."""
    return [board.title for board in AGGREGATE_BOARDS if getattr(suite, board.suite_flag)]


# A category board's slug is this prefix and the category's name. No suite board can
# take one: a suite's slug may not be "category" nor begin with the prefix
# (reserved_suite_slug, checked by the registry format).
CATEGORY_PREFIX = "category-"


def category_slug(category: str) -> str:
    return CATEGORY_PREFIX + category


def category_title(category: str) -> str:
    """The tab of a category's board: "Web feature tasks" for `web_feature`."""
    return f"{category.replace('_', ' ').replace('-', ' ').capitalize()} tasks"


def is_category(board_slug: str) -> bool:
    return board_slug.startswith(CATEGORY_PREFIX)


def board_category(board_slug: str) -> str | None:
    """The category whose board this is, or None for any other board."""
    return board_slug.removeprefix(CATEGORY_PREFIX) if is_category(board_slug) else None


def reserved_suite_slug(slug: str) -> bool:
    """Whether a suite slug would give boards whose slugs a category board may take."""
    return slug == CATEGORY_PREFIX.rstrip("-") or slug.startswith(CATEGORY_PREFIX)


def task_boards(suite_board: str, *, overall: bool, coding: bool, category: str) -> list[str]:
    """The boards a task counts on, from its suite's board and whether it counts on
    Overall (its suite joins it) and on Coding (its suite joins it, its category codes),
    and its category (whose board it counts on when it counts on Overall)."""
    return (
        [OVERALL.slug] * overall
        + [suite_board]
        + [CODING.slug] * coding
        + [category_slug(category)] * overall
    )
