"""The cross-validation page and API: each model's signal figures against its pooled
Overall pass rate, Spearman's ρ against scipy, and the label agreement."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from scipy.stats import spearmanr

from ingestion.models import Turn
from leaderboard.methodology.stats import wilson_interval
from leaderboard.recompute.services import boards_recompute
from tests.builders import outcomes, submit
from tests.conftest import make_user
from tests.leaderboard.signalboard.helpers import ingest_sessions, session
from tests.test_admin import logged_in

URL, API = "/signals/validation/", "/api/v1/signals/validation/"
# Benchmark results per model: (harness, outcomes); alpha runs under two harnesses.
RESULTS = {
    "alpha": [("H", ["pass", "fail"]), ("G", ["pass", "pass"])],
    "beta": [("H", ["fail", "fail", "pass"])],
    "gamma": [("H", ["pass", "pass", "pass"])],
    "delta": [("H", ["fail", "fail", "fail", "pass"])],
}
CONFIRMED = {
    "alpha": ["yes", "no", "yes"],
    "beta": ["no", "no", "yes"],
    "gamma": ["yes", "yes", "yes"],
    "delta": ["no", "yes", "no", "no"],
}


@pytest.fixture
def layers(registry, submitter):
    """Four models on both layers, one on each alone; one recompute of everything."""
    for model, harnesses in RESULTS.items():
        for harness, results in harnesses:
            submit(submitter, outcomes(*results, model=model, prefix=f"{harness}-{model}"),
                   harness=harness)  # fmt: skip
    submit(submitter, outcomes("pass", model="bench-only", prefix="b"), harness="H")
    sessions = [
        session(f"{model}-{i}", model, confirmation=answer)
        for model, answers in {**CONFIRMED, "signal-only": ["yes"]}.items()
        for i, answer in enumerate(answers)
    ]
    ingest_sessions(submitter, sessions)
    return boards_recompute()


def test_it_pools_each_models_overall_entries_and_correlates_as_scipy(client, layers):
    body = client.get(API).json()
    models = {row["model"]: row for row in body["models"]}
    assert set(models) == {"alpha", "beta", "gamma", "delta"}
    assert (body["signal_only"], body["benchmark_only"]) == (["signal-only"], ["bench-only"])
    alpha = models["alpha"]["benchmark"]
    low, high = wilson_interval(3, 4)
    assert alpha == {"value": 0.75, "low": low, "high": high, "passes": 3, "n": 4, "entries": 2}

    rates = [models[m]["benchmark"]["value"] for m in models]
    for correlation in body["correlations"]:
        values = [models[m][correlation["figure"]]["value"] for m in models]
        assert correlation["rho"] == pytest.approx(spearmanr(rates, values).statistic, abs=1e-12)
        assert correlation["models"] == 4
        assert correlation["low"] <= correlation["rho"] <= correlation["high"]


def test_it_says_how_stable_each_models_figures_are(client, layers):
    body = client.get(API).json()
    stability = {row["model"]: row["stability"] for row in body["models"]}
    assert stability["delta"]["level"] == "unranked"
    assert stability["delta"]["text"].startswith("Only 4 sessions (fewer than 30): not ranked;")
    assert "percentage points wide" in stability["delta"]["text"]


def test_it_shows_the_label_agreement_figure(client, layers):
    body = client.get(API).json()
    assert body["label_agreement"]["turns"] == 0
    content = client.get(URL).content.decode()
    assert "No turn has been labelled by hand yet" in content


def test_it_renders_both_charts_with_intervals_on_both_axes(client, layers):
    content = client.get(URL).content.decode()
    assert content.count('class="chart validation-chart"') == 2
    assert '"error_x"' in content and '"error_y"' in content
    assert "Spearman's rank correlation across 4 models" in content
    assert "read the sign, not the digits" in content
    assert 'href="/signals/models/alpha/"' in content


def test_it_says_so_when_no_model_is_on_both_layers(client, db):
    content = client.get(URL).content.decode()
    assert "No model is on both the signal boards and the Overall board yet." in content
    assert client.get(API).json()["models"] == []


# The last user turn of five sessions, left to the extractor, and what two moderators
# then say of it: (text, the extractor's labels, the moderator's labels).
HAND_LABELLED = [
    ("Great, thanks!", ["praise"], ["praise"]),
    ("This is still broken.", ["complaint"], ["complaint"]),
    ("No, use the other config file.", ["correction"], ["correction"]),
    ("Now add a README.", ["iteration"], []),
    ("Try again.", [], ["urging"]),
]


@pytest.fixture
def hand_labelled(
    layers, submitter, moderator, moderator_group, django_capture_on_commit_callbacks
):
    """The moderators' sample labelled through the admin's sampling screen, after the
    page was first read; each save announces the recompute that runs on commit."""
    sessions = [session(f"sampled-{i}", "sampled") for i in range(len(HAND_LABELLED))]
    for item, (text, _, _) in zip(sessions, HAND_LABELLED, strict=True):
        item["turns"][2] = {"role": "user", "text": text}  # no label: the extractor's
    ingest_sessions(submitter, sessions)
    boards_recompute()
    client = Client()
    assert "No turn has been labelled by hand yet" in client.get(URL).content.decode()
    second = make_user("second-moderator", is_staff=True)
    second.groups.add(moderator_group)
    sample = reverse("admin:leaderboard_manuallabel_sample") + "?size=20&seed=fixed"
    for i, (text, extractor, labels) in enumerate(HAND_LABELLED):
        turn = Turn.objects.get(session__session_id=f"sampled-{i}", position=2)
        assert (turn.label_source, sorted(turn.labels)) == ("extractor", extractor), text
        with django_capture_on_commit_callbacks(execute=True):
            saved = logged_in(moderator if i % 2 else second).post(
                sample, {"turn": turn.pk, "labels": labels}
            )
        assert saved.status_code == 302
    return client


def test_it_shows_the_moderators_label_agreement_once_a_sample_is_labelled(hand_labelled):
    # By hand: 3 of the 5 turns agree (the last two differ), p = 0.6. Wilson with
    # z = 1.96: centre (0.6 + z²/10) / (1 + z²/5) = 0.55655, half-width
    # z·√(0.6·0.4/5 + z²/100) / (1 + z²/5) = 0.32583: [0.23072, 0.88238].
    agreement = hand_labelled.get(API).json()["label_agreement"]
    assert (agreement["agreed"], agreement["turns"], agreement["moderators"]) == (3, 5, 2)
    assert agreement["rate"] == pytest.approx(0.6)
    assert agreement["low"] == pytest.approx(0.23072, abs=1e-5)
    assert agreement["high"] == pytest.approx(0.88238, abs=1e-5)
    figure = hand_labelled.get(URL).content.decode()
    assert "No turn has been labelled by hand yet" not in figure
    assert (
        "The extractor agrees with the moderators on <strong>60.0%</strong> of 5 hand-labelled"
        " turns (95% CI 23.1%–88.2%, Wilson; 2 moderators)."
    ) in figure
