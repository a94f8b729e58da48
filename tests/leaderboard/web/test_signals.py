"""The Signals page: composite table, scenario and capability grids, htmx partials.

Board rows are built directly as snapshot rows (figures stated, not computed from
sessions) so each test says only what it is about; one test goes through a real ingest.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from ingestion.models import Session, Submission
from ingestion.services.intake import submission_ingest
from leaderboard.models import BoardSnapshot, SignalEntry
from leaderboard.presentation.signals import p_value, points
from leaderboard.signalboard.snapshot import signals_snapshot_write
from tests.builders import EXAMPLE_SESSIONS_BUNDLE
from tests.leaderboard.signalboard.helpers import model_scores, order_of, publish_board

URL = "/signals/"


@pytest.fixture
def board(db):
    return publish_board(
        {
            "frontier-large": model_scores(96, success=0.57, nir=0.12, sd=0.039, p=0.002),
            "frontier-mini": model_scores(
                96, success=0.57, nir=-0.01, sd=0.037, hallucination=0.01
            ),
            "open-weights-70b": model_scores(108, success=0.40, nir=-0.10, sd=0.037),
            "tiny-model": model_scores(12, success=0.9, nir=0.3, sd=0.1),
        }
    )


# --- composite table -------------------------------------------------------------------------


def test_it_renders_the_composite_table_with_every_signal(client, board):
    response = client.get(URL)
    content = response.content.decode()
    assert response.status_code == 200
    for heading in (
        "Confirmed success", "Praise vs complaint", "Steerability", "Bash recovery",
        "Tool hallucination (lower is better)", "NIR [95% CI]",
    ):  # fmt: skip
        assert heading in content
    assert "57.3%" in content  # 55 of 96 confirmed
    assert points(0.12) in content and p_value(0.002) in content
    assert "n = 96 sessions" in content  # the count, on hover
    assert 'class="ci"' in content and 'class="ci-zero"' in content
    assert order_of(content, ["frontier-large", "frontier-mini", "open-weights-70b"]) == [
        "frontier-large", "frontier-mini", "open-weights-70b",
    ]  # fmt: skip


def test_it_lists_a_model_with_few_sessions_greyed_below_the_ranked(client, board):
    content = client.get(URL).content.decode()
    unranked = content[content.index('<tbody class="unranked">') :]
    assert "tiny-model" in unranked and "few sessions" in unranked
    assert 'class="unranked greyed"' in unranked
    row = SignalEntry.objects.get(scope="all", model_name="tiny-model")
    assert (row.rank, row.greyed) == (None, True)


def row_of(content: str, model: str) -> str:
    """The table row of `model`, its details included."""
    start = content.index(f'<span class="model">{model}</span>')
    return content[start : content.index("</tr>", start)]


# "How stable" (leaderboard.presentation.stability) over each NIR interval of `board`,
# value ± 1.96 · sd wide: 2 · 1.96 · 0.1 = 39.2 points, 2 · 1.96 · 0.039 = 15.3 and
# 2 · 1.96 · 0.037 = 14.5.
STABILITY = {
    "tiny-model": "Only 12 sessions (fewer than 30): not ranked; the 95% interval is 39.2"
    " percentage points wide, so the figure can still change a lot.",
    "frontier-large": "96 sessions (fewer than 100): the 95% interval is 15.3 percentage"
    " points wide; the rank may move as sessions arrive.",
    "open-weights-70b": "108 sessions: the 95% interval is 14.5 percentage points wide.",
}


def test_it_says_how_stable_each_rows_figures_are(client, board):
    content = client.get(URL).content.decode()
    for model, text in STABILITY.items():
        assert f"<dt>How stable</dt><dd>{text}</dd>" in row_of(content, model), model


def test_it_says_how_stable_a_small_models_figures_are_on_its_page(client, board):
    response = client.get(reverse("signal-model", args=["tiny-model"]))
    assert response.status_code == 200
    stability = f'<dt>How stable</dt><dd id="model-stability">{STABILITY["tiny-model"]}</dd>'
    assert stability in response.content.decode()


def test_it_marks_tool_hallucination_as_lower_is_better_and_sorts_it_ascending_first(client, board):
    content = client.get(URL).content.decode()
    header = re.search(r'<th scope="col" class="pass lower-better"[^>]*>.*?</th>', content, re.S)
    assert header and "lower is better" in header.group(0)
    assert "sort=tool_hallucination" in header.group(0)  # first click: ascending
    assert "n = 700 tool calls; lower is better" in content


def test_it_shows_the_shell_success_column_after_bash_recovery(client, board):
    content = client.get(URL).content.decode()
    head = content[content.index("<thead") : content.index("</thead>")]
    assert head.index("Bash recovery") < head.index("Shell success") < head.index("Tool halluc")
    assert "sort=-shell_success" in head  # higher is better: first click sorts descending
    assert "75.0%" in content  # 90 of 120 shell calls exited 0
    assert "Shell success: 95% CI" in content and "n = 120 shell calls" in content
    assert content.count('colspan="10"') == 1  # the "Not ranked" divider spans every column


def test_it_sorts_by_the_shell_success_column(client, db):
    publish_board(
        {
            "steady": model_scores(60, nir=0.05, shell_ok=110),
            "flaky": model_scores(60, nir=0.10, shell_ok=30),
        }
    )
    assert order_of(client.get(URL).content.decode(), ["steady", "flaky"]) == ["flaky", "steady"]
    content = client.get(URL, {"sort": "-shell_success"}).content.decode()
    assert order_of(content, ["steady", "flaky"]) == ["steady", "flaky"]


def test_it_renders_a_board_computed_before_shell_success_existed(client, db):
    old = model_scores(40)
    del old["shell_success"]
    publish_board({"old-model": old})
    for view in ("composite", "capability"):
        response = client.get(URL, {"view": view})
        assert response.status_code == 200
        assert "old-model" in response.content.decode()


def test_it_sorts_by_a_signal_column_within_the_ranked_rows(client, board):
    content = client.get(URL, {"sort": "tool_hallucination"}).content.decode()
    assert order_of(content, ["frontier-large", "frontier-mini", "open-weights-70b"]) == [
        "frontier-mini", "frontier-large", "open-weights-70b",
    ]  # fmt: skip
    content = client.get(URL, {"sort": "-sessions"}).content.decode()
    assert order_of(content, ["frontier-large", "open-weights-70b"]) == [
        "open-weights-70b", "frontier-large",
    ]  # fmt: skip
    assert 'aria-sort="descending"' in content


def test_it_ignores_an_unknown_view_sort_or_signal(client, board):
    response = client.get(URL, {"view": "nope", "sort": "password", "signal": "x"})
    assert response.status_code == 200
    assert 'aria-sort="ascending"' not in response.content.decode()


# --- htmx and links --------------------------------------------------------------------------


def test_it_answers_htmx_with_the_table_partial_only(client, board):
    response = client.get(URL, {"view": "scenario"}, headers={"HX-Request": "true"})
    content = response.content.decode()
    assert response.status_code == 200
    assert content.lstrip().startswith('<div id="signals-table"')
    assert "<html" not in content and "site-header" not in content
    assert "HX-Request" in response["Vary"]


def test_it_gives_the_whole_page_to_an_htmx_history_restore(client, board):
    headers = {"HX-Request": "true", "HX-History-Restore-Request": "true"}
    assert "<html" in client.get(URL, headers=headers).content.decode()


def test_it_links_each_view_with_a_real_href_and_hx_get_pushing_the_url(client, board):
    content = client.get(URL).content.decode()
    assert 'hx-target="#signals-table"' in content and 'hx-push-url="true"' in content
    for query in ("", "?view=scenario", "?view=capability"):
        assert f'href="{URL}{query}" hx-get="{URL}{query}"' in content
    assert 'aria-current="page">Composite<' in content


# --- scenario and capability grids -----------------------------------------------------------


@pytest.fixture
def sliced_board(db):
    composite = {
        "frontier-large": model_scores(96, nir=0.1),
        "open-weights-70b": model_scores(108, nir=-0.1),
    }
    scenarios = {
        "software_development": {
            "frontier-large": model_scores(61, nir=0.05),
            "open-weights-70b": model_scores(52, nir=-0.05),
        },
        "general_assistant": {
            "frontier-large": model_scores(10, success=0.8, nir=0.2),
            "open-weights-70b": model_scores(29, nir=0.0),
        },
        "workflow_automation": {"open-weights-70b": model_scores(27, nir=0.0)},
    }
    return publish_board(composite, scenarios)


def test_it_shows_the_scenario_grid_with_small_slices_greyed_never_hidden(client, sliced_board):
    content = client.get(URL, {"view": "scenario"}).content.decode()
    for label in (
        "All sessions",
        "Software development",
        "Workflow automation",
        "General assistant",
    ):
        assert label in content
    assert content.count("few sessions</span>") == 3  # 10, 29 and 27 sessions
    assert "no sessions" in content  # frontier-large has no workflow sessions
    assert 'aria-current="page">By scenario<' in content
    assert "n = 61 · #1" in content


def test_it_shows_the_figure_picked_for_the_scenario_grid(client, sliced_board):
    content = client.get(URL, {"view": "scenario", "signal": "confirmed_success"}).content.decode()
    assert "80.0%" in content  # frontier-large, general assistant
    assert 'aria-current="true">Confirmed success<' in content
    assert f'href="{URL}?view=scenario&amp;signal=steerability"' in content


def test_it_sorts_the_grid_by_a_slice_column(client, sliced_board):
    content = client.get(URL, {"view": "scenario", "sort": "-general_assistant"}).content.decode()
    assert order_of(content, ["frontier-large", "open-weights-70b"]) == [
        "frontier-large", "open-weights-70b",
    ]  # fmt: skip
    content = client.get(URL, {"view": "scenario", "sort": "general_assistant"}).content.decode()
    assert order_of(content, ["frontier-large", "open-weights-70b"]) == [
        "open-weights-70b", "frontier-large",
    ]  # fmt: skip


def test_it_shows_the_capability_cross_view(client, sliced_board):
    content = client.get(URL, {"view": "capability"}).content.decode()
    for label in ("Result confirmation", "Steerability", "Tool-call validity", "Command execution"):
        assert label in content
    assert points(0.1) in content
    assert "Tool hallucination: 95% CI" in content  # tool validity shows its own signal too
    assert "Command execution (shell success)" in content
    assert "Shell success: 95% CI" in content


# --- safety and cost -------------------------------------------------------------------------


def test_it_escapes_model_names(client, db):
    publish_board({'<script>alert("x")</script>': model_scores(40)})
    for view in ("composite", "scenario", "capability"):
        content = client.get(URL, {"view": view}).content.decode()
        assert "<script>alert" not in content
        assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in content


@pytest.mark.parametrize("view", ["composite", "scenario", "capability"])
def test_it_reads_the_page_in_a_bounded_number_of_queries(
    client, db, view, django_assert_max_num_queries
):
    publish_board({f"model-{i:03d}": model_scores(20 + i, nir=i / 1000) for i in range(80)})
    with django_assert_max_num_queries(6):
        response = client.get(URL, {"view": view, "sort": "-model"})
    assert response.status_code == 200
    assert "model-079" in response.content.decode()


def test_it_says_when_no_board_has_been_computed(client, db):
    response = client.get(URL)
    assert response.status_code == 200
    assert "No signal board has been computed yet" in response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_it_renders_an_ingested_board_without_exposing_user_ids(client, registry, staff):
    submission, _ = submission_ingest(upload=EXAMPLE_SESSIONS_BUNDLE, user=staff)
    assert submission.status == Submission.Status.INGESTED
    BoardSnapshot.objects.filter(is_current=True).update(is_current=False)
    snapshot = BoardSnapshot.objects.create(computed_at=timezone.now(), is_current=True)
    signals_snapshot_write(snapshot)
    hashes = set(Session.objects.values_list("user_hash", flat=True))
    for view in ("composite", "scenario", "capability"):
        content = client.get(URL, {"view": view}).content.decode()
        for model in ("frontier-large", "frontier-mini", "open-weights-70b"):
            assert model in content
        assert not re.search(r"\bu0\d{3}\b", content)  # the bundle's raw user ids
        assert not any(h in content for h in hashes)
    assert "300 sessions" in client.get(URL).content.decode()
