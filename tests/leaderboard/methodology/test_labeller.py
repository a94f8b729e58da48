"""Tests for leaderboard.methodology.labeller: the rule-based extractor for user turns that
come without a label, and the rule that bundle labels always win (methodology §3).

Pure Python: no Django, no database.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from leaderboard.methodology.labeller import (
    COMPLAINT,
    CORRECTION,
    PRAISE,
    SOURCE_BUNDLE,
    SOURCE_EXTRACTOR,
    label_user_turn,
    turn_labels,
)

LABELLED_TURNS = Path(__file__).resolve().parents[2] / "data" / "labelled_turns.jsonl"
# The stated accuracy of the rules on the whole hand-labelled set, ambiguous turns
# included; on the turns marked clear they must be exact.
MIN_ACCURACY = 0.9


def _labelled() -> list[dict]:
    lines = LABELLED_TURNS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_it_reaches_the_stated_accuracy_on_the_hand_labelled_set() -> None:
    rows = _labelled()
    assert len(rows) >= 40
    hits = sum(label_user_turn(r["text"], r["previous"]) == r["label"] for r in rows)
    assert hits / len(rows) >= MIN_ACCURACY


def test_it_labels_every_clear_turn_exactly() -> None:
    clear = [r for r in _labelled() if r["clear"]]
    assert len(clear) >= 30
    misses = [
        (r["text"], r["label"], label_user_turn(r["text"], r["previous"]))
        for r in clear
        if label_user_turn(r["text"], r["previous"]) != r["label"]
    ]
    assert misses == []


def test_it_covers_every_label_in_the_hand_labelled_set() -> None:
    labels = {r["label"] for r in _labelled() if r["clear"]}
    assert labels == {PRAISE, COMPLAINT, CORRECTION, None}


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Great, thanks!", PRAISE),
        ("Thanks!", PRAISE),
        ("This is still broken.", COMPLAINT),
        ("Not what I asked.", COMPLAINT),
        ("No, use the other config file.", CORRECTION),
        ("Continue.", None),
        ("Please set up the project and run the tests.", None),
    ],
)
def test_it_agrees_with_the_reference_bundle_labels(text: str, label: str | None) -> None:
    # Every distinct user text of tests/data/bundles/sessions.tar.gz, with its label.
    assert label_user_turn(text, "Done: ran the commands.") == label


def test_it_prefers_correction_over_complaint_and_praise() -> None:
    assert label_user_turn("Still broken. Use the staging config instead.") == CORRECTION
    assert label_user_turn("Thanks, but use tabs instead of spaces.") == CORRECTION


def test_it_prefers_complaint_over_praise() -> None:
    assert label_user_turn("That's not great.") == COMPLAINT


def test_it_reads_a_no_that_answers_the_models_question_as_no_correction() -> None:
    assert label_user_turn("No, keep them.", "Should I delete the old logs?") is None
    assert label_user_turn("No, keep them.", "I deleted the old logs.") == CORRECTION


def test_it_reads_not_x_as_a_correction_only_when_the_model_just_did_x() -> None:
    previous = "I edited staging.yaml with the new keys."
    assert label_user_turn("Not staging.yaml, prod.yaml.", previous) == CORRECTION
    assert label_user_turn("Not staging.yaml, prod.yaml.", None) is None


def test_it_does_not_read_no_worries_as_a_rejection() -> None:
    assert label_user_turn("No worries, thanks!", "Sorry for the delay.") == PRAISE


def test_it_does_not_read_a_reported_fix_as_a_complaint() -> None:
    assert label_user_turn("No errors now, great job.") == PRAISE


def test_it_labels_an_empty_turn_as_none() -> None:
    assert label_user_turn("", None) is None


# --- sessions: bundle labels win, sources recorded ------------------------------------------


def _session() -> dict:
    return {
        "session_id": "s-1",
        "model": "m",
        "turns": [
            {"role": "user", "text": "Set it up."},
            {"role": "assistant", "text": "Should I use npm?", "tool_calls": []},
            {"role": "user", "text": "No, use yarn instead."},
            {"role": "tool", "text": "exit 0"},
            {"role": "assistant", "text": "Done.", "tool_calls": []},
            {"role": "user", "text": "Thanks!", "label": None},
            {"role": "user", "text": "ok", "label": "complaint"},
        ],
    }


def test_it_records_each_user_turn_label_and_its_source() -> None:
    assert turn_labels(_session()["turns"]) == [
        (None, SOURCE_EXTRACTOR),
        None,
        (CORRECTION, SOURCE_EXTRACTOR),  # "instead" redirects even after a question
        None,
        None,
        (None, SOURCE_BUNDLE),  # a null bundle label wins over "Thanks!"
        (COMPLAINT, SOURCE_BUNDLE),  # bundle labels are used as they are
    ]
