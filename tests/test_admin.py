"""The admin as moderators and admins use it: pages, actions, permissions, audit."""

from __future__ import annotations

import json

import pytest
from django.contrib import admin
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from ingestion.models import ApiToken, Harness, Person, Submission, Suite, Task
from ingestion.services.intake import submission_ingest
from ingestion.services.registry import DEFAULT_REGISTRY_PATH
from ingestion.throttling import upload_limiter
from leaderboard.models import ConflictDecision, ConflictPair, SubmissionDecision
from leaderboard.moderation.accounts import upload_rate
from leaderboard.recompute.services import boards_recompute
from tests.builders import (
    EXAMPLE_RUN_BUNDLES,
    EXAMPLE_SESSIONS_BUNDLE,
    api_key,
    outcomes,
    submit,
)
from tests.conftest import token_client
from tests.leaderboard.moderation.helpers import MIRA_TASK, OTHER_TASK, current

QUEUE = "admin:leaderboard_conflictpair_changelist"
SUBMISSIONS = "admin:ingestion_submission_changelist"
USERS = "admin:auth_user_changelist"
# Session, user, user and group permissions, the count, the page: whatever the rows.
QUEUE_MAX_QUERIES = 6


@pytest.fixture(autouse=True)
def _moderator_group(moderator_group):
    return moderator_group


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def run_action(client: Client, url: str, action: str, pks: list, reason: str | None = None):
    """Choose an action on a changelist; with a reason, also submit its intermediate page."""
    data = {"action": action, "_selected_action": pks}
    if reason is None:
        return client.post(url, {**data, "index": 0})
    return client.post(url, {**data, "apply": "yes", "reason": reason})


def offered_actions(client: Client, url: str) -> set[str]:
    form = client.get(url).context["action_form"]
    return set() if form is None else {name for name, _ in form.fields["action"].choices}


def change_form_data(response) -> dict:
    """The POST data a change form would send back unchanged, inlines included."""
    data: dict = {}
    forms = [response.context["adminform"].form]
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        forms += list(formset.forms)
        data.update({f.html_name: f.value() for f in formset.management_form})
    for form in forms:
        for field in form:
            value = field.value()
            if value is None or value is False:
                continue
            data[field.html_name] = value
    return data


def pair_pk(harness: str, task_id: str) -> str:
    return ConflictPair.objects.get(harness__name=harness, task__task_id=task_id).pk


# -- pages -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_renders_the_changelist_of_every_registered_model(registry, superuser, staff):
    for path in [*EXAMPLE_RUN_BUNDLES[:2], EXAMPLE_SESSIONS_BUNDLE]:
        submission_ingest(upload=path.read_bytes(), user=staff)
    submit(staff, outcomes("timeout", "timeout", "pass"), contributors=["omar.haddad"])
    boards_recompute()
    api_key(staff)
    client = logged_in(superuser)
    for model in admin.site._registry:
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        assert client.get(url).status_code == 200, url


@pytest.mark.django_db
def test_it_renders_change_and_add_pages(registry, superuser, staff):
    submission = submit(staff, outcomes("pass"), contributors=["mira.chen"])
    client = logged_in(superuser)
    pages = [
        reverse("admin:ingestion_person_change", args=[Person.objects.get(handle="mira.chen").pk]),
        reverse("admin:ingestion_task_change", args=[Task.objects.get(task_id=MIRA_TASK).pk]),
        reverse("admin:ingestion_harness_change", args=[submission.harness_id]),
        reverse("admin:ingestion_submission_change", args=[submission.pk]),
        reverse("admin:ingestion_suite_change", args=[Suite.objects.first().pk]),
        reverse("admin:auth_user_change", args=[staff.pk]),
        reverse("admin:leaderboard_conflictdecision_add"),
        reverse("admin:ingestion_suite_load_registry"),
    ]
    for url in pages:
        assert client.get(url).status_code == 200, url


@pytest.mark.django_db
def test_it_shows_the_conflict_queue_in_a_fixed_number_of_queries(
    registry, submitter, moderator, django_assert_max_num_queries
):
    client = logged_in(moderator)
    submit(submitter, outcomes("pass", task=MIRA_TASK), contributors=["mira.chen"])
    with CaptureQueriesContext(connection) as few:
        assert client.get(reverse(QUEUE)).status_code == 200
    for i in range(5):
        submit(
            submitter,
            outcomes("pass", task=MIRA_TASK, prefix=f"h{i}"),
            harness=f"H{i}",
            contributors=["mira.chen", "omar.haddad", "lena.fischer"],
        )
    ConflictDecision.objects.create(
        harness=Harness.objects.get(name="H0"),
        task=Task.objects.get(task_id=MIRA_TASK),
        decision="dismiss",
        reason="x",
        decided_by=moderator,
    )
    assert ConflictPair.objects.count() > 20
    with django_assert_max_num_queries(QUEUE_MAX_QUERIES) as many:
        response = client.get(reverse(QUEUE))
    assert len(many.captured_queries) == len(few.captured_queries)
    assert "mira.chen" in response.content.decode()
    assert "dismiss by moderator" in response.content.decode()


# -- conflicts -------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_it_lets_a_moderator_dismiss_conflicts_in_bulk_with_a_reason(
    registry, submitter, moderator
):
    runs = outcomes("pass") + outcomes("pass", task=MIRA_TASK, prefix="a")
    runs += outcomes("fail", task="git-multibranch", prefix="b")
    submit(submitter, runs, contributors=["mira.chen"])
    assert (current().conflict_excluded, current().n) == (2, 1)
    client, url = logged_in(moderator), reverse(QUEUE)
    assert {"confirm_conflicts", "dismiss_conflicts"} <= offered_actions(client, url)
    pks = [pair_pk("H", MIRA_TASK), pair_pk("H", "git-multibranch")]

    page = run_action(client, url, "dismiss_conflicts", pks)
    assert page.status_code == 200 and 'name="reason"' in page.content.decode()
    refused = run_action(client, url, "dismiss_conflicts", pks, reason="")
    assert "This field is required" in refused.content.decode()
    assert not ConflictDecision.objects.exists()

    assert (
        run_action(client, url, "dismiss_conflicts", pks, reason="authors left").status_code == 302
    )
    decisions = ConflictDecision.objects.all()
    assert {(d.decision, d.reason, d.decided_by) for d in decisions} == {
        ("dismiss", "authors left", moderator)
    }
    assert decisions.count() == 2
    assert (current().conflict_excluded, current().n) == (0, 3)
    assert set(ConflictPair.objects.filter(pk__in=pks).values_list("state", flat=True)) == {
        "dismissed"
    }


@pytest.mark.django_db(transaction=True)
def test_it_lets_a_moderator_add_a_conflict_the_data_does_not_show(registry, submitter, moderator):
    submit(submitter, outcomes("pass", "fail"))
    harness, task = Harness.objects.get(name="H"), Task.objects.get(task_id=OTHER_TASK)
    client = logged_in(moderator)
    response = client.post(
        reverse("admin:leaderboard_conflictdecision_add"),
        {"harness": harness.pk, "task": task.pk, "decision": "confirm", "reason": "reviewer"},
    )
    assert response.status_code == 302
    decision = ConflictDecision.objects.get()
    assert (decision.decision, decision.decided_by, decision.reason) == (
        "confirm",
        moderator,
        "reviewer",
    )
    assert (current().conflict_excluded, current().n) == (2, 0)
    # Append-only: no edit, no delete, even for a moderator.
    change = reverse("admin:leaderboard_conflictdecision_change", args=[decision.pk])
    assert client.post(change, {"decision": "dismiss", "reason": "x"}).status_code == 403
    delete = reverse("admin:leaderboard_conflictdecision_delete", args=[decision.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 403
    assert ConflictDecision.objects.get().decision == "confirm"


@pytest.mark.django_db
def test_it_offers_no_decision_to_staff_without_the_permissions(registry, submitter, staff):
    submission = submit(submitter, outcomes("pass"), contributors=["omar.haddad"])
    staff.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_conflictpair", "view_submission"])
    )
    client = logged_in(staff)
    queue, submissions = reverse(QUEUE), reverse(SUBMISSIONS)
    assert client.get(queue).status_code == 200
    assert offered_actions(client, queue) == set()
    assert offered_actions(client, submissions) == set()

    run_action(client, queue, "confirm_conflicts", [pair_pk("H", OTHER_TASK)], reason="x")
    run_action(client, submissions, "withdraw_submissions", [submission.pk], reason="x")
    assert client.get(reverse("admin:leaderboard_conflictdecision_add")).status_code == 403
    assert not ConflictDecision.objects.exists() and not SubmissionDecision.objects.exists()
    assert Submission.objects.get(pk=submission.pk).status == "ingested"


# -- withdrawals -----------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_it_lets_a_moderator_withdraw_and_restore_from_the_submission_list(
    registry, submitter, moderator
):
    kept = submit(submitter, outcomes("pass"))
    broken = submit(submitter, outcomes("fail", "fail", prefix="b"))
    client, url = logged_in(moderator), reverse(SUBMISSIONS)
    assert {"withdraw_submissions", "restore_submissions"} <= offered_actions(client, url)

    run_action(client, url, "withdraw_submissions", [broken.pk], reason="verifier crashed")
    assert Submission.objects.get(pk=broken.pk).status == "withdrawn"
    assert (current().runs, current().passes) == (1, 1)
    page = client.get(reverse("admin:ingestion_submission_change", args=[broken.pk]))
    assert "verifier crashed" in page.content.decode()
    assert "withdraw: verifier crashed" in client.get(url).content.decode()

    # Restoring the still-ingested one too is refused as a whole: nothing changes.
    run_action(client, url, "restore_submissions", [broken.pk, kept.pk], reason="oops")
    assert Submission.objects.get(pk=broken.pk).status == "withdrawn"
    run_action(client, url, "restore_submissions", [broken.pk], reason="verifier fixed")
    assert Submission.objects.get(pk=broken.pk).status == "ingested"
    assert current().runs == 3
    assert list(SubmissionDecision.objects.order_by("id").values_list("action", "reason")) == [
        ("withdraw", "verifier crashed"),
        ("restore", "verifier fixed"),
    ]


@pytest.mark.django_db
def test_it_keeps_moderators_out_of_user_accounts(moderator, submitter):
    client = logged_in(moderator)
    assert client.get(reverse(USERS)).status_code == 403
    assert client.get(reverse("admin:auth_user_change", args=[submitter.pk])).status_code == 403


# -- under review ----------------------------------------------------------------------


@pytest.mark.django_db
def test_it_lists_entries_under_review_with_failing_runs_by_kind(registry, submitter, moderator):
    broken = submit(submitter, outcomes("timeout", "provider_crash", "timeout", "pass"))
    submit(submitter, outcomes("pass", "pass"), harness="Fine")
    boards_recompute()
    page = logged_in(moderator).get(reverse("admin:leaderboard_underreviewentry_changelist"))
    html = page.content.decode()
    assert page.status_code == 200
    assert "provider_crash: 1, timeout: 2" in html
    assert "75.0%" in html
    assert reverse("admin:ingestion_submission_change", args=[broken.pk]) in html
    assert "Fine" not in html


# -- registry --------------------------------------------------------------------------


def registry_file(**suite) -> SimpleUploadedFile:
    data = json.loads(DEFAULT_REGISTRY_PATH.read_text())
    data["suites"].append(suite)
    return SimpleUploadedFile("registry.json", json.dumps(data).encode())


@pytest.mark.django_db(transaction=True)
def test_it_loads_a_registry_file_from_the_admin_and_recomputes(registry, superuser):
    upload = registry_file(
        slug="mini-bench",
        version="1.0.0",
        name="Mini",
        official=True,
        tasks=[{"task_id": "t1", "category": "bugfix", "authors": ["mira.chen"]}],
    )
    client = logged_in(superuser)
    response = client.post(reverse("admin:ingestion_suite_load_registry"), {"file": upload})
    assert response.status_code == 302
    suite = Suite.objects.get(slug="mini-bench")
    assert list(suite.tasks.values_list("task_id", "authors__handle")) == [("t1", "mira.chen")]
    # The full recompute ran on commit: the new official suite has its board.
    assert current_board_slugs() >= {"overall", "coding", "mini-bench-1.0.0"}
    log = LogEntry.objects.get(object_id=str(suite.pk))
    assert (log.user, log.change_message) == (superuser, "Loaded from registry file registry.json")


def current_board_slugs() -> set[str]:
    from leaderboard.models import Board

    return set(Board.objects.current().values_list("slug", flat=True))


@pytest.mark.django_db
def test_it_refuses_a_file_that_is_not_a_registry(registry, superuser, moderator):
    url = reverse("admin:ingestion_suite_load_registry")
    bad = SimpleUploadedFile("r.json", b'{"format": "other"}')
    response = logged_in(superuser).post(url, {"file": bad})
    assert response.status_code == 200 and "format must be" in response.content.decode()
    assert logged_in(moderator).get(url).status_code == 403


@pytest.mark.django_db(transaction=True)
def test_it_retires_and_approves_tasks_with_an_audit_entry(registry, submitter, superuser):
    submit(submitter, outcomes("pass") + outcomes("pass", task="sqlite-db-truncate"))
    task = Task.objects.get(task_id="sqlite-db-truncate")
    client, url = logged_in(superuser), reverse("admin:ingestion_task_changelist")
    run_action(client, url, "retire_tasks", [task.pk])
    assert current().runs == 1
    run_action(client, url, "approve_tasks", [task.pk])
    assert current().runs == 2
    messages = LogEntry.objects.filter(object_id=str(task.pk)).values_list(
        "change_message", flat=True
    )
    assert sorted(messages) == ["Task approved", "Task retired"]


@pytest.mark.django_db(transaction=True)
def test_it_recomputes_when_an_admin_corrects_contributors(registry, submitter, superuser):
    submission = submit(submitter, outcomes("pass", "fail"))
    assert (current().conflict_excluded, current().n) == (0, 2)
    omar = Person.objects.get(handle="omar.haddad")
    url = reverse("admin:ingestion_harness_change", args=[submission.harness_id])
    response = logged_in(superuser).post(
        url, {"name": "H", "version": "1.0.0", "contributors": [omar.pk], "url": ""}
    )
    assert response.status_code == 302
    assert (current().conflict_excluded, current().n) == (2, 0)


@pytest.mark.django_db(transaction=True)
def test_it_recomputes_when_an_admin_adds_authorship_inline(registry, submitter, superuser):
    submit(submitter, outcomes("pass", "fail"), contributors=["mira.chen"])
    assert current().conflict_excluded == 0
    client = logged_in(superuser)
    mira = Person.objects.get(handle="mira.chen")
    url = reverse("admin:ingestion_person_change", args=[mira.pk])
    data = change_form_data(client.get(url))
    authored = next(
        f.formset for f in client.get(url).context["inline_admin_formsets"]
        if f.formset.model is Task.authors.through
    )  # fmt: skip
    prefix, count = authored.prefix, authored.total_form_count()
    data[f"{prefix}-TOTAL_FORMS"] = count + 1
    data[f"{prefix}-{count}-task"] = Task.objects.get(task_id=OTHER_TASK).pk
    data[f"{prefix}-{count}-person"] = mira.pk
    assert client.post(url, data).status_code == 302
    assert OTHER_TASK in mira.authored_tasks.values_list("task_id", flat=True)
    assert (current().conflict_excluded, current().n) == (2, 0)


# -- submitter accounts ----------------------------------------------------------------


@pytest.mark.django_db
def test_it_rotates_and_revokes_api_tokens(submitter, superuser):
    api = token_client(submitter)
    old = ApiToken.objects.get(user=submitter).key_hash
    assert api.get("/api/v1/submissions/").status_code == 200
    client, url = logged_in(superuser), reverse(USERS)

    run_action(client, url, "token_rotate_action", [submitter.pk])
    # The new key is shown to no one (its account rotates it again to see one).
    assert ApiToken.objects.get(user=submitter).key_hash != old
    assert api.get("/api/v1/submissions/").status_code == 401

    run_action(client, url, "token_revoke_action", [submitter.pk])
    assert not ApiToken.objects.filter(user=submitter).exists()
    assert api.get("/api/v1/submissions/").status_code == 401
    logged = LogEntry.objects.filter(object_id=str(submitter.pk), user=superuser)
    assert sorted(logged.values_list("change_message", flat=True)) == [
        "Revoked API token",
        "Rotated API token",
    ]


@pytest.mark.django_db
def test_it_shows_submissions_token_and_rate_limit_state(registry, submitter, superuser):
    submit(submitter, outcomes("pass"))
    api_key(submitter)
    limiter = upload_limiter()
    assert limiter.hit(submitter.pk) is None and limiter.hit(submitter.pk) is None
    client, url = logged_in(superuser), reverse(USERS)
    html = client.get(url).content.decode()
    state = upload_rate(submitter)
    assert state is not None and state.used == 2
    assert str(state) in html
    submissions = reverse(SUBMISSIONS) + f"?uploader__id__exact={submitter.pk}"
    assert f'href="{submissions}">1</a>' in html.replace("&amp;", "&")

    run_action(client, url, "upload_rate_reset_action", [submitter.pk])
    assert upload_rate(submitter).used == 0
