"""Signal boards end to end: sessions ingested into PostgreSQL, scored into a snapshot,
read back through GET /api/v1/signals/.

Ingest work runs on commit, so the tests that ingest use transactional test cases.
The pure scoring (leaderboard.signals) is the reference every slice is held to.
"""

from __future__ import annotations

import csv
import io
import json
import math
import tarfile

import numpy as np
import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from ingestion.models import Session, Submission, Turn
from ingestion.services.submissions import submission_ingest
from leaderboard import nir
from leaderboard.models import BoardSnapshot, SignalEntry
from leaderboard.signal_board import (
    CAPABILITIES,
    SCENARIOS,
    SessionTable,
    _Children,
    json_safe,
    load_sessions,
    signal_rows,
    signals_carry_over,
    signals_snapshot_write,
    slice_rows,
)
from leaderboard.signals import score_sessions, summarize_session
from leaderboard.stats import MIN_RANKED_SESSIONS, Z
from tests.builders import EXAMPLE_SESSIONS_BUNDLE, tar_gz_bundle
from tests.conftest import DATA_DIR

SESSIONS_MANIFEST = {"format": "arena-bundle/1", "source": {"name": "t", "kind": "sessions"}}
EXACT = {"abs": 1e-9, "rel": 0}
API = "/api/v1/signals/"

# --- builders --------------------------------------------------------------------------------


def reference_sessions() -> list[dict]:
    with tarfile.open(EXAMPLE_SESSIONS_BUNDLE) as archive:
        member = next(m for m in archive.getmembers() if m.name.endswith("sessions.jsonl"))
        lines = archive.extractfile(member).read().decode().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def session(session_id: str, model: str = "tiny-model", **fields) -> dict:
    base = {
        "session_id": session_id,
        "model": model,
        "scenario": "general_assistant",
        "user": f"raw-user-{session_id}",
        "confirmation": "yes",
        "toolset": ["bash"],
        "turns": [
            {"role": "user", "text": "Set it up.", "label": None},
            {
                "role": "assistant",
                "text": "Done.",
                "tool_calls": [{"tool": "bash", "arguments": {"command": "make"}, "exit_code": 0}],
            },
            {"role": "user", "text": "Great, thanks!", "label": "praise"},
        ],
    }
    base.update(fields)
    return base


def without_nulls(toolset: list | None) -> list | None:
    """A toolset as scoring reads it: ingest spells out absent keys (`kind`) as null."""
    if toolset is None:
        return None
    return [
        {k: v for k, v in entry.items() if v is not None} if isinstance(entry, dict) else entry
        for entry in toolset
    ]


def ingest(user, upload) -> Submission:
    submission, _ = submission_ingest(upload=upload, user=user)
    assert submission.status == Submission.Status.INGESTED, submission.errors
    return submission


def ingest_sessions(user, sessions: list[dict]) -> Submission:
    return ingest(user, tar_gz_bundle(SESSIONS_MANIFEST, sessions=sessions))


def publish() -> BoardSnapshot:
    """A new current snapshot holding the signal boards, whatever recompute ran before."""
    BoardSnapshot.objects.filter(is_current=True).update(is_current=False)
    snapshot = BoardSnapshot.objects.create(computed_at=timezone.now(), is_current=True)
    signals_snapshot_write(snapshot)
    return snapshot


def api_entries(**query) -> list[dict]:
    response = APIClient().get(API, query)
    assert response.status_code == 200, response.content
    return response.json()["entries"]


def scores_of(entries: list[dict]) -> dict[str, dict]:
    return {entry["model"]: entry for entry in entries}


def assert_figures_match(got: dict, expected: dict, context: str) -> None:
    """Every figure of `expected` (nested one level) equals `got` to 1e-9."""
    for signal, figures in expected.items():
        if not isinstance(figures, dict):
            assert got[signal] == figures, (context, signal)
            continue
        for name, value in figures.items():
            if value is None:
                assert got[signal][name] is None, (context, signal, name)
            else:
                assert got[signal][name] == pytest.approx(value, **EXACT), (context, signal, name)


@pytest.fixture
def reference(registry, staff) -> BoardSnapshot:
    ingest(staff, EXAMPLE_SESSIONS_BUNDLE)
    return publish()


# --- load_sessions ---------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_it_streams_stored_sessions_in_the_shape_signals_expects(registry, staff):
    ingest(staff, EXAMPLE_SESSIONS_BUNDLE)
    stored = list(load_sessions())
    original = reference_sessions()
    assert len(stored) == len(original) == 300
    for got, sent in zip(stored, original, strict=True):
        assert got["model"] == sent["model"]
        assert got["scenario"] == sent.get("scenario")
        assert got["confirmation"] == sent.get("confirmation")
        assert without_nulls(got["toolset"]) == without_nulls(sent.get("toolset"))
        assert len(got["turns"]) == len(sent["turns"])
        for turn, sent_turn in zip(got["turns"], sent["turns"], strict=True):
            assert turn["role"] == sent_turn["role"]
            assert turn["text"] == (sent_turn.get("text") or "")
            assert "label" in turn
            if sent_turn["role"] == "user":
                assert turn["label"] == sent_turn["label"]
            calls = [
                {
                    "tool": c["tool"],
                    "arguments": c.get("arguments", {}),
                    "exit_code": c.get("exit_code"),
                }
                for c in sent_turn.get("tool_calls") or []
            ]
            assert turn["tool_calls"] == calls


@pytest.mark.django_db(transaction=True)
def test_it_loads_one_scenario_and_can_leave_texts_out(registry, staff):
    ingest(staff, EXAMPLE_SESSIONS_BUNDLE)
    stored = list(load_sessions(scenario="workflow_automation", with_text=False))
    expected = [s for s in reference_sessions() if s.get("scenario") == "workflow_automation"]
    assert [s["model"] for s in stored] == [s["model"] for s in expected]
    assert all(t["text"] is None for s in stored for t in s["turns"])


@pytest.mark.django_db(transaction=True)
def test_it_scores_the_stored_sessions_like_the_bundle(registry, staff):
    ingest(staff, EXAMPLE_SESSIONS_BUNDLE)
    assert score_sessions(load_sessions(with_text=False)) == score_sessions(reference_sessions())


def test_it_merges_child_rows_skipping_those_of_sessions_it_did_not_see():
    # Session 2 was committed between the session query and the turn query.
    children = _Children(iter([(1, "a"), (1, "b"), (2, "x"), (3, "c")]))
    assert children.take(1) == [("a",), ("b",)]
    assert children.take(3) == [("c",)]
    assert children.take(4) == []


# --- the composite board against expected.json -------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_it_publishes_the_expected_signals_through_the_api(reference):
    expected = json.loads((DATA_DIR / "expected.json").read_text())["signals"]
    response = APIClient().get(API)
    body = response.json()
    assert response.status_code == 200
    assert body["computed_at"] is not None
    got = scores_of(body["entries"])
    assert set(got) == set(expected)
    for model, figures in expected.items():
        assert_figures_match(got[model], figures, model)


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
    expected = json.loads((DATA_DIR / "expected.json").read_text())["signals"]
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


# --- snapshot hooks ------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_it_writes_every_slice_into_the_snapshot(reference):
    scopes = set(SignalEntry.objects.filter(snapshot=reference).values_list("scope", "slice_kind"))
    assert ("all", "composite") in scopes
    assert {(s, "scenario") for s in SCENARIOS} <= scopes
    assert {(f"capability:{c}", "capability") for c in CAPABILITIES} <= scopes
    reference.refresh_from_db()
    assert reference.sessions_total == 300
    for row in SignalEntry.objects.filter(snapshot=reference):
        json.dumps(row.data, allow_nan=False)


@pytest.mark.django_db(transaction=True)
def test_it_carries_the_signal_rows_over_to_a_new_snapshot(reference):
    new = BoardSnapshot.objects.create(computed_at=timezone.now())
    signals_carry_over(reference, new)
    fields = ("scope", "slice_kind", "greyed", "position", "rank", "model_name", "sessions", "data")
    before = list(reference.signal_entries.order_by("scope", "position").values_list(*fields))
    after = list(new.signal_entries.order_by("scope", "position").values_list(*fields))
    assert after == before
    new.refresh_from_db()
    assert new.sessions_total == 300


@pytest.mark.django_db(transaction=True)
def test_it_computes_the_boards_when_there_is_nothing_to_carry_over(registry, staff):
    ingest(staff, EXAMPLE_SESSIONS_BUNDLE)
    empty = BoardSnapshot.objects.create(computed_at=timezone.now())
    SignalEntry.objects.filter(snapshot=empty).delete()
    new = BoardSnapshot.objects.create(computed_at=timezone.now())
    signals_carry_over(empty, new)
    assert new.signal_entries.filter(scope="all").count() == 3
    newer = BoardSnapshot.objects.create(computed_at=timezone.now())
    signals_carry_over(None, newer)
    assert newer.signal_entries.filter(scope="all").count() == 3


@pytest.mark.django_db(transaction=True)
def test_it_publishes_the_shell_success_rate_per_model(registry, staff):
    toolset = [{"name": "sandbox", "kind": "shell"}, "read_file"]
    turns = [
        {"role": "user", "text": "Build it.", "label": None},
        {
            "role": "assistant",
            "text": "Done.",
            "tool_calls": [
                {"tool": "sandbox", "arguments": {"command": "make"}, "exit_code": 2},
                {"tool": "sandbox", "arguments": {"command": "make"}, "exit_code": 0},
                {"tool": "bash", "arguments": {"command": "ls"}, "exit_code": None},
                {"tool": "read_file", "arguments": {"path": "x"}, "exit_code": 1},
            ],
        },
    ]
    ingest_sessions(
        staff,
        [
            session("s-1", toolset=toolset, turns=turns),
            session("s-2"),  # one bash call exiting 0
            session("s-3", toolset=None, turns=turns[:1]),  # no shell calls
        ],
    )
    publish()
    (entry,) = api_entries()
    assert entry["shell_success"]["calls"] == 3
    assert entry["shell_success"]["value"] == pytest.approx(2 / 3)
    (capability,) = api_entries(capability="shell_success")
    assert capability["sessions"] == 2  # the session without shell calls is not scored


@pytest.mark.django_db
def test_it_computes_no_rows_without_sessions():
    assert signal_rows() == []


# --- API edges -----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_answers_an_empty_board_before_any_snapshot():
    response = APIClient().get(API)
    assert response.status_code == 200
    assert response.json() == {"computed_at": None, "entries": []}


@pytest.mark.django_db(transaction=True)
def test_it_rejects_an_unknown_capability_and_two_slices_at_once(reference):
    assert APIClient().get(API, {"capability": "telepathy"}).status_code == 400
    both = {"scenario": SCENARIOS[0], "capability": CAPABILITIES[0]}
    assert APIClient().get(API, both).status_code == 400


@pytest.mark.django_db(transaction=True)
def test_it_serves_the_board_as_csv(reference):
    response = APIClient().get(API, {"format": "csv"})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    lines = response.content.decode().splitlines()
    assert lines[0].startswith("# computed_at")
    rows = list(csv.DictReader(io.StringIO("\n".join(lines[1:]))))
    assert [r["model"] for r in rows] == [e["model"] for e in api_entries()]
    assert {"net_improvement.p_value", "tool_hallucination.calls"} <= set(rows[0])
    assert {"shell_success.value", "shell_success.calls"} <= set(rows[0])


@pytest.mark.django_db(transaction=True)
def test_it_writes_a_formula_like_model_name_inert_in_csv(registry, staff):
    ingest_sessions(staff, [session("s-1", model="=HYPERLINK(1)")])
    publish()
    body = APIClient().get(API, {"format": "csv"}).content.decode()
    assert "'=HYPERLINK(1)" in body


@pytest.mark.django_db
def test_it_documents_the_signals_endpoint_in_the_schema():
    response = APIClient().get(reverse("api-schema"), {"format": "json"})
    schema = json.loads(response.content)
    operation = schema["paths"]["/api/v1/signals/"]["get"]
    assert {p["name"] for p in operation["parameters"]} >= {"scenario", "capability"}
    components = schema["components"]["schemas"]
    assert {"net_improvement", "tool_hallucination", "shell_success"} <= set(
        components["SignalEntry"]["properties"]
    )


@pytest.mark.django_db(transaction=True)
def test_it_never_exposes_raw_user_ids_or_their_hashes(registry, staff):
    ingest_sessions(staff, [session(f"s-{i}") for i in range(3)])
    publish()
    hashes = list(Session.objects.values_list("user_hash", flat=True))
    for query in ({}, {"scenario": "general_assistant"}, {"format": "csv"}):
        body = APIClient().get(API, query).content.decode()
        assert "raw-user-" not in body
        assert not any(h and h in body for h in hashes)
