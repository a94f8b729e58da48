"""A run's calls scored against reference calls (ingestion/traces/matching.py): the
selection figures, the match variants, argument accuracy and the alignment."""

from __future__ import annotations

import random

import pytest

from ingestion.traces import (
    FIGURE_KEYS,
    FIGURES,
    Aligned,
    Call,
    ReferenceCall,
    TraceSpec,
    run_trace,
    trace_spec_parse,
    trajectory_score,
)
from ingestion.traces.matching import maximum_matching
from tests.ingestion.traces.builders import calls, names, ref_names, reference

PLAIN = TraceSpec()
VARIANTS = ("exact", "in_order", "any_order", "same_calls", "no_extras")


def _variants(figures: dict, suffix: str = "names", prefix: str = "") -> dict[str, float]:
    return {v: figures[f"{prefix}{v}_{suffix}"] for v in VARIANTS}


def test_it_produces_every_figure_the_table_lists_and_only_those():
    score = trajectory_score(names("a"), ref_names("a"), PLAIN)
    assert list(score.figures) == sorted(score.figures, key=FIGURE_KEYS.index)
    assert set(score.figures) == set(FIGURE_KEYS)
    assert len(FIGURE_KEYS) == len(set(FIGURE_KEYS)) == 28
    assert {f.kind for f in FIGURES} == {"rate", "mean"}
    by_key = {f.key: f for f in FIGURES}
    assert (by_key["exact_names"].vertex, by_key["exact_names"].agentevals) == (
        "trajectory_exact_match",
        "strict",
    )
    assert by_key["in_order_args"].label == "In order (args)"
    assert by_key["any_order_args"].agentevals == "superset"
    assert by_key["same_calls_names"].agentevals == "unordered"
    assert by_key["no_extras_names"].agentevals == "subset"
    assert by_key["tool_precision"].vertex == "trajectory_precision"
    assert by_key["tool_recall"].vertex == "trajectory_recall"


def test_it_forgives_a_reordering_only_in_the_unordered_variants():
    figures = trajectory_score(names("b", "a"), ref_names("a", "b"), PLAIN).figures
    expected = {
        "exact": 0.0,
        "in_order": 0.0,
        "any_order": 1.0,
        "same_calls": 1.0,
        "no_extras": 1.0,
    }
    assert _variants(figures) == expected


def test_it_forgives_an_extra_call_only_where_extras_are_allowed():
    figures = trajectory_score(names("a", "x", "b"), ref_names("a", "b"), PLAIN).figures
    expected = {
        "exact": 0.0,
        "in_order": 1.0,
        "any_order": 1.0,
        "same_calls": 0.0,
        "no_extras": 0.0,
    }
    assert _variants(figures) == expected
    assert figures["tool_precision"] == pytest.approx(2 / 3)
    assert figures["tool_recall"] == 1.0


def test_it_needs_a_call_for_each_copy_of_a_duplicated_reference_call():
    figures = trajectory_score(names("a"), ref_names("a", "a"), PLAIN).figures
    expected = {
        "exact": 0.0,
        "in_order": 0.0,
        "any_order": 0.0,
        "same_calls": 0.0,
        "no_extras": 1.0,
    }
    assert _variants(figures) == expected
    assert (figures["tool_precision"], figures["tool_recall"]) == (1.0, 0.5)


def test_it_counts_tool_names_as_multisets():
    figures = trajectory_score(names("a", "a", "a", "b"), ref_names("a", "b"), PLAIN).figures
    # |A∩R| = min(3, 1) + min(1, 1) = 2: precision 2/4, recall 2/2, F1 2·0.5·1/1.5 = 2/3.
    assert figures["tool_precision"] == 0.5
    assert figures["tool_recall"] == 1.0
    assert figures["tool_f1"] == pytest.approx(2 / 3)


def test_it_states_the_empty_conventions():
    both = trajectory_score([], (), PLAIN).figures
    assert (both["tool_precision"], both["tool_recall"], both["tool_f1"]) == (1.0, 1.0, 1.0)
    assert set(_variants(both).values()) == set(_variants(both, "args").values()) == {1.0}
    assert both["argument_accuracy"] is None
    no_calls = trajectory_score([], ref_names("a"), PLAIN).figures
    assert (no_calls["tool_precision"], no_calls["tool_recall"], no_calls["tool_f1"]) == (0, 0, 0)
    assert _variants(no_calls)["no_extras"] == 1.0 and _variants(no_calls)["any_order"] == 0.0
    no_reference = trajectory_score(names("a"), (), PLAIN).figures
    assert (no_reference["tool_precision"], no_reference["tool_recall"]) == (0.0, 1.0)
    assert no_reference["tool_f1"] == 0.0
    assert (
        _variants(no_reference)["any_order"] == 1.0 and _variants(no_reference)["no_extras"] == 0.0
    )


def test_it_compares_arguments_exact_as_json():
    score = trajectory_score(
        calls(("pay", {"amount": 250.0, "to": {"b": 2, "a": 1}}), ("flag", {"on": 1})),
        reference(("pay", {"amount": 250, "to": {"a": 1, "b": 2}}), ("flag", {"on": True})),
        PLAIN,
    )
    assert [a.status for a in score.alignment] == ["matched", "arguments_differ"]
    assert score.alignment[1].differing == ("on",)
    assert score.figures["same_calls_names"] == 1.0
    assert score.figures["same_calls_args"] == 0.0
    assert score.figures["argument_accuracy"] == pytest.approx(2 / 3)


def test_it_applies_tolerance_normalised_and_ignored_rules():
    spec = trace_spec_parse(
        {
            "arguments": {
                "by_name": {"amount": {"tolerance": 0.01}, "note": "normalised", "id": "ignored"}
            }
        },
        None,
    )
    agent = calls(("refund", {"amount": 10.004, "note": "  Late   FLIGHT!", "id": "zzz"}))
    ref = reference(("refund", {"amount": 10, "note": "late flight", "id": "abc"}))
    score = trajectory_score(agent, ref, spec)
    assert score.figures["exact_args"] == 1.0
    # The ignored `id` is not compared: 2 of 2 compared arguments match.
    assert score.figures["argument_accuracy"] == 1.0
    far = trajectory_score(calls(("refund", {"amount": 10.02, "note": "late"})), ref, spec)
    assert far.figures["exact_args"] == 0.0
    assert far.alignment[0].differing == ("amount", "note")
    assert far.figures["argument_accuracy"] == 0.0


def test_it_takes_a_missing_argument_as_a_mismatch():
    score = trajectory_score(calls(("a", {})), reference(("a", {"x": 1})), PLAIN)
    assert score.figures["exact_args"] == 0.0
    assert score.alignment[0].differing == ("x",)


def test_it_ignores_extra_arguments_unless_they_are_counted():
    agent = calls(("search", {"q": "x", "limit": 5, "debug": True}))
    ref = reference(("search", {"q": "x"}))
    assert trajectory_score(agent, ref, PLAIN).figures["exact_args"] == 1.0
    counted = trace_spec_parse(
        {"extra_arguments": "counted", "arguments": {"by_name": {"debug": "ignored"}}}, None
    )
    score = trajectory_score(agent, ref, counted)
    assert score.figures["exact_args"] == 0.0
    assert score.alignment[0].differing == ("limit",)  # `debug` is ignored either way
    # One matching argument (q) of two compared (q, and the extra limit).
    assert score.figures["argument_accuracy"] == 0.5


def test_it_leaves_ignored_tools_and_failed_calls_out_of_every_figure():
    spec = trace_spec_parse({"ignored_tools": ["think"]}, None)
    agent = [
        Call(0, 0, "think", {}, False),
        Call(1, 0, "cancel", {"id": 1}, True),  # failed: it changed nothing
        Call(2, 1, "cancel", {"id": 1}, False),
        Call(3, 1, "think", {}, True),
    ]
    score = trajectory_score(agent, reference(("think", {}), ("cancel", {"id": 1})), spec)
    assert score.figures["exact_args"] == 1.0
    assert score.figures["tool_precision"] == 1.0
    assert (score.calls, score.reference_calls, score.failed_calls, score.ignored_calls) == (
        4,
        2,
        1,
        2,
    )
    assert [(a.status, a.reference, a.position) for a in score.alignment] == [
        ("ignored", None, 0),
        ("failed", None, 1),
        ("matched", 1, 2),
        ("ignored", None, 3),
    ]


def test_it_pairs_each_reference_call_with_the_call_matching_most_arguments():
    agent = calls(
        ("refund", {"order": 2, "amount": 20}),  # position 0
        ("refund", {"order": 1, "amount": 99}),  # position 1
        ("refund", {"order": 3, "amount": 30}),  # position 2
    )
    ref = reference(
        ("refund", {"order": 1, "amount": 10}),
        ("refund", {"order": 2, "amount": 20}),
        ("lookup", {"order": 4}),
    )
    # Reference 0: position 0 matches 0 of 2, position 1 matches 1 (order), position 2
    # matches 0: paired with position 1. Reference 1: position 0 matches 2 of 2, position 2
    # matches 0: paired with position 0. Reference 2: no lookup call, unpaired, left to
    # recall, shown after position 0 (reference 1's pair). Accuracy = (1 + 2) / (2 + 2)
    # = 0.75; position 2 is an extra.
    score = trajectory_score(agent, ref, PLAIN)
    assert score.figures["argument_accuracy"] == 0.75
    assert score.figures["tool_recall"] == pytest.approx(2 / 3)
    assert score.alignment == (
        Aligned("matched", 1, 0),
        Aligned("missing", 2, None),
        Aligned("arguments_differ", 0, 1, ("amount",)),
        Aligned("extra", None, 2),
    )


def test_it_breaks_pairing_ties_by_the_earliest_call():
    score = trajectory_score(
        calls(("search", {"q": "y"}), ("search", {"q": "z"})),
        reference(("search", {"q": "x"})),
        PLAIN,
    )
    assert score.alignment[0] == Aligned("arguments_differ", 0, 0, ("q",))
    assert score.alignment[1] == Aligned("extra", None, 1)
    assert score.figures["argument_accuracy"] == 0.0


def test_it_has_no_argument_accuracy_without_a_compared_argument():
    assert trajectory_score(names("a"), ref_names("a"), PLAIN).figures["argument_accuracy"] is None
    assert trajectory_score(names("b"), ref_names("a"), PLAIN).figures["argument_accuracy"] is None


def test_it_inserts_missing_reference_calls_after_the_previous_ones_pair():
    score = trajectory_score(names("x", "b", "d"), ref_names("a", "b", "c", "d", "e"), PLAIN)
    assert [(a.status, a.reference, a.position) for a in score.alignment] == [
        ("missing", 0, None),
        ("extra", None, 0),
        ("matched", 1, 1),
        ("missing", 2, None),
        ("matched", 3, 2),
        ("missing", 4, None),
    ]


def test_it_scores_write_calls_on_their_own():
    spec = trace_spec_parse({"write_tools": ["book"]}, None)
    agent = calls(
        ("search", {"q": "Paris"}), ("book", {"flight": "AF1"}), ("search", {"q": "Rome"})
    )
    # The reference's `write` says which calls are writes; the agent's, the spec's write tools.
    ref = (
        ReferenceCall("search", {"q": "Rome"}, False),
        ReferenceCall("book", {"flight": "AF1"}, True),
    )
    score = trajectory_score(agent, ref, spec)
    assert _variants(score.figures, "args", "write_") == dict.fromkeys(VARIANTS, 1.0)
    assert score.figures["write_argument_accuracy"] == 1.0
    assert score.figures["exact_args"] == 0.0
    assert score.figures["same_calls_names"] == 0.0
    assert score.figures["in_order_args"] == 0.0  # Rome is searched after the booking
    assert score.figures["any_order_args"] == 1.0


def test_it_finds_a_maximum_matching_where_greedy_first_fit_fails():
    # Reference 0 (10) matches both calls (11 and 9.5); reference 1 (11.5) only the
    # first. First-fit gives reference 0 the first call and leaves reference 1 none.
    spec = trace_spec_parse({"arguments": {"default": {"tolerance": 1}}}, None)
    agent = calls(("pay", {"amount": 11}), ("pay", {"amount": 9.5}))
    ref = reference(("pay", {"amount": 10}), ("pay", {"amount": 11.5}))
    figures = trajectory_score(agent, ref, spec).figures
    assert figures["any_order_args"] == 1.0
    assert figures["same_calls_args"] == 1.0
    assert figures["exact_args"] == 0.0
    assert maximum_matching([{0, 1}, {0}]) == 2
    assert maximum_matching([{0}, {0, 1}, {1, 2}, {2}]) == 3
    assert maximum_matching([set(), {3}]) == 1


def test_it_matches_hundreds_of_calls_quickly():
    agent = calls(*(("t", {"i": i}) for i in reversed(range(300))))
    ref = reference(*(("t", {"i": i}) for i in range(300)))
    figures = trajectory_score(agent, ref, PLAIN).figures
    assert figures["same_calls_args"] == 1.0 and figures["in_order_args"] == 0.0


def test_it_traces_a_run_from_its_turns():
    spec = trace_spec_parse(
        {"ignored_tools": ["think"]},
        [{"id": "no-drop", "title": "No drops", "kind": "forbidden_tool", "tools": ["drop"]}],
    )
    turns = [
        {
            "role": "assistant",
            "tool_calls": [{"tool": "think", "arguments": {}}, {"tool": "drop", "arguments": {}}],
        },
        {"role": "tool", "text": "ok"},
        {"role": "tool", "text": "Error: no such table"},
    ]
    traced = run_trace(turns, ref_names("drop"), spec)
    assert traced.score is not None and traced.score.failed_calls == 1
    assert traced.score.figures["tool_recall"] == 0.0
    assert [(v.rule, v.position) for v in traced.violations] == [("no-drop", 1)]
    assert run_trace(turns, None, spec).score is None
    empty = run_trace(None, ref_names("a"), TraceSpec())
    assert empty.violations == () and empty.score is not None and empty.score.calls == 0


def test_it_gives_the_name_variants_the_matching_by_name_would():
    # Without arguments every same-tool pair matches with arguments too, so the `_args`
    # variants (a maximum matching) and the `_names` ones (counted per tool) must agree.
    rng = random.Random(7)
    for _ in range(400):
        made = [rng.choice("abc") for _ in range(rng.randrange(6))]
        wanted = [rng.choice("abc") for _ in range(rng.randrange(6))]
        figures = trajectory_score(names(*made), ref_names(*wanted), PLAIN).figures
        assert _variants(figures) == _variants(figures, "args"), (made, wanted)
