"""Trajectory figures and rule violations on the pages: the board's Trajectory columns,
the agent page's rules, the run page's calls against the reference, the exports."""

from __future__ import annotations

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from ingestion.models import Run
from leaderboard.models import BoardEntry, BoardSnapshot
from leaderboard.presentation.figures import percent
from leaderboard.recompute.services import boards_recompute
from tests.ingestion.services.trace_builders import (
    AUTHOR,
    BOARD,
    EVERY_STATUS,
    GOOD_BOOK,
    RULES,
    load,
    submit_tools,
    tool_run,
    tool_suite,
)

AGENT = ["Toolsmith", "1.0.0", "m"]
UNBROKEN = {"id": "few-lookups", "title": "At most five look-ups.", "kind": "max_calls",
            "tools": ["get_user"], "max": 5}  # fmt: skip


def _site(user, extra_runs: int = 0) -> None:
    load(tool_suite(rules=[*RULES, UNBROKEN]))
    runs = [
        tool_run("x-1", "book", EVERY_STATUS, 1, model="m", outcome="fail"),
        tool_run("x-2", "book", GOOD_BOOK[:1], 2, model="m", outcome="fail"),  # books nothing
        tool_run("x-3", "book", GOOD_BOOK, 3, model="m"),
        *(
            tool_run(f"y-{i}", "chat", EVERY_STATUS[4:], 10 + i, model="m")
            for i in range(extra_runs)
        ),
    ]
    submit_tools(user, runs)
    boards_recompute()


def _entry() -> BoardEntry:
    return BoardEntry.objects.get(
        board__snapshot=BoardSnapshot.objects.current(),
        board__slug=BOARD,
        harness__name="Toolsmith",
    )


def _html(client, url: str, query: dict | None = None) -> str:
    response = client.get(url, query or {})
    assert response.status_code == 200
    return response.content.decode()


def test_it_shows_the_trajectory_columns_only_when_asked(client, submitter):
    _site(submitter)
    board = reverse("board", args=[BOARD])
    html = _html(client, board, {"col": "trajectory"})
    for header in ("Tool F1", "In order (args)", "Argument accuracy", "Rule violations"):
        assert header in html
    entry = _entry()
    assert percent(entry.trajectory["tool_f1"]["value"]) in html
    assert 'class="violations-some" title="1 of 3 runs checked broke a rule">1</span>' in html
    plain = _html(client, board)
    assert "Rule violations" not in plain and "Argument accuracy" not in plain


def test_it_lists_every_rule_with_its_count_and_links_the_runs(client, submitter):
    _site(submitter)
    html = _html(client, reverse("agent", args=AGENT))
    assert "Rule violations on Tool Bench 1.0.0" in html
    assert "of 3 counted runs checked" in html
    run = Run.objects.get(run_id="x-1")
    # x-1 looked the user up before booking: lookup-first is listed at zero.
    for count, rule in ((1, "no-delete"), (0, "lookup-first"), (0, "few-lookups")):
        assert f"{count}</strong> · <code>{rule}</code>" in html
    assert f'href="/runs/{run.pk}/#rules-broken"' in html
    assert "Trajectory against the reference" in html


def test_it_shows_every_alignment_status_and_marks_the_offending_call(client, submitter):
    _site(submitter)
    html = _html(client, reverse("run", args=[Run.objects.get(run_id="x-1").pk]))
    for label in ("matched", "arguments differ", "extra", "failed (not counted)", "ignored tool"):
        assert f">{label}</span>" in html
    assert "seats" in html  # the argument that differs
    assert 'class="tool-call tool-call-broken" id="call-4"' in html
    assert 'class="tool-call" id="call-1"' in html
    assert 'href="#call-4">call 5</a> broke <strong>no-delete</strong>' in html
    missing = _html(client, reverse("run", args=[Run.objects.get(run_id="x-2").pk]))
    assert ">missing</span>" in missing
    assert "This run broke none of its suite's 3 rules." in missing


def test_it_escapes_bundle_text_in_the_arguments(client, submitter):
    _site(submitter)
    html = _html(client, reverse("run", args=[Run.objects.get(run_id="x-1").pk]))
    assert "<script>alert(" not in html
    assert "&lt;script&gt;alert(9)" in html


@pytest.mark.parametrize("page", ["agent", "run"])
def test_it_runs_as_many_queries_whatever_the_number_of_runs(client, submitter, page):
    _site(submitter, extra_runs=2)
    few = _queries(client, page)
    more = [tool_run(f"z-{i}", "chat", EVERY_STATUS[4:], 100 + i, model="m") for i in range(30)]
    submit_tools(submitter, more)
    boards_recompute()
    assert _queries(client, page) <= few


def _queries(client, page: str) -> int:
    url = (
        reverse("agent", args=AGENT)
        if page == "agent"
        else reverse("run", args=[Run.objects.get(run_id="x-1").pk])
    )
    client.get(url)  # the session settles
    caches["pages"].clear()
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_it_counts_on_the_agent_page_the_runs_the_board_counts(client, submitter):
    # tool_runs: r-6 is an infra error and, with its author a contributor, "cancel"
    # (r-4) is conflict-excluded: the board checks 4 runs, 2 of which broke no-delete.
    load()
    submit_tools(submitter, contributors=[AUTHOR])
    boards_recompute()
    assert _entry().violations["checked"] == 4
    html = _html(client, reverse("agent", args=["Toolsmith", "1.0.0", "m"]))
    assert "of 4 counted runs checked" in html
    assert "2</strong> · <code>no-delete</code>" in html
    assert "1</strong> · <code>lookup-first</code>" in html


def test_it_anchors_the_calls_as_the_trace_counts_them(client, submitter):
    # A tool turn's own tool_calls are no calls of the agent (ingestion.traces.calls):
    # the trace's positions skip them, so must the page's anchors and alignment.
    load()
    turns = [
        {"role": "user", "text": "Go."},
        {"role": "tool", "text": "noise", "tool_calls": [{"tool": "noise", "arguments": {}}]},
        {"role": "assistant", "tool_calls": [{"tool": "delete_account", "arguments": {}}]},
    ]
    submit_tools(submitter, [{**tool_run("t-1", "book", (), model="m"), "trajectory": turns}])
    html = _html(client, reverse("run", args=[Run.objects.get(run_id="t-1").pk]))
    assert 'class="tool-call tool-call-broken" id="call-0"' in html
    broken = html.split('id="call-0"')[1].split('class="tool-call')[0]
    assert "delete_account" in broken and "noise" not in broken
    assert 'href="#call-0"><code>delete_account</code>' in html


def test_it_runs_as_many_queries_on_the_run_page_whatever_the_number_of_calls(client, submitter):
    _site(submitter)
    many = EVERY_STATUS * 12
    submit_tools(submitter, [tool_run("long-1", "book", many, 50, model="m", outcome="fail")])
    counts = []
    for run_id in ("x-3", "long-1"):
        url = reverse("run", args=[Run.objects.get(run_id=run_id).pk])
        client.get(url)
        caches["pages"].clear()
        with CaptureQueriesContext(connection) as captured:
            html = _html(client, url)
        counts.append(len(captured))
    assert 'id="call-59"' in html
    assert 0 < counts[1] <= counts[0]


@pytest.mark.django_db
def test_it_gives_every_trajectory_link_its_anchor_on_the_methodology_page(client):
    from ingestion.traces.figures import FIGURES

    html = _html(client, reverse("methodology"))
    for anchor in ("trajectory", "trajectory-pairing", "rules"):
        assert f'id="{anchor}"' in html
    for figure in FIGURES:
        assert f'id="trajectory-{figure.key}"' in html
