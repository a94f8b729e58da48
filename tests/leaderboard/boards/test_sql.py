"""The board queries are composed with psycopg.sql and read rollups only
(leaderboard.boards.sql)."""

from __future__ import annotations

import pytest
from django.db import connection

from leaderboard.boards.sql import groups_query, latencies_query, latency_corrections_query

QUERIES = (groups_query, latencies_query, latency_corrections_query)


def rendered(query) -> str:
    connection.ensure_connection()
    return query.as_string(connection.connection)


@pytest.mark.django_db
@pytest.mark.parametrize("query", QUERIES)
def test_it_never_reads_the_runs_table(query):
    for restricted in (False, True):
        assert "ingestion_run " not in rendered(query(restricted=restricted)) + " "
        assert '"ingestion_run"' not in rendered(query(restricted=restricted))


@pytest.mark.django_db
@pytest.mark.parametrize("query", QUERIES)
def test_it_restricts_each_query_to_some_harnesses_with_one_parameter(query):
    assert rendered(query(restricted=True)).count("%s") == 1
    assert "%s" not in rendered(query(restricted=False))
