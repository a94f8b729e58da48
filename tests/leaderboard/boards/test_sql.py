"""The board queries are composed with psycopg.sql (leaderboard.boards.sql)."""

from __future__ import annotations

import pytest
from django.db import connection

from leaderboard.boards.sql import (
    CODING_CONDITION,
    OVERALL_CONDITION,
    groups_query,
    percentiles_query,
    suite_condition,
)


def rendered(query) -> str:
    connection.ensure_connection()
    return query.as_string(connection.connection)


@pytest.mark.django_db
def test_it_renders_a_suite_condition_with_the_id_as_a_literal_integer():
    assert rendered(suite_condition(7)) == "t.suite_id = 7"
    with pytest.raises(ValueError):
        suite_condition("7 OR TRUE")


@pytest.mark.django_db
def test_it_selects_two_percentile_aggregates_per_board_condition():
    text = rendered(
        percentiles_query(
            [OVERALL_CONDITION, CODING_CONDITION, suite_condition(3)], restricted=False
        )
    )
    assert text.count("percentile_cont(ARRAY[0.5, 0.95])") == 6
    assert "FILTER (WHERE t.suite_id = 3)" in text
    assert "ANY(%s)" not in text


@pytest.mark.django_db
def test_it_restricts_both_queries_to_some_harnesses_with_one_parameter():
    for query in (
        groups_query(restricted=True),
        percentiles_query([OVERALL_CONDITION], restricted=True),
    ):
        assert rendered(query).count("%s") == 1
    assert "%s" not in rendered(groups_query(restricted=False))
