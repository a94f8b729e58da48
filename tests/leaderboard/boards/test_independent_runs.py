"""Independent runs on the boards, the agent pages, the API and the downloads.

Personas: the owner (maintains harness H), a rival submitter who uploads runs of H, and
a visitor who reads the pages.
"""

from __future__ import annotations

import csv

import pytest

from ingestion.models import Harness, Run
from leaderboard.models import BoardEntry, ConflictPair
from leaderboard.recompute.entries import ENTRY_FIELDS
from leaderboard.recompute.services import boards_recompute
from tests.builders import outcomes, run_line, submit
from tests.leaderboard.moderation.helpers import MIRA_TASK, figures

pytestmark = pytest.mark.django_db

OWNER_PAGE = "/agents/H/1.0.0/m/"
RIVAL_PAGE = "/independent/rival/H/1.0.0/m/"


@pytest.fixture
def both(registry, owner, rival):
    """The owner's H with mira.chen as contributor, then a rival's runs of the same H."""
    runs = outcomes("pass", "fail") + outcomes("pass", task=MIRA_TASK, prefix="coi")
    submit(owner, runs, contributors=["mira.chen"], url="https://h.example/")
    boards_recompute()
    before = figures("H")
    rival_runs = outcomes("fail", "fail", "fail", prefix="x")
    rival_runs += outcomes("pass", task=MIRA_TASK, prefix="xc")
    submit(rival, rival_runs, contributors=["mira.chen"])
    boards_recompute()
    return before


def entries() -> dict[str | None, BoardEntry]:
    rows = BoardEntry.objects.filter(board__snapshot__is_current=True, board__slug="overall")
    return {row.harness.independent_by and row.harness.independent_by.username: row for row in rows}


def test_it_shows_a_rival_runs_as_their_own_entry_and_leaves_the_owners_figures_alone(both):
    by = entries()
    assert set(by) == {None, "rival"}
    assert (by["rival"].harness_name, by["rival"].harness_version) == ("H", "1.0.0")
    assert (by["rival"].n, by["rival"].passes) == (3, 0)
    # Every figure of the maintainers' entry is what it was before the rival uploaded.
    maintained = Harness.objects.maintained().get(name="H")
    rows = BoardEntry.objects.filter(board__snapshot__is_current=True, harness=maintained)
    assert {row.board.slug: _figures(row) for row in rows} == {
        slug: {f: value for f, value in own.items() if f not in BOARD_RELATIVE}
        for slug, own in both.items()
    }


# Rank ranges depend on every other entry of the board, so a new entry may widen them.
BOARD_RELATIVE = ("rank_best", "rank_worst", "tied_with_leader")


def _figures(row: BoardEntry) -> dict:
    fields = (*ENTRY_FIELDS, "token_saving_ratio")
    return {f: getattr(row, f) for f in fields if f not in BOARD_RELATIVE}


def test_it_judges_an_independent_run_by_the_maintainers_contributors(both):
    rival_entry = entries()["rival"]
    assert rival_entry.conflict_excluded == 1  # mira.chen's task, through the owner's row
    pair = ConflictPair.objects.get(harness=rival_entry.harness, task__task_id=MIRA_TASK)
    assert (pair.people, pair.excluded, pair.shown_by_data) == (["mira.chen"], True, True)


def test_it_marks_independent_runs_in_the_board_api(both, client):
    api = client.get("/api/v1/boards/overall/").json()["entries"]
    assert {(e["harness"], e["independent_by"]) for e in api} == {("H", None), ("H", "rival")}


def test_it_marks_independent_runs_in_the_csv(both, client):
    body = client.get("/boards/overall/export.csv").content.decode()
    rows = csv.DictReader(line for line in body.splitlines() if not line.startswith("#"))
    assert sorted((row["harness"], row["independent_by"]) for row in rows) == [
        ("H", ""),
        ("H", "rival"),
    ]  # fmt: skip


def test_it_shows_the_visitor_both_rows_with_distinct_agent_pages(both, client):
    page = client.get("/boards/overall/").content.decode()
    assert "independent run by rival" in page
    assert f'href="{RIVAL_PAGE}"' in page
    assert f'href="{OWNER_PAGE}"' in page


def test_it_opens_the_independent_agent_page_with_a_link_to_the_original(both, client):
    page = client.get(RIVAL_PAGE)
    assert page.status_code == 200
    html = page.content.decode()
    assert "independent run by rival" in html
    assert f'href="{OWNER_PAGE}"' in html
    assert "mira.chen" in html  # the contributors the conflict rule applies
    assert 'href="https://h.example/"' in html  # the maintainers' home page
    rival_runs = Run.objects.filter(harness__independent_by__username="rival")
    assert all(f'href="/runs/{run.pk}/"' in html for run in rival_runs)
    owner_runs = Run.objects.filter(harness__independent_by=None)
    assert not any(f'href="/runs/{run.pk}/"' in html for run in owner_runs)


def test_it_keeps_the_maintainers_agent_page_free_of_independent_runs(both, client):
    html = client.get(OWNER_PAGE).content.decode()
    assert "independent run by" not in html
    rival_runs = Run.objects.filter(harness__independent_by__username="rival")
    assert not any(f'href="/runs/{run.pk}/"' in html for run in rival_runs)


def test_it_answers_404_for_an_account_without_an_independent_run(both, client, owner):
    assert client.get("/independent/owner/H/1.0.0/m/").status_code == 404
    assert client.get("/independent/nobody/H/1.0.0/m/").status_code == 404


def test_it_links_an_independent_runs_page_to_its_agent_page(both, client):
    run = Run.objects.filter(harness__independent_by__username="rival").first()
    html = client.get(f"/runs/{run.pk}/").content.decode()
    assert f'href="{RIVAL_PAGE}"' in html
    assert "independent run by rival" in html


@pytest.mark.django_db(transaction=True)
def test_it_recomputes_an_independent_run_when_the_maintainers_name_its_contributors(
    registry, owner, rival
):
    submit(owner, outcomes("pass"))
    submit(rival, outcomes("pass", task=MIRA_TASK, prefix="x"), version="2.0.0")
    assert entries()["rival"].conflict_excluded == 0  # no contributors known yet

    submit(owner, outcomes("fail", prefix="o"), version="2.0.0", contributors=["mira.chen"])

    assert entries()["rival"].conflict_excluded == 1  # without a full recompute


def test_it_opens_an_independent_entry_whose_model_name_holds_slashes_and_tildes(
    registry, owner, rival, client
):
    """The model segment is escaped as on the maintainers' pages: "/" and "~" survive the
    link (a ".." part, which a browser would resolve away, is refused at ingest)."""
    model = "acme/~lab/v1~2"
    submit(owner, outcomes("pass"))
    submit(rival, [run_line("x-1", task_id="regex-log", model=model)])
    boards_recompute()
    page = "/independent/rival/H/1.0.0/acme/~7Elab/v1~7E2/"

    assert f'href="{page}"' in client.get("/boards/overall/").content.decode()
    response = client.get(page)
    assert response.status_code == 200
    assert model in response.content.decode()
