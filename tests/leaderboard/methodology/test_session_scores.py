"""Tests for leaderboard.methodology.session_scores: models scored apart, and the reference
bundle against tests/data/expected.json (methodology §3).

Pure Python: no Django, no database.
"""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest

from leaderboard.methodology.session_scores import score_sessions
from leaderboard.methodology.stats import Z
from tests.leaderboard.methodology.session_builders import assistant, session

DATA = Path(__file__).resolve().parents[2] / "data"


def test_it_scores_each_model_separately() -> None:
    sessions = [
        session(assistant(), model="a", confirmation="yes"),
        session(assistant(), model="b", confirmation="no"),
        session(assistant(), model="a", confirmation="no"),
    ]
    scores = score_sessions(sessions)
    assert list(scores) == ["a", "b"]
    assert scores["a"]["sessions"] == 2 and scores["b"]["sessions"] == 1
    assert scores["a"]["confirmed_success"]["value"] == 0.5
    nir = scores["a"]["net_improvement"]
    assert set(nir) == {
        "value",
        "observed_gap",
        "null_mean",
        "null_sd",
        "low",
        "high",
        "p_value",
    }


def test_it_scores_no_sessions_as_no_models() -> None:
    assert score_sessions([]) == {}


# --- the reference bundle ------------------------------------------------------------------


def _reference_sessions() -> list[dict]:
    with tarfile.open(DATA / "bundles" / "sessions.tar.gz") as archive:
        member = next(m for m in archive.getmembers() if m.name.endswith("sessions.jsonl"))
        lines = archive.extractfile(member).read().decode("utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_it_reproduces_every_signal_of_the_reference_bundle() -> None:
    expected = json.loads((DATA / "expected.json").read_text())["signals"]
    scores = score_sessions(_reference_sessions())
    assert set(scores) == set(expected)
    for model, entry in expected.items():
        for signal, figures in entry.items():
            if not isinstance(figures, dict):
                assert scores[model][signal] == figures, (model, signal)
                continue
            for name, value in figures.items():
                got = scores[model][signal][name]
                assert got == pytest.approx(value, abs=1e-9, rel=0), (model, signal, name)


def test_it_publishes_nir_intervals_and_p_values_for_the_reference_bundle() -> None:
    for entry in score_sessions(_reference_sessions()).values():
        nir = entry["net_improvement"]
        assert nir["low"] == pytest.approx(nir["value"] - Z * nir["null_sd"])
        assert nir["high"] == pytest.approx(nir["value"] + Z * nir["null_sd"])
        assert 0 < nir["p_value"] <= 1
