"""The methodology page (leaderboard.web.methodology): constants from code."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from ingestion.models import Task
from leaderboard.methodology import stats
from leaderboard.web.terms import DATA_TERMS

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


@pytest.mark.django_db
def test_it_explains_the_signal_boards_with_the_constants_from_code(client):
    page = client.get("/methodology/").content.decode()
    assert 'id="signals"' in page and 'id="net-improvement"' in page
    assert f'<span class="constant">{stats.MIN_RANKED_SESSIONS}</span>' in page


@pytest.mark.django_db
def test_it_documents_each_user_turn_label_rule_with_examples(client):
    page = client.get("/methodology/").content.decode()
    for label in ("complaint", "correction", "iteration", "urging", "praise"):
        assert f'id="label-{label}"' in page
    assert "This is wrong and frustrating, use the other config instead" in page
    assert "Does this look good?" in page
    assert "Great. Next, the page should include a footer." in page


def test_it_lists_a_suite_s_approved_tasks_in_natural_order(client, registry):
    from ingestion.models import Category, Suite

    suite = Suite.objects.create(slug="numbered", version="1.0.0", name="Numbered", official=True)
    category = Category.objects.create(name="numbered-tasks")
    for task_id in ["task-10", "task-2", "12", "2", "0", "1", "10"]:
        Task.objects.create(suite=suite, task_id=task_id, category=category)
    html = client.get(reverse("methodology")).content.decode()
    start = html.index("Approved tasks of Numbered 1.0.0")
    section = html[start : html.index("</table>", start)]
    shown = re.findall(r'<th scope="row"><a href="([^"]*)"><code>([^<]*)</code></a></th>', section)
    assert [task_id for _, task_id in shown] == ["0", "1", "2", "10", "12", "task-2", "task-10"]
    assert shown[0][0] == "/tasks/numbered/1.0.0/0/"  # each opens its task page


def test_it_states_the_duplicate_rule_and_links_every_section_from_the_contents(client, registry):
    html = client.get(reverse("methodology")).content.decode()
    assert 'id="run-identity"' in html and "source id" in html
    for anchor in re.findall(r'<a href="#([\w-]+)"', html.split("</nav>")[0]):
        assert f'id="{anchor}"' in html, anchor


@pytest.mark.django_db
def test_it_documents_shell_commands_and_capability_claims_from_the_module(client):
    page = client.get("/methodology/").content.decode()
    for anchor in ("shell-commands", "tool-output-errors", "capability-claims"):
        assert f'id="{anchor}"' in page
    # The rule tables are rendered from leaderboard.methodology.shell and .capabilities.
    assert "<code>timeout</code>" in page and "<code>cd</code>" in page
    assert "Python traceback: <code>^Traceback \\(most recent call last\\):</code>" in page
    assert 'id="capability-file_editing"' in page and "Editing files" in page
    assert '"I&#x27;ve edited config.yaml"' in page
    assert "<code>patch</code>" in page and "any shell tool" in page


@pytest.mark.django_db
def test_it_documents_turns_to_recover_and_what_counts_as_one_act_of_steering(client):
    page = client.get("/methodology/").content.decode()
    for anchor in ("turns-to-recover", "steering-acts", "recovery-on-its-own"):
        assert f'id="{anchor}"' in page
    # The markers and the turn recorded for an interruption come from the importer.
    assert '"[Request interrupted by user for tool use]"' in page
    assert '"[interrupted]" before their words' in page


def test_it_states_the_provenance_and_session_conflict_rules(client, db):
    html = client.get(reverse("methodology")).content.decode()
    for anchor in ("signal-provenance", "session-conflicts", "how-stable", "cross-validation"):
        assert f'id="{anchor}"' in html
    assert f"<strong>{stats.CONCENTRATION_SHARE:.0%}</strong>" in html
    assert f"Below\n{stats.SETTLED_SESSIONS} sessions its rank may still move" in html
