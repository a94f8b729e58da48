"""The sort rules every table shares (leaderboard.sorting): one implementation for the
benchmark boards and the signal board alike."""

from __future__ import annotations

import math

from leaderboard.sorting import sort_header, sorted_missing_last, valid_sort


def header(current: str, key: str = "pass_rate", first_descending: bool = True):
    return sort_header(
        key,
        current=current,
        first_descending=first_descending,
        label="Pass rate",
        href_query=lambda sort: f"?sort={sort}",
    )


def test_it_sorts_the_better_end_first_on_a_first_click():
    assert header("").href_query == "?sort=-pass_rate"
    assert header("", first_descending=False).href_query == "?sort=pass_rate"
    assert (header("").aria_sort, header("").indicator) == ("none", "")


def test_it_flips_the_direction_of_the_active_column():
    descending = header("-pass_rate")
    assert (descending.href_query, descending.aria_sort, descending.indicator) == (
        "?sort=pass_rate",
        "descending",
        "▼",
    )
    ascending = header("pass_rate")
    assert (ascending.href_query, ascending.aria_sort, ascending.indicator) == (
        "?sort=-pass_rate",
        "ascending",
        "▲",
    )


def test_it_names_the_next_sort_in_lower_case():
    assert header("").next_label == "Sort by pass rate, descending"
    assert header("-pass_rate").next_label == "Sort by pass rate, ascending"


def test_it_keeps_only_a_sort_naming_a_known_key():
    keys = {"rank", "n"}
    assert [valid_sort(raw, keys) for raw in ("n", "-n", "--n", "-", "id", "")] == [
        "n",
        "-n",
        "",
        "",
        "",
        "",
    ]


def test_it_keeps_missing_values_last_in_both_directions():
    values = [2.0, None, 1.0, math.nan, 3.0]
    assert sorted_missing_last(values, lambda v: v, descending=False)[:3] == [1.0, 2.0, 3.0]
    assert sorted_missing_last(values, lambda v: v, descending=True)[:3] == [3.0, 2.0, 1.0]
    for descending in (False, True):
        tail = sorted_missing_last(values, lambda v: v, descending)[3:]
        assert tail[0] is None and math.isnan(tail[1])
