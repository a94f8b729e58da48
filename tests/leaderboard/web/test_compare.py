"""The compare page as an anonymous visitor: verdict, per-task table, form, messages."""

from __future__ import annotations

import pytest

from tests.ingestion.services import trace_builders
from tests.leaderboard.signalboard.helpers import model_scores, publish_board
from tests.leaderboard.web.compare_site import ALPHA, BETA, BOARD

PAGE = "/compare/"


@pytest.mark.django_db
def test_it_shows_the_verdict_and_the_tasks_side_by_side(
    client, site, django_assert_max_num_queries
):
    with django_assert_max_num_queries(10):
        response = client.get(PAGE, {"board": BOARD, "a": ALPHA, "b": BETA})
    assert response.status_code == 200
    html = response.content.decode()
    assert "A is better on this board (p &lt; 0.001)" in html
    assert "Exact McNemar test on (task, trial) pairs" in html
    assert "Of 12 (task, trial) pairs, A alone passed 12 and B alone passed 0" in html
    assert 'href="/agents/Alpha/1.0.0/m/"' in html and 'href="/agents/Beta/2.0/m/"' in html
    assert "Terminal-Bench 4.0.0" in html and "regex-log" in html
    # Each shared task opens its page, and the board's hardest tasks are one link away.
    assert 'href="/tasks/terminal-bench/4.0.0/regex-log/"' in html
    assert f'href="/boards/{BOARD}/tasks/"' in html
    assert html.count("3/3") == 4 and html.count("0/3") == 4
    assert "+100.0 pp" in html


@pytest.mark.django_db
def test_it_offers_the_boards_entries_in_the_form(client, site):
    html = client.get(PAGE, {"board": BOARD}).content.decode()
    assert '<form id="compare-form"' in html and 'method="get"' in html
    assert f'value="{ALPHA}"' in html and f'value="{BETA}"' in html
    assert "Pick two agents to compare." in html


@pytest.mark.django_db
def test_it_explains_what_it_cannot_compare_beside_the_form(client, site):
    response = client.get(PAGE, {"board": BOARD, "a": ALPHA, "b": ALPHA})
    assert response.status_code == 200
    html = response.content.decode()
    assert "A and B are the same agent" in html and 'id="compare-form"' in html
    html = client.get(PAGE, {"board": "nope", "a": ALPHA, "b": BETA}).content.decode()
    assert "No board &#x27;nope&#x27; in the current snapshot." in html


@pytest.mark.django_db
def test_it_escapes_what_the_visitor_typed(client, site):
    html = client.get(PAGE, {"board": BOARD, "a": "<script>x/1/m", "b": BETA}).content.decode()
    assert "<script>x" not in html and "&lt;script&gt;x" in html


@pytest.mark.django_db
def test_it_answers_htmx_with_the_partial_and_the_canonical_address(client, site):
    response = client.get(
        PAGE, {"a": ALPHA, "b": BETA, "board": BOARD, "junk": "1"}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="compare-page"') and "<html" not in html
    assert response["HX-Push-Url"] == (
        f"/compare/?board={BOARD}&a=Alpha%2F1.0.0%2Fm&b=Beta%2F2.0%2Fm"
    )


@pytest.mark.django_db
def test_it_compares_two_signal_models(client):
    publish_board(
        {
            "big-model": model_scores(200, success=0.7, nir=0.10, sd=0.02),
            "small-model": model_scores(200, success=0.5, nir=0.0, sd=0.02),
        }
    )
    response = client.get(PAGE, {"signals": "1", "a": "small-model", "b": "big-model"})
    html = response.content.decode()
    assert "B is better on confirmed success (p &lt; 0.001)" in html
    assert "A: 100 of 200 sessions confirmed; B: 140 of 200" in html
    assert "Net improvement (NIR)" in html and "-10.0 pp [" in html
    api = client.get("/api/v1/compare/", {"signals": "1", "a": "small-model", "b": "big-model"})
    body = api.json()
    assert body["kind"] == "signals" and body["verdict"]["winner"] == "b"
    assert body["confirmed_success_difference"]["value"] == pytest.approx(-0.2)
    assert body["net_improvement_difference"]["value"] == pytest.approx(-0.1)


@pytest.mark.django_db
def test_it_links_every_signal_row_to_a_comparison_with_the_leader(client):
    publish_board(
        {
            "big-model": model_scores(200, success=0.7, nir=0.10),
            "small-model": model_scores(200, success=0.5, nir=0.0),
            "odd/model": model_scores(50, success=0.5, nir=0.0),
        }
    )
    html = client.get("/signals/").content.decode()
    assert 'href="/compare/?signals=1&amp;a=small-model&amp;b=big-model"' in html
    assert 'href="/compare/?signals=1&amp;a=odd%2Fmodel&amp;b=big-model"' in html
    # The leader's own row compares it with the runner-up (tied ranks: by name).
    assert 'href="/compare/?signals=1&amp;a=big-model&amp;b=odd%2Fmodel"' in html


def test_it_shows_the_paired_trajectory_figures(client, submitter):
    trace_builders.two_agents(submitter)
    html = client.get(PAGE, trace_builders.COMPARE).content.decode()
    assert "Trajectory figures, paired by shared task" in html
    # Exact (args): A 100% on both tasks, B 50% on book and 0% on cancel.
    assert (
        '<span title="Passes when the calls are the reference calls, one for one, in the same '
        "order, calls matched by tool name and arguments under the suite&#x27;s argument "
        'rules.">Exact (args)</span></th><td class="num">100.0%</td><td class="num">25.0%</td>'
        '<td class="num">+75.0 pp'
    ) in html


def test_it_shows_no_trajectory_table_when_the_suite_states_nothing(client, site):
    html = client.get(PAGE, {"board": BOARD, "a": ALPHA, "b": BETA}).content.decode()
    assert "Trajectory figures, paired by shared task" not in html
