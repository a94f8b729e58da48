"""Template tags about the registry (`{% load registry %}`): the registry file format
for /methodology/, which aggregate boards a suite's board joins, and which category a
category's board is of.

The format table lives in ingestion.services.registry_format, which also checks files
and prints `load_registry --help`, so the page cannot drift from the loader.
"""

from __future__ import annotations

from django import template

from ingestion.services.registry_format import EXAMPLE, FIELD_TABLES, GROUPS, REGISTRY_FORMAT
from leaderboard.boards import catalogue

register = template.Library()


@register.simple_tag
def registry_format() -> dict:
    """The format's name, its field tables, the groups a suite may join and an example."""
    return {
        "name": REGISTRY_FORMAT,
        "tables": FIELD_TABLES,
        "groups": GROUPS,
        "example": EXAMPLE.split("\n\n")[0].removeprefix("Example:\n"),
    }


register.simple_tag(catalogue.suite_groups, name="suite_groups")
register.filter("board_category", catalogue.board_category)
