"""GET /api/v1/compare/ as an anonymous visitor: figures, test, verdict, and clear 400s."""

from __future__ import annotations

import pytest
from scipy.stats import binomtest

from tests.ingestion.services import trace_builders
from tests.leaderboard.web.compare_site import ALPHA, BETA, BOARD

API = "/api/v1/compare/"


def get(client, **query):
    return client.get(API, query, HTTP_ACCEPT="application/json")


@pytest.mark.django_db
def test_it_compares_two_agents_on_their_shared_tasks(client, site):
    response = get(client, board=BOARD, a=ALPHA, b=BETA)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["kind"] == "benchmark"
    assert (body["a"]["harness"], body["b"]["harness"]) == ("Alpha", "Beta")
    assert body["a"]["agent_url"] == "http://testserver/agents/Alpha/1.0.0/m/"
    # The infra error and Beta's conflict-excluded fix-git runs are not counted.
    assert body["shared_tasks"] == 4
    assert {row["task"] for row in body["tasks"]} == {
        "regex-log", "sqlite-db-truncate", "log-summary-date-ranges", "nginx-request-logging",
    }  # fmt: skip
    assert all((r["a_passes"], r["a_trials"], r["b_passes"]) == (3, 3, 0) for r in body["tasks"])
    assert (body["a"]["tasks_only_this_agent"], body["b"]["tasks_only_this_agent"]) == (1, 1)
    assert body["difference"]["value"] == pytest.approx(1.0)
    assert body["test"]["name"] == "mcnemar_exact"
    assert body["test"]["pairs"] == {"both_pass": 0, "a_only": 12, "b_only": 0, "both_fail": 0}
    assert body["test"]["p_value"] == pytest.approx(binomtest(0, 12, 0.5).pvalue)
    assert body["verdict"]["winner"] == "a"
    assert body["verdict"]["text"] == "A is better on this board (p < 0.001)"


@pytest.mark.django_db
def test_it_gives_the_same_interval_on_every_request_and_mirrors_it_on_a_swap(client, site):
    first = get(client, board="overall", a=ALPHA, b=BETA).json()["difference"]
    again = get(client, board="overall", a=ALPHA, b=BETA).json()["difference"]
    swapped = get(client, board="overall", a=BETA, b=ALPHA).json()["difference"]
    assert first == again
    assert (first["low"], first["high"]) == pytest.approx((-swapped["high"], -swapped["low"]))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"board": BOARD, "b": BETA}, "Pick agent A"),
        ({"board": BOARD, "a": "just-a-name", "b": BETA}, "is not written as"),
        ({"board": BOARD, "a": "Nobody/1/m", "b": BETA}, "is not on Terminal-Bench"),
        ({"board": BOARD, "a": ALPHA, "b": ALPHA}, "the same agent"),
        ({"board": "no-such-board", "a": ALPHA, "b": BETA}, "No board 'no-such-board'"),
        ({"board": BOARD, "a": ALPHA, "b": "Gamma/1.0.0/m"}, "no counted task in common"),
        ({"signals": "1", "a": "x", "b": "y"}, "No signal board"),
    ],
)
def test_it_answers_400_with_a_reason_for_what_it_cannot_compare(client, site, query, message):
    response = get(client, **query)
    assert response.status_code == 400
    assert message in response.json()["detail"]


@pytest.mark.django_db
def test_it_documents_the_endpoint_in_the_schema(client):
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    operation = schema["paths"]["/api/v1/compare/"]["get"]
    assert {p["name"] for p in operation["parameters"]} >= {"board", "a", "b", "signals"}
    assert "BenchmarkComparison" in schema["components"]["schemas"]


@pytest.mark.django_db
def test_it_gives_the_paired_trajectory_figures(client, submitter):
    trace_builders.two_agents(submitter)
    body = client.get("/api/v1/compare/", trace_builders.COMPARE).json()
    found = {row["figure"]: row for row in body["trajectory"]}
    # exact_args by hand: book A 1.0, B 0.5; cancel A 1.0, B 0.0; the task differences
    # 0.5 and 1.0 have the mean 0.75.
    exact = found["exact_args"]
    assert (exact["a"], exact["b"], exact["difference"], exact["tasks"]) == (1.0, 0.25, 0.75, 2)
    assert exact["low"] <= 0.75 <= exact["high"]
    assert exact["method"]
    # Argument accuracy is undefined on no task for either: both shared tasks pair.
    assert found["argument_accuracy"]["tasks"] == 2


def test_it_gives_no_trajectory_when_the_suite_states_nothing(client, site):
    body = client.get("/api/v1/compare/", {"board": BOARD, "a": ALPHA, "b": BETA}).json()
    assert body["trajectory"] == []
