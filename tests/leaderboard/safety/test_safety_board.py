"""Runs under attack, end to end with the AgentDojo builders: kept off the pass-rate
board, rolled up apart, on the safety board with its triad; its page, tabs, API (and
OpenAPI), CSV; the rollups rebuilt equal."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.management import call_command

from ingestion.models import RunRollup, SafetyRollup, Submission, TraceRollup
from ingestion.services.rollups import rollups_rebuild
from leaderboard.methodology.stats import wilson_interval
from leaderboard.models import BoardEntry, SafetyEntry
from leaderboard.recompute.services import boards_recompute
from tests.ingestion.importers.agentdojo_builders import (
    agentdojo_suite_load,
    pipeline_folder,
    run_file,
    write_run,
)

pytestmark = pytest.mark.django_db(transaction=True)

ATTACK = "important_instructions"
SLUG = "agentdojo-v1.1.2"
SAFETY = f"{SLUG}-safety"
NATIVE = {
    "harness": "AgentDojo", "harness_version": "0.1.34", "suite": "agentdojo",
    "suite_version": "v1.1.2", "user": "staff",
}  # fmt: skip
TASKS = ("banking/user_task_0", "banking/user_task_1", "slack/user_task_0")


@pytest.fixture
def attacked(registry, staff, tmp_path):
    """Benign: 2 passes of 3. Under important_instructions, banking/user_task_0 against
    two injection tasks: one pass whose attack succeeded (security true), one fail
    whose attack did not; and slack/user_task_0 once, a pass, attack failed."""
    agentdojo_suite_load(TASKS)
    folder = pipeline_folder(tmp_path)
    run = run_file("slack", "user_task_0", attack=ATTACK, injection_task="injection_task_1")
    write_run(folder, {**run, "security": False}, attack=ATTACK)
    call_command("ingest", str(folder), format="agentdojo", **NATIVE)
    call_command("ingest", str(folder), format="agentdojo", attack=ATTACK, **NATIVE)
    assert set(Submission.objects.values_list("status", flat=True)) == {"ingested"}
    boards_recompute()
    return folder


def test_it_keeps_runs_under_attack_off_the_pass_rate_board(attacked):
    entry = BoardEntry.objects.get(board__slug=SLUG, board__snapshot__is_current=True)
    assert (entry.runs, entry.n, entry.passes) == (3, 3, 2)
    # RunRollup and the trace rollups hold the benign runs only; SafetyRollup the rest.
    assert sum(RunRollup.objects.values_list("runs", flat=True)) == 3
    assert {t.runs for t in TraceRollup.objects.all()} <= {1, 2}
    assert sorted(SafetyRollup.objects.values_list("runs", "passes", "breaches")) == [
        (1, 1, 0),
        (2, 1, 1),
    ]


def test_it_computes_the_triad_pooled_over_the_runs(attacked):
    [row] = SafetyEntry.objects.filter(snapshot__is_current=True, board_slug=SLUG)
    assert (row.attack, row.board_title) == (ATTACK, "agentdojo v1.1.2")
    assert (row.benign_passes, row.benign_n, row.benign_utility) == (2, 3, 2 / 3)
    assert (row.passes, row.n, row.utility) == (2, 3, 2 / 3)
    assert (row.breaches, row.asr) == (1, 1 / 3)
    assert (row.asr_low, row.asr_high) == wilson_interval(1, 3)
    assert (row.utility_low, row.utility_high) == wilson_interval(2, 3)
    # Three runs cannot show an ASR under the budget: shown, not ranked.
    assert (row.rank, row.within_budget) == (None, False)


def test_a_rebuild_of_the_rollups_gives_the_same_rows(attacked):
    def rows():
        return (
            sorted(RunRollup.objects.values_list("task_id", "outcome", "runs")),
            sorted(SafetyRollup.objects.values_list("task_id", "attack", "runs", "breaches")),
        )

    before = rows()
    rollups_rebuild()
    assert rows() == before


def test_the_board_page_shows_the_safety_board_with_the_others(attacked, client):
    page = client.get(f"/boards/{SLUG}/").content.decode()
    assert f'href="/boards/{SAFETY}/"' in page
    assert "agentdojo v1.1.2 · safety" in page


def test_the_safety_page_shows_the_triad_in_the_table_scroll_region(attacked, client):
    response = client.get(f"/boards/{SAFETY}/")
    assert response.status_code == 200
    page = response.content.decode()
    assert '<div class="table-scroll" role="region"' in page
    assert "<h1>agentdojo v1.1.2 · safety</h1>" in page
    assert "66.67%" in page and "33.33%" in page
    assert 'id="safety-figure-0"' in page
    assert 'href="/methodology/#safety-ranking"' in page
    assert client.get("/boards/nothing-safety/").status_code == 404


def test_the_api_serves_the_safety_board_as_json_and_csv(attacked, client):
    data = client.get(f"/api/v1/safety-boards/{SAFETY}/", HTTP_ACCEPT="application/json").json()
    assert (data["slug"], data["board"], data["asr_budget"]) == (SAFETY, SLUG, 0.10)
    [row] = data["entries"]
    assert row["attack"] == ATTACK and row["rank"] is None
    assert (row["benign_n"], row["n"], row["breaches"]) == (3, 3, 1)
    assert row["targeted_asr"] == pytest.approx(1 / 3)
    assert row["utility_under_attack"] == pytest.approx(2 / 3)
    response = client.get(f"/api/v1/safety-boards/{SAFETY}/?format=csv")
    assert response["Content-Type"].startswith("text/csv")
    [line] = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert (line["attack"], line["n"], line["breaches"], line["model"]) == (
        ATTACK,
        "3",
        "1",
        "frontier-large-2025-01-01",
    )
    assert client.get("/api/v1/safety-boards/nothing-safety/").status_code == 404


def test_the_page_download_is_the_apis_csv(attacked, client):
    response = client.get(f"/boards/{SAFETY}/export.csv")
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    header = next(csv.reader(io.StringIO(response.content.decode())))
    assert header[:3] == ["attack", "rank", "harness"] and header[-1] == "data_terms"


def test_the_openapi_schema_has_the_safety_endpoint(db, client):
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    assert "/api/v1/safety-boards/{slug}/" in schema["paths"]
    assert "/api/v1/boards/{slug}/" in schema["paths"]


def test_no_runs_under_attack_no_safety_board(registry, staff, tmp_path, client):
    boards_recompute()
    assert not SafetyEntry.objects.exists()
    assert "· safety" not in client.get("/").content.decode()


def test_the_methodology_states_the_safety_rules(db, client):
    page = client.get("/methodology/").content.decode()
    assert '<h2 id="safety">' in page and 'id="safety-ranking"' in page
    assert "10%" in page and "82.09%" in page


def test_the_pages_that_read_runs_count_the_benign_runs_only(attacked):
    from ingestion.models import Harness, LanguageModel, Run
    from leaderboard.boards.selectors import task_grid_cells
    from leaderboard.compare.selectors import board_runs

    assert Run.objects.count() == 6
    harness, model = Harness.objects.get(), LanguageModel.objects.get()
    assert len(task_grid_cells(harness, model)) == 3
    assert board_runs(SLUG).count() == 3


def test_an_incremental_recompute_keeps_the_safety_rows(attacked):
    from ingestion.models import Harness

    boards_recompute(harness_ids=[Harness.objects.get().pk + 1000])  # someone else's
    [row] = SafetyEntry.objects.filter(snapshot__is_current=True)
    assert (row.benign_n, row.n, row.breaches) == (3, 3, 1)


def test_a_withdrawn_attacked_submission_leaves_the_safety_board(attacked, moderator, client):
    from leaderboard.moderation.withdrawals import submission_withdraw

    submission = Submission.objects.get(native_params__attack=ATTACK)
    submission_withdraw(submission=submission, reason="wrong attack", user=moderator)
    boards_recompute()
    assert not SafetyEntry.objects.filter(snapshot__is_current=True).exists()
    assert client.get(f"/boards/{SAFETY}/").status_code == 404
    entry = BoardEntry.objects.get(board__slug=SLUG, board__snapshot__is_current=True)
    assert entry.n == 3  # the benign runs stay


def test_the_safety_page_runs_a_fixed_small_number_of_queries(
    attacked, client, django_assert_max_num_queries
):
    with django_assert_max_num_queries(4):
        assert client.get(f"/boards/{SAFETY}/").status_code == 200


def test_the_agent_page_shows_its_triad_per_attack(attacked, client):
    row = SafetyEntry.objects.get(snapshot__is_current=True, attack=ATTACK)
    page = client.get(f"/agents/{row.harness_name}/{row.harness_version}/{row.model_name}/")
    html = page.content.decode()
    assert 'id="safety"' in html and f"/boards/{SAFETY}/" in html
    section = html[html.index('id="agent-safety-caption"') :]
    assert ATTACK in section
    # Under the attack: 2 passes of 3 runs, 1 breach of 3, as the fixture builds them.
    assert "66.67%" in section and "1 of 3" in section
