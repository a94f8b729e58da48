"""Model names at ingest (name, alias, routing prefix, unlisted) and merging an unlisted
model into a listed one."""

from __future__ import annotations

import psycopg
import pytest
from django.contrib.admin.models import LogEntry
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import OperationalError, connection, transaction
from django.test.utils import CaptureQueriesContext

from arena.embedded_db import database_url_of
from ingestion.models import LanguageModel, Run, RunRollup, Session
from ingestion.services import language_models
from ingestion.services.intake import submission_ingest
from ingestion.services.language_models import (
    MODELS_LOCK,
    _ModelLookup,
    model_ids_resolve,
    model_merge,
)
from ingestion.services.processing import error_is_transient
from ingestion.services.registry import registry_load
from ingestion.services.rollups import rollups_rebuild
from leaderboard.models import BoardEntry, RecomputeRequest
from leaderboard.recompute.services import boards_recompute, boards_recompute_pending
from tests.builders import harness_manifest, outcomes, submit, tar_gz_bundle
from tests.ingestion.services.registry_builders import a_model, a_registry

pytestmark = pytest.mark.django_db

SPELLINGS = ["anthropic/claude-opus-4-6", "vertex_ai/claude-opus-4-6", "claude-opus-4-6"]


def runs_named(*names: str) -> list[dict]:
    """One run per spelling, each its own trial: spellings of one model are one model
    already in the bundle, so the same trial twice would be a duplicate."""
    runs = [
        run for i, name in enumerate(names) for run in outcomes("pass", model=name, prefix=f"r{i}")
    ]
    for trial, run in enumerate(runs, 1):
        run["trial"] = trial
    return runs


def a_session(session_id: str, model: str) -> dict:
    return {"session_id": session_id, "model": model, "turns": [{"role": "user", "text": "hi"}]}


def test_three_spellings_of_a_listed_model_are_one_model(registry, staff):
    registry_load(data=a_registry(models=[a_model()]))
    submit(staff, runs_named(*SPELLINGS))
    assert list(LanguageModel.objects.values_list("name", flat=True)) == ["claude-opus-4-6"]
    assert Run.objects.filter(model__name="claude-opus-4-6").count() == 3


def test_three_spellings_of_an_unknown_model_are_one_unlisted_model(registry, staff):
    submit(staff, runs_named(*SPELLINGS))
    model = LanguageModel.objects.get()
    assert (model.name, model.listed) == ("claude-opus-4-6", False)
    assert model.aliases == ["anthropic/claude-opus-4-6", "vertex_ai/claude-opus-4-6"]
    assert Run.objects.filter(model=model).count() == 3


def test_a_later_spelling_joins_the_unlisted_model_and_is_kept(registry, staff):
    submit(staff, runs_named("anthropic/x-model"))
    submit(staff, runs_named("openrouter/anthropic/x-model"), harness="H2")
    model = LanguageModel.objects.get()
    assert model.name == "x-model"
    assert model.aliases == ["anthropic/x-model", "openrouter/anthropic/x-model"]


def test_an_alias_resolves_before_the_prefix_is_stripped(registry, staff):
    # "bedrock/opus" would strip to "opus"; the registry names the exact spelling.
    registry_load(
        data=a_registry(models=[a_model(aliases=["bedrock/opus"]), a_model("opus", aliases=[])])
    )
    submit(staff, runs_named("bedrock/opus"))
    assert Run.objects.get().model.name == "claude-opus-4-6"


def test_sessions_resolve_model_names_the_same_way(registry, staff):
    registry_load(data=a_registry(models=[a_model()]))
    sessions = [a_session(f"s{i}", name) for i, name in enumerate([*SPELLINGS, "openai/unknown-1"])]
    bundle = tar_gz_bundle(harness_manifest("Sessions"), None, sessions)
    submission, _ = submission_ingest(upload=bundle, user=staff)
    assert submission.status == "ingested", submission.errors
    names = sorted(Session.objects.values_list("model__name", flat=True))
    assert names == ["claude-opus-4-6"] * 3 + ["unknown-1"]
    assert not LanguageModel.objects.get(name="unknown-1").listed


def test_it_resolves_a_batch_of_names_in_a_fixed_number_of_queries():
    registry_load(data=a_registry(models=[a_model()]))
    names = [f"openai/new-{i}" for i in range(40)] + SPELLINGS
    with CaptureQueriesContext(connection) as queries:
        ids = model_ids_resolve(names)
    assert len(queries.captured_queries) <= 6  # two reads, lock, insert, re-read, update
    assert len(set(ids.values())) == 41


def test_a_listed_models_alias_wins_over_an_unlisted_model_of_that_name(registry, staff):
    # An ingest that read the models before a registry load committed created "opus-x"
    # although the load lists it as an alias.
    submit(staff, runs_named("opus-x"))
    registry_load(data=a_registry(models=[a_model()]))
    LanguageModel.objects.filter(name="claude-opus-4-6").update(aliases=["opus-x"])
    assert model_ids_resolve(["opus-x"]) == {
        "opus-x": LanguageModel.objects.get(name="claude-opus-4-6").pk
    }


def test_two_ingests_adding_spellings_to_one_model_both_keep_theirs():
    model = LanguageModel.objects.create(name="x-model")
    lookup = _ModelLookup({"x-model", "openai/x-model"})  # this ingest reads the model
    lookup.remember_spelling(lookup.find("x-model"), "openai/x-model")
    # ... another ingest adds its spelling and commits before this one writes.
    LanguageModel.objects.filter(pk=model.pk).update(aliases=["bedrock/x-model"])
    lookup.save_spellings()
    model.refresh_from_db()
    assert model.aliases == ["bedrock/x-model", "openai/x-model"]


def test_an_ingest_creating_a_model_during_a_registry_load_is_put_back_in_the_queue():
    known = LanguageModel.objects.create(name="claude-opus-4-6", listed=True)
    with (
        psycopg.connect(database_url_of(connection.settings_dict), autocommit=True) as other,
        other.transaction(),
    ):
        other.execute("SELECT pg_advisory_xact_lock(%s, 0)", [MODELS_LOCK])  # the load
        # A known name needs no lock.
        assert model_ids_resolve(["claude-opus-4-6"]) == {"claude-opus-4-6": known.pk}
        with pytest.raises(OperationalError) as refused, transaction.atomic():
            model_ids_resolve(["openai/brand-new"])
    assert error_is_transient(refused.value)
    assert not LanguageModel.objects.filter(name="brand-new").exists()


def test_a_registry_load_keeps_new_unlisted_models_out_until_it_commits():
    registry_load(data=a_registry(models=[a_model()]))
    with (
        psycopg.connect(database_url_of(connection.settings_dict), autocommit=True) as other,
        other.transaction(),
    ):
        taken = other.execute("SELECT pg_try_advisory_xact_lock_shared(%s, 0)", [MODELS_LOCK])
        assert taken.fetchone() == (False,)


# -- merge -----------------------------------------------------------------------------


@pytest.fixture
def listed_opus(registry):
    registry_load(data=a_registry(models=[a_model()]))
    return LanguageModel.objects.get(name="claude-opus-4-6")


def test_merge_moves_runs_and_sessions_and_keeps_the_spellings(listed_opus, staff, superuser):
    harness_run = submit(staff, runs_named("opus-preview"), harness="Runs").harness_id
    bundle = tar_gz_bundle(harness_manifest("S"), None, [a_session("s1", "bedrock/opus-preview")])
    assert submission_ingest(upload=bundle, user=staff)[0].status == "ingested"
    source = LanguageModel.objects.get(name="opus-preview")
    RecomputeRequest.objects.all().delete()

    moved = model_merge(source=source, target=listed_opus, actor=superuser, reason="same model")

    assert moved == 2
    assert not LanguageModel.objects.filter(name="opus-preview").exists()
    assert Run.objects.get().model == listed_opus and Session.objects.get().model == listed_opus
    listed_opus.refresh_from_db()
    assert listed_opus.aliases == [
        "anthropic/claude-opus-4-6", "bedrock/opus-preview", "opus-preview",
        "vertex_ai/claude-opus-4-6",
    ]  # fmt: skip
    request = RecomputeRequest.objects.get()
    assert (request.harness_ids, request.sessions) == ([harness_run], True)
    assert "same model" in LogEntry.objects.get(object_id=str(listed_opus.pk)).change_message


def test_after_a_merge_the_old_spelling_lands_on_the_listed_model(listed_opus, staff, superuser):
    submit(staff, runs_named("opus-preview"))
    source = LanguageModel.objects.get(name="opus-preview")
    model_merge(source=source, target=listed_opus, actor=superuser, reason="same model")
    submit(staff, runs_named("opus-preview"), harness="Later")
    assert Run.objects.filter(model=listed_opus).count() == 2


def test_merge_refuses_a_listed_source_an_unlisted_target_and_no_reason(listed_opus, superuser):
    unlisted = LanguageModel.objects.create(name="opus-preview")
    unlisted_too = LanguageModel.objects.create(name="opus-preview-2")
    other = LanguageModel.objects.create(name="other", listed=True)
    with pytest.raises(ValidationError, match="only unlisted models merge"):
        model_merge(source=other, target=listed_opus, actor=superuser, reason="r")
    with pytest.raises(ValidationError, match="merge into a listed model"):
        model_merge(source=unlisted, target=unlisted_too, actor=superuser, reason="r")
    with pytest.raises(ValidationError, match="a reason is required"):
        model_merge(source=unlisted, target=listed_opus, actor=superuser, reason=" ")
    assert LanguageModel.objects.count() == 4


def test_merge_needs_the_permission(listed_opus, submitter, moderator):
    unlisted = LanguageModel.objects.create(name="opus-preview")
    with pytest.raises(PermissionDenied):
        model_merge(source=unlisted, target=listed_opus, actor=submitter, reason="r")
    model_merge(source=unlisted, target=listed_opus, actor=moderator, reason="r")
    assert not LanguageModel.objects.filter(name="opus-preview").exists()


def test_merge_judges_the_models_as_they_are_once_locked(listed_opus, superuser):
    source = LanguageModel.objects.create(name="opus-preview")
    LanguageModel.objects.filter(pk=source.pk).update(listed=True)  # a registry load meanwhile
    with pytest.raises(ValidationError, match="only unlisted models merge"):
        model_merge(source=source, target=listed_opus, actor=superuser, reason="r")
    assert LanguageModel.objects.filter(pk=source.pk).exists()


def test_the_board_keeps_a_merged_models_entries_until_the_recompute(listed_opus, staff, superuser):
    submit(staff, runs_named("opus-preview"))
    boards_recompute()
    source = LanguageModel.objects.get(name="opus-preview")

    model_merge(source=source, target=listed_opus, actor=superuser, reason="same model")

    shown = BoardEntry.objects.filter(board__snapshot__is_current=True)
    assert set(shown.values_list("model_name", flat=True)) == {"opus-preview"}
    boards_recompute_pending()
    assert set(shown.values_list("model_name", flat=True)) == {"claude-opus-4-6"}


def test_merge_rebuilds_each_submission_once_and_only_the_merged_groups(
    listed_opus, staff, superuser
):
    # Runs many enough that a list of one id per run would fill several rebuild batches.
    for harness in ("A", "B"):
        runs = outcomes(*["pass"] * 60, model="opus-preview", prefix=harness)
        submit(staff, runs + outcomes("fail", model="other-model", prefix=harness), harness=harness)
    source = LanguageModel.objects.get(name="opus-preview")
    untouched = set(
        RunRollup.objects.filter(model__name="other-model").values_list("pk", flat=True)
    )
    with CaptureQueriesContext(connection) as captured:
        model_merge(source=source, target=listed_opus, actor=superuser, reason="same model")
    deletes = [
        q["sql"] for q in captured if q["sql"].startswith('DELETE FROM "ingestion_runrollup"')
    ]
    assert len(deletes) == 1
    # The other model's groups were left as they were, never deleted and written again.
    assert (
        set(RunRollup.objects.filter(model__name="other-model").values_list("pk", flat=True))
        == untouched
    )
    assert sum(RunRollup.objects.filter(model=listed_opus).values_list("runs", flat=True)) == 120


def test_it_lists_each_submission_of_the_merged_runs_once(
    listed_opus, staff, superuser, monkeypatch
):
    # Many runs in each submission: listed with the runs' ordering (their id) in the
    # DISTINCT, each submission would come once per run.
    submissions = [
        submit(staff, outcomes(*["pass"] * 30, model="opus-preview", prefix=h), harness=h).pk
        for h in ("A", "B", "C")
    ]
    listed: list[list[int]] = []

    def rebuild(*, submission_ids, **kwargs):
        listed.append(list(submission_ids))
        return rollups_rebuild(submission_ids=submission_ids, **kwargs)

    monkeypatch.setattr(language_models, "rollups_rebuild", rebuild)
    source = LanguageModel.objects.get(name="opus-preview")
    model_merge(source=source, target=listed_opus, actor=superuser, reason="same model")

    assert [sorted(ids) for ids in listed] == [sorted(submissions)]


@pytest.mark.django_db(transaction=True)
def test_merge_lets_ingests_of_the_target_go_on_while_it_rebuilds(staff, superuser):
    target = LanguageModel.objects.create(name="claude-opus-4-6", listed=True)
    source = LanguageModel.objects.create(name="opus-preview")
    with (
        transaction.atomic(),
        psycopg.connect(database_url_of(connection.settings_dict), autocommit=True) as ingest,
    ):
        model_merge(source=source, target=target, actor=superuser, reason="same model")
        # What an ingest's foreign key to the target takes: not blocked by the merge.
        ingest.execute("SET lock_timeout = '1s'")
        row = ingest.execute(
            "SELECT id FROM ingestion_languagemodel WHERE id = %s FOR KEY SHARE", [target.pk]
        )
        assert row.fetchone() == (target.pk,)
