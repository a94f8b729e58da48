"""Signal boards computed from sessions (leaderboard.signalboard.compute), end to end:
sessions ingested into PostgreSQL, scored into a snapshot, read back through
GET /api/v1/signals/, and the ranking rules on stated figures.

Ingest work runs on commit, so the tests that ingest use transactional test cases.
The pure scoring (leaderboard.methodology.session_scores) is the reference every slice
is held to.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from rest_framework.test import APIClient

from ingestion.models import Submission, Turn
from leaderboard.methodology import nir
from leaderboard.methodology.session_scores import score_sessions
from leaderboard.methodology.sessions import summarize_session
from leaderboard.methodology.stats import MIN_RANKED_SESSIONS, Z
from leaderboard.models import BoardSnapshot, SignalEntry
from leaderboard.signalboard.compute import SessionTable, json_safe, slice_rows
from leaderboard.signalboard.slices import CAPABILITIES, SCENARIOS
from tests.builders import EXAMPLE_SESSIONS_BUNDLE
from tests.leaderboard.methodology.reference import assert_reference_steering, expected_signals
from tests.leaderboard.signalboard.helpers import (
    API,
    EXACT,
    api_entries,
    assert_figures_match,
    ingest,
    ingest_sessions,
    publish,
    reference_sessions,
    scores_of,
    session,
)

# --- the composite board against expected.json -------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_it_publishes_the_expected_signals_through_the_api(reference):
    expected = expected_signals()
    response = APIClient().get(API)
    body = response.json()
    assert response.status_code == 200
    assert body["computed_at"] is not None
    got = scores_of(body["entries"])
    assert set(got) == set(expected)
    for model, figures in expected.items():
        assert_figures_match(got[model], figures, model)


@pytest.mark.django_db(transaction=True)
def test_it_publishes_the_reference_turns_to_recover_and_bash_split(reference):
    # Aggregated from the stored session scores, not rescored: the same figures.
    assert_reference_steering(scores_of(api_entries()))


@pytest.mark.django_db(transaction=True)
def test_it_returns_every_api_field_with_nir_interval_and_p_value(reference):
    for entry in api_entries():
        assert set(entry) >= {
            "model", "sessions", "confirmed_success", "praise_complaint", "steerability",
            "bash_recovery", "tool_hallucination", "net_improvement", "rank", "greyed",
        }  # fmt: skip
        assert set(entry["confirmed_success"]) >= {"value", "low", "high", "n"}
        assert set(entry["praise_complaint"]) >= {"value", "low", "high", "n"}
        assert set(entry["steerability"]) >= {"value", "low", "high", "mean_effort"}
        assert set(entry["bash_recovery"]) >= {"value", "low", "high", "episodes", "recovery_rate"}
        assert set(entry["tool_hallucination"]) >= {"value", "low", "high", "calls"}
        assert set(entry["shell_success"]) == {"value", "low", "high", "calls"}
        nir_figures = entry["net_improvement"]
        assert nir_figures["low"] == pytest.approx(
            nir_figures["value"] - Z * nir_figures["null_sd"]
        )
        assert nir_figures["high"] == pytest.approx(
            nir_figures["value"] + Z * nir_figures["null_sd"]
        )
        assert 0 < nir_figures["p_value"] <= 1


@pytest.mark.django_db(transaction=True)
def test_it_ranks_the_composite_by_the_lower_end_of_the_nir_interval(reference):
    entries = api_entries()
    lows = [e["net_improvement"]["low"] for e in entries]
    assert lows == sorted(lows, reverse=True)
    assert [e["rank"] for e in entries] == [1, 2, 3]
    assert all(e["scope"] == "all" and not e["greyed"] for e in entries)


# --- scenario slices ----------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_it_scores_each_scenario_on_its_own_sessions(reference):
    sessions = reference_sessions()
    for scenario in SCENARIOS:
        expected = score_sessions([s for s in sessions if s.get("scenario") == scenario])
        got = scores_of(api_entries(scenario=scenario))
        assert set(got) == set(expected), scenario
        for model, figures in expected.items():
            figures = {k: v for k, v in figures.items() if k != "sessions"}
            figures["steerability"] = {
                k: v for k, v in figures["steerability"].items() if k != "turns"
            }
            assert_figures_match(got[model], figures, f"{scenario}/{model}")
            assert got[model]["sessions"] == expected[model]["sessions"]
            assert got[model]["scope"] == scenario


@pytest.mark.django_db(transaction=True)
def test_it_rejects_an_unknown_scenario(reference):
    response = APIClient().get(API, {"scenario": "astrology"})
    assert response.status_code == 400
    assert "scenario" in response.json()


@pytest.mark.django_db(transaction=True)
def test_it_greys_and_never_ranks_scenario_slices_under_30_sessions(reference):
    counts = {}
    for s in reference_sessions():
        counts[(s["model"], s["scenario"])] = counts.get((s["model"], s["scenario"]), 0) + 1
    small = {key for key, n in counts.items() if n < MIN_RANKED_SESSIONS}
    assert small, "the reference bundle has small slices"
    for scenario in SCENARIOS:
        entries = api_entries(scenario=scenario)
        # never hidden: every model with sessions in the scenario is listed
        assert {e["model"] for e in entries} == {m for m, g in counts if g == scenario}
        for entry in entries:
            greyed = (entry["model"], scenario) in small
            assert entry["greyed"] is greyed
            assert (entry["rank"] is None) is greyed
            assert entry["confirmed_success"]["low"] is not None  # still has its interval
        # unranked rows come after the ranked ones
        ranks = [e["rank"] for e in entries]
        assert ranks == sorted(ranks, key=lambda r: (r is None, r or 0))


# --- capability slices (the cross view) ---------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_it_computes_each_capability_nir_from_the_sessions_own_values(reference):
    summaries = [summarize_session(s) for s in reference_sessions()]
    for capability in CAPABILITIES:
        defined = [
            (s.model, s.scenario, s.capability_outcomes()[capability])
            for s in summaries
            if s.capability_outcomes()[capability] is not None
        ]
        models, strata, y = zip(*defined, strict=True)
        expected = nir.nir_closed_form_all(np.array(y), list(models), list(strata))
        got = scores_of(api_entries(capability=capability))
        assert set(got) == set(expected)
        for model, result in expected.items():
            figures = got[model]["net_improvement"]
            for name in ("value", "low", "high", "p_value", "observed_gap", "null_mean", "null_sd"):
                assert figures[name] == pytest.approx(getattr(result, name), **EXACT), (
                    capability, model, name,
                )  # fmt: skip
            assert got[model]["sessions"] == models.count(model)


@pytest.mark.django_db(transaction=True)
def test_it_repeats_the_headline_nir_in_the_confirmed_success_capability(reference):
    composite = scores_of(api_entries())
    capability = scores_of(api_entries(capability="confirmed_success"))
    for model, entry in composite.items():
        assert capability[model]["net_improvement"] == entry["net_improvement"]


def test_it_matches_capability_outcomes_of_every_session():
    sessions = reference_sessions()
    table = SessionTable(iter(sessions))
    for capability in CAPABILITIES:
        y, defined = table._outcome(capability)
        expected = [summarize_session(s).capability_outcomes()[capability] for s in sessions]
        assert list(defined) == [value is not None for value in expected]
        assert [float(v) for v in y[defined]] == pytest.approx(
            [v for v in expected if v is not None], abs=1e-12
        )


def test_it_scores_the_composite_exactly_as_score_sessions():
    sessions = reference_sessions()
    assert SessionTable(iter(sessions)).composite() == score_sessions(sessions)


def test_it_scores_each_scenario_exactly_as_score_sessions_on_its_sessions():
    sessions = reference_sessions()
    table = SessionTable(iter(sessions))
    for scenario in SCENARIOS:
        subset = [s for s in sessions if s.get("scenario") == scenario]
        assert table.scenario(scenario) == score_sessions(subset), scenario


def test_it_builds_no_rows_from_no_sessions():
    table = SessionTable(iter([]))
    assert table.composite() == {}
    assert table.scenario(SCENARIOS[0]) == {}
    assert table.capability("steerability", {}) == {}


# --- few sessions, withdrawn submissions, labels -------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_it_lists_a_model_with_few_sessions_greyed_and_unranked(registry, staff):
    ingest(staff, EXAMPLE_SESSIONS_BUNDLE)
    ingest_sessions(staff, [session(f"tiny-{i}") for i in range(5)])
    publish()
    entries = api_entries()
    tiny = entries[-1]
    assert tiny["model"] == "tiny-model"
    assert (tiny["sessions"], tiny["greyed"], tiny["rank"]) == (5, True, None)
    assert tiny["confirmed_success"]["value"] == 1.0
    assert all(e["rank"] is not None and not e["greyed"] for e in entries[:-1])
    row = SignalEntry.objects.get(
        snapshot=BoardSnapshot.objects.current(), scope="all", model_name="tiny-model"
    )
    assert row.greyed and row.data["greyed"] is True


@pytest.mark.django_db(transaction=True)
def test_it_leaves_out_the_sessions_of_withdrawn_submissions(registry, staff):
    ingest(staff, EXAMPLE_SESSIONS_BUNDLE)
    extra = ingest_sessions(
        staff, [session(f"tiny-{i}", model="frontier-large") for i in range(40)]
    )
    publish()
    assert scores_of(api_entries())["frontier-large"]["sessions"] == 96 + 40
    Submission.objects.filter(pk=extra.pk).update(status=Submission.Status.WITHDRAWN)
    publish()
    expected = expected_signals()
    got = scores_of(api_entries())
    for model, figures in expected.items():
        assert_figures_match(got[model], figures, model)


@pytest.mark.django_db(transaction=True)
def test_it_uses_bundle_labels_over_the_extractor(registry, staff):
    complaint = "This is still broken."
    labelled_none = session("s-none")
    labelled_none["turns"][2] = {"role": "user", "text": complaint, "label": None}
    unlabelled = session("s-extracted")
    unlabelled["turns"][2] = {"role": "user", "text": complaint}
    ingest_sessions(staff, [labelled_none, unlabelled])
    sources = dict(
        Turn.objects.filter(role="user", position=2).values_list(
            "session__session_id", "label_source"
        )
    )
    assert sources == {"s-none": "bundle", "s-extracted": "extractor"}
    publish()
    praise = scores_of(api_entries())["tiny-model"]["praise_complaint"]
    # The bundle's "none of them" stays none; only the unlabelled turn is a complaint.
    assert (praise["n"], praise["value"]) == (1, 0.0)


# --- ranking rules (no database) ----------------------------------------------------------------


def scores(sessions: int, low: float | None, value: float = 0.0) -> dict:
    return {
        "sessions": sessions,
        "net_improvement": {"value": value, "low": low, "high": None, "p_value": 0.5},
    }


def test_it_gives_tied_lower_ends_the_same_competition_rank():
    rows = slice_rows(
        "all",
        "composite",
        {
            "a": scores(40, 0.10),
            "b": scores(40, 0.20),
            "c": scores(40, 0.10),
            "d": scores(40, -0.05),
            "few": scores(29, 0.90),
            "few-at-zero": scores(5, 0.0),
            "none": scores(40, None),
        },
    )
    assert [(r["model_name"], r["rank"], r["position"]) for r in rows] == [
        ("b", 1, 0),
        ("a", 2, 1),
        ("c", 2, 2),
        ("d", 4, 3),
        ("few", None, 4),  # greyed however good its interval
        ("few-at-zero", None, 5),
        ("none", None, 6),
    ]
    assert [r["greyed"] for r in rows] == [False] * 4 + [True, True, False]


def test_it_never_lets_nan_or_infinity_reach_json():
    data = json_safe(
        {
            "a": math.nan,
            "b": [math.inf, -math.inf, np.float64(0.5)],
            "c": np.int64(3),
            "d": np.bool_(True),
        }
    )
    assert data == {"a": None, "b": [None, None, 0.5], "c": 3, "d": True}
    json.dumps(data, allow_nan=False)
    rows = slice_rows("all", "composite", {"m": scores(40, math.nan, value=math.nan)})
    assert rows[0]["rank"] is None
    assert rows[0]["data"]["net_improvement"]["value"] is None
