"""The k of the pass^k column in a board's query: validated, canonical, dropped when the
column is off. Pure: no database."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.http import QueryDict

from leaderboard.boards.params import BoardParams
from leaderboard.methodology.stats import PASS_K_MAX
from leaderboard.presentation.board import pass_k_at


def parsed(query: str) -> BoardParams:
    return BoardParams.from_query(QueryDict(query))


def test_it_reads_k_with_the_pass_k_column_and_puts_it_in_the_canonical_url():
    params = parsed("k=3&col=passk&col=cost")
    assert params.k == 3
    assert params.querystring() == "?col=cost&col=passk&k=3"


@pytest.mark.parametrize("k", ["0", str(PASS_K_MAX + 1), "-1", "two", "²", "3.0", "", " "])
def test_it_ignores_a_k_out_of_range_or_not_a_number(k):
    params = parsed(f"col=passk&k={k}")
    assert params.k is None and "k=" not in params.querystring()


def test_it_drops_k_without_the_pass_k_column_so_the_cache_key_stays_canonical():
    assert parsed("k=3").querystring() == parsed("").querystring() == ""
    assert parsed("k=3&col=cost").k is None


def entry(**rows: float) -> SimpleNamespace:
    table = {k[1:]: {"value": v, "pass_at_k": v, "tasks": 4} for k, v in rows.items()}
    # k=3 averages over fewer tasks: some task has only two trials.
    table["3"] = {"value": 0.1, "pass_at_k": 0.9, "tasks": 3}
    return SimpleNamespace(pass_hat_k=table, coverage_tasks=4)


def test_it_shows_pass_k_at_the_chosen_k_only_over_every_covered_task():
    row = entry(k1=0.8, k2=0.6)
    assert pass_k_at(row, 2).value == 0.6
    assert pass_k_at(row, 3) is None  # not every covered task has three trials
    assert pass_k_at(row, None).k == 2  # the largest k over every task
