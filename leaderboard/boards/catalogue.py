"""The board catalogue: which benchmark boards exist, in tab order, and which aggregate
boards a suite's board joins. Every page, the recompute and the SQL ask here.

The aggregate boards themselves (Overall, Coding and their membership rule) and the
category boards (Overall cut by task category) are defined once in
ingestion.aggregate_boards, which ingestion's registry loader reads too.
"""

from __future__ import annotations

from ingestion.aggregate_boards import (
    AGGREGATE_BOARDS,
    AGGREGATE_SLUGS,
    CATEGORY_PREFIX,
    CODING,
    OVERALL,
    board_category,
    category_slug,
    category_title,
    is_category,
    joined_titles,
    task_boards,
)
from ingestion.models import Category, Suite

__all__ = [
    "AGGREGATE_SLUGS",
    "CATEGORY_PREFIX",
    "CODING",
    "OVERALL",
    "board_category",
    "board_definitions",
    "board_kind",
    "category_slug",
    "is_aggregate",
    "is_category",
    "safety_slug",
    "safety_title",
    "suite_groups",
    "task_boards",
]


def is_aggregate(board_slug: str) -> bool:
    """Whether the board pools several suites: Overall, Coding, or a category's board."""
    return board_slug in AGGREGATE_SLUGS or is_category(board_slug)


# What a board gathers, as the home page and the API name it.
AGGREGATE, CATEGORY, SUITE = "aggregate", "category", "suite"


def board_kind(board_slug: str) -> str:
    if is_category(board_slug):
        return CATEGORY
    return AGGREGATE if board_slug in AGGREGATE_SLUGS else SUITE


def board_definitions() -> list[tuple[str, str]]:
    """(slug, title) of every benchmark board, in the order the tabs show them: the
    aggregate boards, every official suite's, then every category's that has a task on
    Overall, by name (two queries)."""
    suites = Suite.objects.filter(official=True).order_by("pk")
    categories = (
        Category.objects.filter(
            tasks__approved=True, tasks__suite__official=True, tasks__suite__in_overall=True
        )
        .distinct()
        .order_by("name")
        .values_list("name", flat=True)
    )
    return (
        [(board.slug, board.title) for board in AGGREGATE_BOARDS]
        + [(s.board_slug, f"{s.name} {s.version}") for s in suites]
        + [(category_slug(name), category_title(name)) for name in categories]
    )


# A suite board's safety board (methodology "Safety under attack"): `<slug>-safety`, shown
# beside the other boards once some runs under attack count on that suite.
SAFETY_SUFFIX = "-safety"


def safety_slug(board_slug: str) -> str:
    return board_slug + SAFETY_SUFFIX


def safety_title(board_title: str) -> str:
    return f"{board_title} · safety"


def suite_groups(board_slug: str) -> list[str] | None:
    """The titles of the aggregate boards the suite of a suite board joins; None for a
    board that is not a suite's (an aggregate one: no query on its pages)."""
    if is_aggregate(board_slug):
        return None
    # A board slug is "<suite slug>-<version>", and suite slugs may hold "-" themselves.
    flags = [board.suite_flag for board in AGGREGATE_BOARDS]
    for suite in Suite.objects.filter(official=True).only("slug", "version", *flags):
        if suite.board_slug == board_slug:
            return joined_titles(suite)
    return None
