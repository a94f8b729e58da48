"""Counted sessions streamed out of PostgreSQL (leaderboard.signalboard.loading)."""

from __future__ import annotations

import pytest

from leaderboard.methodology.session_scores import score_sessions
from leaderboard.signalboard.loading import _Children, load_sessions
from tests.builders import EXAMPLE_SESSIONS_BUNDLE
from tests.leaderboard.signalboard.helpers import ingest, reference_sessions, without_nulls

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
            if sent_turn["role"] == "user":  # the example labels every user turn itself
                sent_label = sent_turn["label"]
                assert turn["labels"] == ([sent_label] if sent_label else [])
                assert turn["label_source"] == "bundle"
            else:
                assert "labels" not in turn
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
    assert all(t["text"] is None for s in stored for t in s["turns"] if t["role"] == "user")
    # Assistant texts stay: capability claims are read from them.
    assert {t["text"] for s in stored for t in s["turns"] if t["role"] == "assistant"} == {
        "Done: ran the commands."
    }


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
