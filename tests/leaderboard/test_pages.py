"""Board, agent, run and methodology pages, and the board downloads.

Board data is built directly as snapshot rows (figures stated, not computed from runs),
so each test says only the figures it is about. The builders here are also used by
the browser tests.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import itertools
import json

import pytest
from django.urls import reverse
from django.utils import timezone

from ingestion.models import Harness, LanguageModel, Person, Run, Submission, Task
from leaderboard import stats
from leaderboard.boards import order_and_rank
from leaderboard.models import Board, BoardEntry, BoardSnapshot, ConflictDecision
from leaderboard.templatetags.arena import format_rank, interval_bar, money, percent
from leaderboard.terms import ATTRIBUTION, DATA_TERMS

# ---------------------------------------------------------------------------------
# Builders

BOARD_TITLES = {
    "overall": "Overall",
    "coding": "Coding",
    "terminal-bench-4.0.0": "Terminal-Bench 4.0.0",
}


def agent_figures(
    harness: str = "OpenHarness",
    version: str = "0.9.2",
    model: str = "frontier-large",
    *,
    passes: int = 70,
    n: int = 100,
    infra_errors: int = 0,
    conflict_excluded: int = 0,
    cost: float | None = 0.32,
    cost_status: str | None = None,
    tokens: float | None = 12_000.0,
    minimal: bool = False,
    **extra,
) -> dict:
    """One entry's figures, consistent with each other (Wilson from passes and n)."""
    runs = n + infra_errors + conflict_excluded
    low, high = stats.wilson_interval(passes, n)
    if cost_status is None:
        cost_status = stats.COST_OK if cost is not None else stats.COST_MISSING_PRICE
    figures = {
        "harness": harness,
        "harness_version": version,
        "model": model,
        "minimal_baseline": minimal,
        "runs": runs,
        "n": n,
        "passes": passes,
        "pass_rate": passes / n if n else None,
        "wilson_low": low,
        "wilson_high": high,
        "infra_errors": infra_errors,
        "infra_error_rate": infra_errors / runs if runs else None,
        "under_review": stats.is_under_review(infra_errors, runs),
        "conflict_excluded": conflict_excluded,
        "cost_per_success": cost,
        "cost_per_success_status": cost_status,
        "tokens_per_success": tokens,
        "token_saving_ratio": None,
        "token_saving_awarded": False,
        "pass_hat_k": {"1": {"value": passes / n, "pass_at_k": passes / n, "tasks": 10}}
        if n
        else {},
    }
    figures.update(extra)
    return figures


def many_agents(count: int) -> list[dict]:
    """`count` distinct agents with varied pass rates and costs."""
    return [
        agent_figures(f"Harness{i:03d}", "1.0", f"model-{i % 7}", passes=20 + (i * 37) % 60, n=80 + i % 5,
                      cost=0.05 + (i * 13 % 40) / 10)
        for i in range(count)
    ]  # fmt: skip


def build_snapshot(
    boards: dict[str, list[dict]], computed_at: dt.datetime | None = None
) -> BoardSnapshot:
    """A current snapshot holding the given boards (slug -> entry figures), ranked by
    the project's own rule so that order, ranks and ties are the real ones."""
    BoardSnapshot.objects.filter(is_current=True).update(is_current=False)
    snapshot = BoardSnapshot.objects.create(
        computed_at=computed_at or timezone.now() - dt.timedelta(minutes=3), is_current=True
    )
    for position, (slug, figures) in enumerate(boards.items()):
        ordered = order_and_rank([dict(f) for f in figures])
        board = Board.objects.create(
            snapshot=snapshot, slug=slug, title=BOARD_TITLES.get(slug, slug.title()),
            position=position, entry_count=len(ordered),
        )  # fmt: skip
        BoardEntry.objects.bulk_create(
            [_entry(board, index, figure) for index, figure in enumerate(ordered)]
        )
    return snapshot


def _entry(board: Board, position: int, figures: dict) -> BoardEntry:
    values = dict(figures)
    harness, _ = Harness.objects.get_or_create(
        name=values.pop("harness"), version=values.pop("harness_version"),
        defaults={"minimal_baseline": values["minimal_baseline"]},
    )  # fmt: skip
    model, _ = LanguageModel.objects.get_or_create(name=values.pop("model"))
    return BoardEntry(
        board=board, position=position, harness=harness, model=model,
        harness_name=harness.name, harness_version=harness.version, model_name=model.name,
        **values,
    )  # fmt: skip


def standard_boards() -> dict[str, list[dict]]:
    """Three boards with a tie, an under-review entry, n/a costs and every badge."""
    overall = [
        agent_figures("OpenHarness", "0.9.2", "frontier-large", passes=80, n=100, conflict_excluded=12),
        agent_figures("Quill", "2.1.0", "frontier-large", passes=70, n=100, cost=None),
        agent_figures("TermPilot", "1.4.0", "frontier-large", passes=70, n=100, cost=0.5),
        agent_figures("Minimal", "1.0.0", "frontier-large", passes=40, n=100, minimal=True,
                      cost=0.1, tokens=20_000.0),
        agent_figures("Relay Agent", "0.3.1", "mid-small", passes=0, n=50, cost=None,
                      cost_status=stats.COST_NO_SUCCESSES, tokens=None),
        agent_figures("Broken", "0.1.0", "frontier-large", passes=60, n=73, infra_errors=27),
        agent_figures("Empty", "0.0.1", "mid-small", passes=0, n=0, cost=None,
                      cost_status=stats.COST_NO_SUCCESSES, tokens=None),
    ]  # fmt: skip
    overall[0]["token_saving_ratio"] = 0.58
    overall[0]["token_saving_awarded"] = True
    return {
        "overall": overall,
        "coding": overall[:3],
        "terminal-bench-4.0.0": overall[1:4],
    }


@pytest.fixture
def boards(db) -> BoardSnapshot:
    return build_snapshot(standard_boards())


def rows_of(html: str) -> list[str]:
    """Agent cells of a board table, in page order."""
    cells = []
    for chunk in html.split('<th scope="row" class="agent">')[1:]:
        text = chunk.split("</th>", 1)[0]
        cells.append(" ".join(text.replace("<", " <").split()))
    return cells


def agent_order(html: str) -> list[str]:
    """Harness names of the rows, in page order."""
    names = []
    for cell in rows_of(html):
        start = cell.index(">") + 1 if cell.startswith("<a") else 0
        names.append(cell[start:].split()[0])
    return names


def htmx_get(client, url: str, target: str = "board-table", **extra):
    return client.get(url, headers={"HX-Request": "true", "HX-Target": target, **extra})


# ---------------------------------------------------------------------------------
# Board page


def test_it_renders_the_overall_board_at_home(client, boards):
    response = client.get("/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" in html
    assert '<table class="board">' in html and "<caption" in html
    assert agent_order(html)[:3] == ["OpenHarness", "Quill", "TermPilot"]
    assert 'id="board-table"' in html


def test_it_renders_tabs_for_every_board_of_the_current_snapshot(client, boards):
    html = client.get(reverse("board", args=["coding"])).content.decode()
    for slug, title in BOARD_TITLES.items():
        assert f'href="/boards/{slug}/"' in html
        assert title in html
    assert 'aria-current="page">Coding</a>' in html
    assert agent_order(html) == ["OpenHarness", "Quill", "TermPilot"]


def test_it_shows_when_the_snapshot_was_computed(client, db):
    build_snapshot(standard_boards(), computed_at=timezone.now() - dt.timedelta(minutes=7))
    html = client.get("/").content.decode()
    assert "computed 7 min ago" in html
    assert 'datetime="' in html and " UTC" in html


def test_it_reads_only_the_current_snapshot(client, db):
    build_snapshot({"overall": [agent_figures("OldHarness")]})
    build_snapshot({"overall": [agent_figures("NewHarness")]})
    assert agent_order(client.get("/").content.decode()) == ["NewHarness"]


def test_it_returns_404_for_an_unknown_board(client, boards):
    assert client.get("/boards/no-such-board/").status_code == 404


def test_it_renders_an_empty_state_without_a_snapshot(client, db):
    response = client.get("/")
    assert response.status_code == 200
    assert "No board has been computed yet" in response.content.decode()


def test_it_returns_only_the_table_partial_to_htmx(client, boards):
    response = htmx_get(client, "/boards/overall/?sort=-n&model=frontier")
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in html and "<body" not in html
    assert html.lstrip().startswith('<div id="board-table"')
    assert "<table" in html
    assert 'id="board-filters"' not in html
    # The address bar gets the canonical link, whatever the form sent.
    assert response["HX-Push-Url"] == "/boards/overall/?model=frontier&sort=-n"
    assert "HX-Request" in response["Vary"]


def test_it_returns_the_whole_board_region_for_a_tab_switch(client, boards):
    html = htmx_get(client, "/boards/coding/", target="board-page").content.decode()
    assert "<html" not in html
    assert html.lstrip().startswith('<div id="board-page"')
    assert 'id="board-filters"' in html and 'id="board-table"' in html


def test_it_returns_the_whole_page_for_an_htmx_history_restore(client, boards):
    html = htmx_get(client, "/", **{"HX-History-Restore-Request": "true"}).content.decode()
    assert "<html" in html


def test_it_sorts_by_a_whitelisted_column(client, boards):
    by_n = agent_order(client.get("/?sort=-n").content.decode())
    assert by_n[:4] == ["OpenHarness", "Quill", "TermPilot", "Minimal"]
    ascending_cost = agent_order(client.get("/?sort=cost_per_success").content.decode())
    # Ranked rows first (cheapest first, n/a last), then the unranked ones.
    assert ascending_cost[:4] == ["Minimal", "OpenHarness", "TermPilot", "Quill"]
    descending_cost = agent_order(client.get("/?sort=-cost_per_success").content.decode())
    assert descending_cost[:4] == ["TermPilot", "OpenHarness", "Minimal", "Quill"]


def test_it_links_each_header_to_the_other_direction(client, boards):
    html = client.get("/?sort=-n").content.decode()
    assert 'href="/boards/overall/?sort=n"' in html
    assert 'aria-sort="descending"' in html
    assert 'href="/boards/overall/?sort=-wilson_low"' in html
    assert 'hx-get="/boards/overall/?sort=n"' in html


@pytest.mark.parametrize("sort", ["password", "-__class__", "harness__id", "-", "rank;drop"])
def test_it_ignores_an_unknown_sort(client, boards, sort):
    response = client.get("/", {"sort": sort})
    assert response.status_code == 200
    assert agent_order(response.content.decode()) == agent_order(client.get("/").content.decode())


def test_it_filters_by_model_and_by_harness(client, boards):
    assert set(agent_order(client.get("/?model=mid-small").content.decode())) == {"Relay", "Empty"}
    assert agent_order(client.get("/?harness=quill").content.decode()) == ["Quill"]
    assert agent_order(client.get("/?harness=TermPilot+1.4").content.decode()) == ["TermPilot"]
    html = client.get("/?harness=nothing-like-this").content.decode()
    assert agent_order(html) == []
    assert "No ranked agent matches these filters" in html


def test_it_hides_unranked_entries_when_asked(client, boards):
    shown = agent_order(client.get("/").content.decode())
    assert "Broken" in shown
    # The form sends "0" and, when ticked, "1"; unticked it sends only "0".
    hidden = agent_order(client.get("/?unranked=0").content.decode())
    assert "Broken" not in hidden and "Empty" not in hidden
    assert agent_order(client.get("/?unranked=0&unranked=1").content.decode()) == shown


def test_it_shows_the_columns_picked(client, boards):
    default = client.get("/").content.decode()
    assert "Cost / success" in default and "Tokens / success" in default
    assert "pass^k</a></th>" not in default and "TTFT p50" not in default
    picked = client.get("/?col=&col=passk&col=latency").content.decode()
    assert "Cost / success" not in picked and "Tokens / success" not in picked
    assert "pass^k</a></th>" in picked and "TTFT p50" in picked
    assert 'colspan="8"' in picked  # the "Not ranked" divider spans every column


@pytest.mark.parametrize("count", [5, 50])
def test_it_runs_a_fixed_small_number_of_queries(client, db, django_assert_max_num_queries, count):
    build_snapshot({"overall": many_agents(count), "coding": many_agents(3)})
    with django_assert_max_num_queries(6) as captured:
        response = client.get("/?sort=-n&model=model&col=passk&col=latency&col=cost")
    assert response.status_code == 200
    assert len(agent_order(response.content.decode())) == count
    assert len(captured.captured_queries) == 3


def test_it_stays_within_six_queries_for_a_signed_in_visitor(
    client, submitter, django_assert_max_num_queries
):
    build_snapshot({"overall": many_agents(50)})
    client.force_login(submitter)
    with django_assert_max_num_queries(6):  # plus the session and the user
        assert client.get("/").status_code == 200


def test_it_runs_as_many_queries_for_the_htmx_partial_and_the_export(
    client, db, django_assert_max_num_queries
):
    build_snapshot({"overall": many_agents(50)})
    with django_assert_max_num_queries(3):
        htmx_get(client, "/?sort=n")
    with django_assert_max_num_queries(3):
        client.get("/boards/overall/export.csv")


def test_it_shows_ties_as_equal_rank(client, boards):
    html = client.get("/").content.decode()
    assert '<td class="rank">1</td>' in html
    assert html.count('<td class="rank">=2</td>') == 2
    assert '<td class="rank">4</td>' in html


def test_it_keeps_the_tie_mark_when_a_filter_hides_the_other_entry(client, boards):
    html = client.get("/?harness=quill").content.decode()
    assert '<td class="rank">=2</td>' in html


def test_it_lists_an_under_review_entry_below_not_ranked_with_its_chip(client, boards):
    html = client.get("/").content.decode()
    ranked, unranked = html.split(">Not ranked</th>")
    assert "Broken" not in ranked
    assert "Broken" in unranked
    assert "Under review: 27% infra errors" in unranked
    assert 'href="/methodology/#under-review"' in unranked
    assert '<tbody class="unranked">' in html


def test_it_lists_an_entry_without_counted_runs_as_not_ranked(client, boards):
    unranked = client.get("/").content.decode().split(">Not ranked</th>")[1]
    assert "Empty" in unranked
    assert "No counted runs" in unranked


def test_it_shows_na_cost_with_its_reason(client, boards):
    html = client.get("/").content.decode()
    assert '<abbr class="na" title="n/a: some counted runs have no price' in html
    assert '<abbr class="na" title="n/a: no successes to divide the cost by">n/a</abbr>' in html
    assert "$0.32" in html


def test_it_shows_the_interval_bar_and_its_numbers(client, boards):
    html = client.get("/").content.decode()
    low, high = stats.wilson_interval(80, 100)
    assert f"95% CI {percent(low)}–{percent(high)}" in html
    assert f'<rect class="ci-range" x="{round(low * 100, 2)}"' in html
    assert "n = 100" in html
    assert "112 runs: 0 infra errors excluded, 12 conflict-excluded, 100 counted" in html


def test_it_shows_the_badges(client, boards):
    html = client.get("/").content.decode()
    assert "Token saving ×0.58" in html
    assert 'href="/methodology/#token-saving"' in html
    assert ">Minimal baseline</a>" in html
    assert "Conflict-excluded: 12 runs" in html
    assert 'href="/methodology/#conflict-of-interest"' in html


def test_it_links_each_row_to_its_agent_page(client, boards):
    html = client.get("/").content.decode()
    assert 'href="/agents/OpenHarness/0.9.2/frontier-large/"' in html
    assert 'href="/agents/Relay%20Agent/0.3.1/mid-small/"' in html


def test_it_escapes_a_script_in_a_harness_name(client, db):
    build_snapshot({"overall": [agent_figures("<script>alert(1)</script>", "1.0", "m<b>x")]})
    html = client.get("/").content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "m<b>x" not in html
    # In the chart JSON too: json_script escapes the markup characters.
    assert "\\u003Cscript\\u003Ealert(1)\\u003C/script\\u003E" in html


def test_it_embeds_both_chart_figures_and_lists_entries_without_cost(client, boards):
    html = client.get("/").content.decode()
    assert '<script id="forest-figure" type="application/json">' in html
    assert '<script id="cost-figure" type="application/json">' in html
    not_plotted = html.split('class="not-plotted"')[1]
    assert "Quill 2.1.0 · frontier-large" in not_plotted
    assert "missing price" in not_plotted
    assert "vendor/plotly.min.js" in html and "js/charts.js" in html


def test_it_links_the_downloads_with_the_current_view(client, boards):
    html = client.get("/?sort=-n").content.decode()
    assert 'href="/boards/overall/export.csv?sort=-n"' in html
    assert 'href="/boards/overall/export.json?sort=-n"' in html


# ---------------------------------------------------------------------------------
# Downloads


def test_it_exports_csv_with_the_attribution_and_interval_numbers(client, boards):
    response = client.get("/boards/overall/export.csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="arena-overall-' in response["Content-Disposition"]
    text = response.content.decode()
    comments = [line for line in text.splitlines() if line.startswith("#")]
    assert ATTRIBUTION in comments[0]
    assert DATA_TERMS in comments[1]
    rows = list(csv.DictReader(line for line in io.StringIO(text) if not line.startswith("#")))
    first = rows[0]
    low, high = stats.wilson_interval(80, 100)
    assert first["harness"] == "OpenHarness"
    assert float(first["wilson_low"]) == pytest.approx(low)
    assert float(first["wilson_high"]) == pytest.approx(high)
    assert [row["rank_display"] for row in rows[:4]] == ["1", "=2", "=2", "4"]
    assert first["pass_hat_1"] == "0.8"
    broken = next(row for row in rows if row["harness"] == "Broken")
    assert broken["rank"] == "" and broken["under_review"] == "True"


def test_it_exports_json_with_the_attribution_and_interval_numbers(client, boards):
    response = client.get("/boards/overall/export.json?harness=OpenHarness")
    document = json.loads(response.content)
    assert response["Content-Type"].startswith("application/json")
    assert document["attribution"] == ATTRIBUTION
    assert document["terms"] == DATA_TERMS
    assert document["slug"] == "overall"
    (entry,) = document["entries"]
    low, high = stats.wilson_interval(80, 100)
    assert entry["wilson_low"] == pytest.approx(low)
    assert entry["wilson_high"] == pytest.approx(high)
    assert entry["token_saving"] == {"ratio": 0.58, "awarded": True}


def test_it_writes_names_that_look_like_formulas_as_text_in_the_csv(client, db):
    build_snapshot({"overall": [agent_figures("=HYPERLINK(1)", "1.0", "@model")]})
    rows = [
        line for line in client.get("/boards/overall/export.csv").content.decode().splitlines()
        if not line.startswith("#")
    ]  # fmt: skip
    assert rows[1].split(",")[2:5] == ["'=HYPERLINK(1)", "1.0", "'@model"]


def test_it_refuses_an_unknown_export_format_or_board(client, boards):
    assert client.get("/boards/overall/export.xml").status_code == 404
    assert client.get("/boards/nothing/export.csv").status_code == 404


# ---------------------------------------------------------------------------------
# Agent page

_SHA = itertools.count()


def make_submission(user, harness: Harness, status: str = Submission.Status.INGESTED) -> Submission:
    return Submission.objects.create(
        uploader=user, sha256=f"{next(_SHA):064x}", harness=harness, status=status,
        original_name=f"runs-{harness.name.lower()}.tar.gz",
    )  # fmt: skip


def make_run(
    submission: Submission,
    model: LanguageModel,
    task: Task,
    trial: int,
    outcome: str = "pass",
    **fields,
) -> Run:
    defaults = {
        "cost_usd": 0.05, "tokens_input": 10_000, "tokens_output": 1_000, "steps": 12,
        "tool_calls": 14, "ttft_ms": 640,
        "started_at": dt.datetime(2026, 11, 1, 10, 0, tzinfo=dt.UTC),
        "finished_at": dt.datetime(2026, 11, 1, 10, 4, 10, tzinfo=dt.UTC),
        "infra_error": "timeout" if outcome == "infra_error" else "",
    }  # fmt: skip
    defaults.update(fields)
    return Run.objects.create(
        submission=submission, run_id=f"{task.task_id}-{trial}-{submission.pk}-{model.pk}",
        harness=submission.harness, model=model, task=task, trial=trial, outcome=outcome,
        **defaults,
    )  # fmt: skip


def build_agent(user, harness_name: str = "OpenHarness") -> tuple[Harness, LanguageModel, dict]:
    """An agent with runs on three registry tasks: passes, a fail, an infra error, a
    conflict-excluded task (a contributor wrote it) and a withdrawn submission."""
    harness, _ = Harness.objects.get_or_create(name=harness_name, version="0.9.2")
    model, _ = LanguageModel.objects.get_or_create(name="frontier-large")
    mira = Person.objects.get(handle="mira.chen")
    harness.contributors.add(mira, Person.objects.create(handle="dev.one", display_name="Dev One"))
    authored = Task.objects.filter(authors=mira).order_by("pk").first()
    others = list(Task.objects.exclude(authors=mira).order_by("pk")[:2])
    counted = make_submission(user, harness)
    withdrawn = make_submission(user, harness, Submission.Status.WITHDRAWN)
    runs = {
        "pass": make_run(counted, model, others[0], 1, "pass"),
        "fail": make_run(counted, model, others[0], 2, "fail"),
        "infra": make_run(counted, model, others[1], 1, "infra_error"),
        "conflict": make_run(counted, model, authored, 1, "pass"),
        "withdrawn": make_run(withdrawn, model, others[1], 2, "pass"),
    }
    return harness, model, runs


def test_it_renders_the_agent_page(client, registry, submitter):
    build_agent(submitter)
    build_snapshot({"overall": [agent_figures("OpenHarness", "0.9.2", "frontier-large",
                                              pass_hat_k={"1": {"value": 0.7, "pass_at_k": 0.7, "tasks": 3},
                                                          "2": {"value": 0.5, "pass_at_k": 0.9, "tasks": 2}})]})  # fmt: skip
    response = client.get(reverse("agent", args=["OpenHarness", "0.9.2", "frontier-large"]))
    html = response.content.decode()
    assert response.status_code == 200
    assert "<h1>OpenHarness 0.9.2 · frontier-large</h1>" in html
    assert "Dev One" in html and "mira.chen" in html
    assert 'href="/boards/overall/"' in html
    assert '<td class="num">1</td>' in html
    assert '<script id="pass-k-figure" type="application/json">' in html
    assert "Withdrawn (not counted)" in html


def test_it_draws_the_task_grid_with_symbols_and_run_links(client, registry, submitter):
    _, _, runs = build_agent(submitter)
    html = client.get(
        reverse("agent", args=["OpenHarness", "0.9.2", "frontier-large"])
    ).content.decode()
    for key, status, symbol in [("pass", "pass", "✓"), ("fail", "fail", "✗"),
                                ("infra", "infra_error", "!"), ("conflict", "conflict", "⊘")]:  # fmt: skip
        run = runs[key]
        assert f'<a class="cell cell-{status}" href="/runs/{run.pk}/"' in html
        assert f">{symbol}</a>" in html
    assert f'href="/runs/{runs["withdrawn"].pk}/"' not in html
    assert "conflict-excluded</a> (1)" in html
    assert "Terminal-Bench 4.0.0" in html


def test_it_keeps_a_dismissed_conflict_counted(client, registry, submitter):
    harness, _, runs = build_agent(submitter)
    ConflictDecision.objects.create(harness=harness, task=runs["conflict"].task, decision="dismiss")
    html = client.get(
        reverse("agent", args=["OpenHarness", "0.9.2", "frontier-large"])
    ).content.decode()
    assert f'<a class="cell cell-pass" href="/runs/{runs["conflict"].pk}/"' in html


def test_it_shows_a_shared_rank_on_the_agent_page(client, registry, submitter):
    build_agent(submitter)
    build_snapshot({"overall": [agent_figures("OpenHarness", "0.9.2", "frontier-large", passes=70),
                                agent_figures("Quill", "2.1.0", "frontier-large", passes=70)]})  # fmt: skip
    html = client.get(
        reverse("agent", args=["OpenHarness", "0.9.2", "frontier-large"])
    ).content.decode()
    assert '<td class="num">=1</td>' in html


def test_it_escapes_markup_in_a_harness_name_on_the_agent_page(client, registry, submitter):
    # A name with a "/" cannot be a URL segment, so this one has none.
    name = "<img src=x onerror=alert(1)>"
    build_agent(submitter, harness_name=name)
    response = client.get(reverse("agent", args=[name, "0.9.2", "frontier-large"]))
    html = response.content.decode()
    assert response.status_code == 200
    assert name not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_it_returns_404_for_an_unknown_agent(client, db):
    assert client.get("/agents/Nobody/1.0/none/").status_code == 404


# ---------------------------------------------------------------------------------
# Run page

LONG_OUTPUT = "\n".join(f"line {i}" for i in range(1, 61))


def trajectory() -> list[dict]:
    return [
        {"role": "user", "text": "Fix the repository. <script>alert(1)</script>"},
        {"role": "assistant", "text": "Looking.", "tool_calls": [
            {"tool": "bash", "arguments": {"command": "git status; echo '<script>alert(2)</script>'"}, "exit_code": 2,
             "output": LONG_OUTPUT},
            {"tool": "read_file", "arguments": {"path": "<img src=x onerror=alert(3)>"}, "exit_code": 0},
        ]},
        {"role": "<b>tool</b>", "text": LONG_OUTPUT},
    ]  # fmt: skip


def test_it_renders_a_run_with_its_facts_and_trajectory(client, registry, submitter):
    _, _, runs = build_agent(submitter)
    run = runs["fail"]
    run.trajectory = trajectory()
    run.verifier = {"name": "tb-verifier", "version": "4.0.0", "items": [1]}
    run.save()
    html = client.get(reverse("run", args=[run.pk])).content.decode()
    assert run.task.task_id in html
    assert "Terminal-Bench 4.0.0" in html
    assert "✗ fail" in html
    assert "$0.05" in html and "10.0k in · 1.0k out" in html
    assert "4 min 10 s" in html
    assert "tb-verifier" in html
    assert '<span class="exit exit-bad">✗ exit 2</span>' in html
    assert '<span class="exit exit-ok">✓ exit 0</span>' in html
    assert '<ol class="conversation">' in html


def test_it_escapes_trajectory_text_and_tool_arguments(client, registry, submitter):
    _, _, runs = build_agent(submitter)
    run = runs["pass"]
    run.trajectory = trajectory()
    run.save()
    html = client.get(reverse("run", args=[run.pk])).content.decode()
    for raw in (
        "<script>alert(1)</script>",
        "<script>alert(2)</script>",
        "<img src=x",
        "<b>tool</b>",
    ):
        assert raw not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(3)&gt;" in html
    assert 'class="turn turn-other"' in html


def test_it_folds_text_over_40_lines(client, registry, submitter):
    _, _, runs = build_agent(submitter)
    run = runs["pass"]
    run.trajectory = trajectory()
    run.save()
    html = client.get(reverse("run", args=[run.pk])).content.decode()
    assert html.count("<summary>show all 60 lines</summary>") == 2
    head, rest = html.split("<summary>show all 60 lines</summary>", 1)
    assert "line 40\n" in head[-400:] or "line 40</pre>" in head
    assert "line 41" in rest.split("</details>")[0]


def test_it_says_when_a_run_has_no_trajectory(client, registry, submitter):
    _, _, runs = build_agent(submitter)
    html = client.get(reverse("run", args=[runs["infra"].pk])).content.decode()
    assert "No trajectory was submitted for this run." in html
    assert "infra error (Timeout)" in html.lower() or "Timeout" in html


def test_it_marks_a_conflict_excluded_and_a_withdrawn_run(client, registry, submitter):
    _, _, runs = build_agent(submitter)
    assert (
        'is <a href="/methodology/#conflict-of-interest">conflict-excluded</a>'
        in client.get(reverse("run", args=[runs["conflict"].pk])).content.decode()
    )
    assert (
        "submission was withdrawn"
        in client.get(reverse("run", args=[runs["withdrawn"].pk])).content.decode()
    )


def test_it_hides_runs_of_rejected_submissions(client, registry, submitter):
    _, _, runs = build_agent(submitter)
    Submission.objects.filter(pk=runs["pass"].submission_id).update(
        status=Submission.Status.REJECTED
    )
    assert client.get(reverse("run", args=[runs["pass"].pk])).status_code == 404
    assert client.get("/runs/999999/").status_code == 404


# ---------------------------------------------------------------------------------
# Methodology page


def test_it_renders_the_methodology_with_constants_from_code(client, registry):
    html = client.get(reverse("methodology")).content.decode()
    assert f'z = <span class="constant">{stats.Z}</span>' in html
    assert f'<span class="constant">{stats.UNDER_REVIEW_INFRA_RATE * 100:.0f}%</span>' in html
    assert f'<span class="constant">{stats.TOKEN_SAVING_RATIO}</span>' in html
    for anchor in ("conflict-of-interest", "under-review", "token-saving", "minimal-baseline",
                   "ranking", "pass-k", "cost-per-success", "infra-errors", "data-terms"):  # fmt: skip
        assert f'id="{anchor}"' in html
    assert DATA_TERMS in html
    assert "[0.4526, 0.9368]" in html


def test_it_lists_each_suite_with_its_profile_and_approved_tasks(client, registry):
    html = client.get(reverse("methodology")).content.decode()
    assert "Terminal-Bench 4.0.0" in html
    assert "Harbor, S/bench profile" in html
    assert "<code>fix-git</code>" in html
    assert "mira.chen" in html
    Task.objects.filter(task_id="fix-git").update(approved=False)
    assert "<code>fix-git</code>" not in client.get(reverse("methodology")).content.decode()


# ---------------------------------------------------------------------------------
# Formatting filters


def test_it_formats_ranks_percentages_and_money():
    assert format_rank(2, tied=True) == "=2"
    assert format_rank(2, tied=False) == "2"
    assert format_rank(None, tied=False) == "—"
    assert percent(0.718) == "71.8%"
    assert percent(None) == "—"
    assert money(0.32) == "$0.32"
    assert money(0.043) == "$0.043"
    assert money(12.5) == "$12.50"


def test_it_draws_the_interval_bar_on_a_fixed_scale():
    class Entry:
        pass_rate, wilson_low, wilson_high = 0.5, 0.25, 0.75

    bar = interval_bar(Entry())
    assert (bar.low, bar.width, bar.point, bar.point_x) == (25.0, 50.0, 50.0, 49.0)
    Entry.wilson_low, Entry.wilson_high, Entry.pass_rate = 0.0, 1.0, 1.0
    bar = interval_bar(Entry())
    assert (bar.low, bar.width, bar.point_x) == (0.0, 100.0, 98.0)
    Entry.pass_rate = None
    assert interval_bar(Entry()) is None


@pytest.mark.django_db
def test_it_explains_the_signal_boards_with_the_constants_from_code(client):
    from leaderboard import stats

    page = client.get("/methodology/").content.decode()
    assert 'id="signals"' in page and 'id="net-improvement"' in page
    assert f'<span class="constant">{stats.MIN_RANKED_SESSIONS}</span>' in page
