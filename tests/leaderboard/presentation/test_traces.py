"""How trajectory figures and rule violations read (pure)."""

from __future__ import annotations

from types import SimpleNamespace

from ingestion.traces.figures import FIGURES
from leaderboard.presentation.figures import MISSING
from leaderboard.presentation.intervals import share_bounds
from leaderboard.presentation.traces import (
    BOARD_FIGURES,
    BRIEF_CHARACTERS,
    arguments_brief,
    board_trajectory_cells,
    board_trajectory_labels,
    figure_pairs,
    figure_rows,
    rule_counts,
    violations_text,
    violations_total,
)

TRAJECTORY = {
    "tool_f1": {"value": 0.75, "low": 0.5, "high": 0.9, "n": 8},
    "write_tool_f1": {"value": 0.5, "low": 0.2, "high": 0.8, "n": 4},
    "exact_args": {"value": 0.25, "low": None, "high": None, "n": 4},
    "retired_figure": {"value": 1.0, "n": 1},
}


def test_it_formats_the_figures_in_the_table_s_order_skipping_unknown_keys():
    rows = figure_rows(TRAJECTORY)
    order = [figure.key for figure in FIGURES]
    keys = [row.figure.key for row in rows]
    assert keys == sorted(["tool_f1", "exact_args", "write_tool_f1"], key=order.index)
    f1 = rows[keys.index("tool_f1")]
    assert (f1.value, f1.n) == ("75.0%", 8)
    assert f1.bounds == share_bounds(0.5, 0.9)
    assert rows[keys.index("exact_args")].bounds == share_bounds(None, None)
    assert figure_rows({}) == [] and figure_rows(None) == []


def test_it_pairs_each_figure_with_its_write_only_twin():
    pairs = {pair.all.figure.key: pair for pair in figure_pairs(TRAJECTORY)}
    assert set(pairs) == {"tool_f1", "exact_args"}
    assert pairs["tool_f1"].write.figure.key == "write_tool_f1"
    assert pairs["exact_args"].write is None


def test_it_gives_one_board_cell_per_board_figure():
    cells = board_trajectory_cells(SimpleNamespace(trajectory=TRAJECTORY))
    assert len(cells) == len(BOARD_FIGURES) == len(board_trajectory_labels())
    assert cells[0].figure.key == "tool_f1"
    assert cells[1:] == [None, None]
    assert board_trajectory_cells(SimpleNamespace(trajectory={})) == [None] * len(BOARD_FIGURES)


def test_it_counts_violations_never_as_a_rate():
    checked = SimpleNamespace(violations={"checked": 200, "any": 3, "rules": {"a": 3}})
    assert violations_total(checked) == 3
    assert violations_text(checked) == "3 of 200 runs checked broke a rule"
    clean = SimpleNamespace(violations={"checked": 5})
    assert violations_total(clean) == 0
    unchecked = SimpleNamespace(violations={})
    assert violations_total(unchecked) is None
    assert violations_text(unchecked) == MISSING


def test_it_lists_every_rule_with_its_count_zero_included():
    entry = SimpleNamespace(violations={"checked": 4, "any": 1, "rules": {"b": 1}})
    rules = [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}]
    assert rule_counts(entry, rules) == [(rules[0], 0), (rules[1], 1)]


def test_it_briefs_arguments_as_one_line_cut_with_an_ellipsis():
    assert arguments_brief({"b": 1, "a": "x"}) == '{"a":"x","b":1}'
    long = arguments_brief({"text": "x" * 500})
    assert len(long) == BRIEF_CHARACTERS and long.endswith("…")
    assert arguments_brief({"é": "<script>"}) == '{"é":"<script>"}'  # the template escapes
