"""Models: which stored model a file's model name means, and merging one model into another.

A name is resolved in this order, the first match winning:
1. a listed model of exactly that name, then one with that name among its aliases;
2. the same for unlisted models (a listed model's claim wins over an unlisted model's
   name: a registry load may list a spelling an unlisted model was created under);
3. the same two after removing routing-provider prefixes
   (`vertex_ai/claude-opus-4-6` -> `claude-opus-4-6`, ingestion.bundles.model_names).
A name nothing matches is stored as an *unlisted* model under its prefix-stripped name,
keeping the spelling the file used as an alias, so that `anthropic/x` and `vertex_ai/x`
become the one unlisted model `x`. A moderator merges an unlisted model into a listed one
(`model_merge`), and loading a registry that lists a model merges the unlisted models it
names (ingestion.services.registry).

Creating unlisted models and a registry load exclude each other (`MODELS_LOCK`): an
ingest creates them under a shared lock held to its commit, after looking again for a
listed claim; the load takes the lock exclusively before anything else, so it waits for
those ingests and then merges what they created. Without it an ingest that read the
models before a load committed would leave an unlisted model the load never saw. An
ingest never waits for the lock (it may hold row locks the load wants: a deadlock); it
fails as "lock not available", which puts its submission back in the queue.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.contrib.admin.models import CHANGE, LogEntry
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Q
from psycopg import sql

from ingestion.bundles.model_names import model_name_unprefixed
from ingestion.evidence import EvidenceCause, evidence_changed_announce
from ingestion.models import LanguageModel, Run, Session
from ingestion.services.permissions import permission_require, reason_require
from ingestion.services.rollups import rollups_rebuild

# Who may merge models (moderators hold it; it opens no model form, unlike change).
MERGE_MODELS = "ingestion.merge_languagemodel"
# Advisory lock (MODELS_LOCK, 0) in PostgreSQL's two-key space, next to the ingest's
# (processing.INGEST_LOCK) and the bundle's (conversion.BUNDLE_LOCK).
MODELS_LOCK = 7_204
_LOCK_SHARED_OR_FAIL = sql.SQL(
    """
    DO $$ BEGIN
        IF NOT pg_try_advisory_xact_lock_shared({key}, 0) THEN
            RAISE EXCEPTION 'a registry load is storing models: try again'
            USING ERRCODE = 'lock_not_available';
        END IF;
    END $$
    """
).format(key=sql.Literal(MODELS_LOCK))
_LOCK_EXCLUSIVE = sql.SQL("SELECT pg_advisory_xact_lock(%s, 0)")
# New spellings appended in one statement, from the row as it is when locked: two
# ingests adding spellings to one model both keep theirs. Listed models are skipped:
# their aliases are the registry's (a reload would drop additions).
_SPELLINGS_ADD = sql.SQL(
    """
    UPDATE {table} AS m
    SET aliases = ARRAY(
        SELECT DISTINCT spelling FROM unnest(m.aliases || added.spellings) AS spelling
        ORDER BY spelling
    )
    FROM (
        SELECT id, array_agg(spelling) AS spellings
        FROM unnest(%s::bigint[], %s::varchar[]) AS pair(id, spelling)
        GROUP BY id
    ) AS added
    WHERE m.id = added.id AND NOT m.listed AND NOT m.aliases @> added.spellings
    """
).format(table=sql.Identifier(LanguageModel._meta.db_table))
# The merge's locks: the source row FOR UPDATE, the target's FOR KEY SHARE (_pair_lock).
_LOCK_UPDATE, _LOCK_KEY_SHARE = (
    sql.SQL("SELECT 1 FROM {table} WHERE id = %s {mode}").format(
        table=sql.Identifier(LanguageModel._meta.db_table), mode=sql.SQL(mode)
    )
    for mode in ("FOR UPDATE", "FOR KEY SHARE")
)
# A merge's spellings added to the target's aliases (never its own name), in one statement.
_ALIASES_ADD = sql.SQL(
    """
    UPDATE {table} SET aliases = ARRAY(
        SELECT DISTINCT spelling FROM unnest(aliases || %s::varchar[]) AS spelling
        WHERE spelling <> %s ORDER BY spelling
    )
    WHERE id = %s RETURNING aliases
    """
).format(table=sql.Identifier(LanguageModel._meta.db_table))


def model_ids_resolve(names: Iterable[str]) -> dict[str, int]:
    """Name as spelled in a file -> the id of the model it means, creating unlisted models.

    A constant number of queries per call, whatever the number of names: one read of
    every candidate model; when some name is unknown, the shared MODELS_LOCK, a second
    read of the unknown names' candidates, one insert and one re-read; one alias update.
    """
    spellings = set(names)
    if not spellings:
        return {}
    found: dict[str, int] = {}
    lookup, unknown = _names_find(spellings, found)
    if unknown:
        with connection.cursor() as cursor:
            cursor.execute(_LOCK_SHARED_OR_FAIL)
        # A registry load that committed since the first read may list them now.
        lookup, unknown = _names_find(set().union(*unknown.values()), found, lookup)
    for stripped, model in _unlisted_create(unknown).items():
        for name in unknown[stripped]:
            found[name] = model.pk
            lookup.remember_spelling(model, name)
    lookup.save_spellings()
    return found


def _names_find(
    spellings: set[str], found: dict[str, int], earlier: _ModelLookup | None = None
) -> tuple[_ModelLookup, dict[str, set[str]]]:
    """Fill `found` with the names a stored model means; the rest by stripped name."""
    unprefixed = {name: model_name_unprefixed(name) for name in spellings}
    lookup = _ModelLookup(spellings | set(unprefixed.values()), earlier)
    unknown: dict[str, set[str]] = defaultdict(set)  # stripped name -> spellings
    for name in spellings:
        model = lookup.find(name) or lookup.find(unprefixed[name])
        if model is None:
            unknown[unprefixed[name]].add(name)
        else:
            found[name] = model.pk
            lookup.remember_spelling(model, name)
    return lookup, unknown


class _ModelLookup:
    """The models a batch of names may mean, read in one query, by name and by alias."""

    def __init__(self, candidates: set[str], earlier: _ModelLookup | None = None) -> None:
        rows = LanguageModel.objects.filter(
            Q(name__in=candidates) | Q(aliases__overlap=sorted(candidates))
        ).order_by("pk")
        self.listed: dict[str, LanguageModel] = {}  # name or alias -> listed model
        self.unlisted: dict[str, LanguageModel] = {}
        for model in rows:  # a name before an alias, within listed and within unlisted
            spellings = self.listed if model.listed else self.unlisted
            spellings[model.name] = model
        for model in rows:
            spellings = self.listed if model.listed else self.unlisted
            for alias in model.aliases:
                spellings.setdefault(alias, model)
        # Spellings remembered by an earlier read are still to be saved.
        self.respelled: dict[int, set[str]] = earlier.respelled if earlier else defaultdict(set)

    def find(self, name: str) -> LanguageModel | None:
        return self.listed.get(name) or self.unlisted.get(name)

    def remember_spelling(self, model: LanguageModel, name: str) -> None:
        """An unlisted model keeps every spelling files used for it, as an alias.

        A listed model's aliases are the registry's: a reload would drop additions.
        """
        if not (model.listed or name == model.name or name in model.aliases):
            self.respelled[model.pk].add(name)

    def save_spellings(self) -> None:
        if not self.respelled:
            return
        pairs = [(pk, name) for pk, names in self.respelled.items() for name in sorted(names)]
        ids, names = [pk for pk, _ in pairs], [name for _, name in pairs]
        with connection.cursor() as cursor:
            cursor.execute(_SPELLINGS_ADD, [ids, names])


def _unlisted_create(unknown: dict[str, set[str]]) -> dict[str, LanguageModel]:
    """Stripped name -> its new unlisted model (another ingest may have just made it)."""
    if not unknown:
        return {}
    LanguageModel.objects.bulk_create(
        [
            LanguageModel(name=stripped, aliases=sorted(unknown[stripped] - {stripped}))
            for stripped in sorted(unknown)
        ],
        ignore_conflicts=True,
    )
    return {m.name: m for m in LanguageModel.objects.filter(name__in=list(unknown))}


def unlisted_models_lock() -> None:
    """Wait for the ingests creating unlisted models to commit, and keep new ones out
    until this transaction ends. A registry load takes it first, holding no row lock."""
    with connection.cursor() as cursor:
        cursor.execute(_LOCK_EXCLUSIVE, [MODELS_LOCK])


def listed_spelling_conflicts(
    spellings: dict[str, set[str]], *, exclude_pk: int | None = None
) -> list[str]:
    """The one rule for listed models' spellings, for the registry load and the admin:
    a spelling (name or alias) of a listed model is no other listed model's.

    `spellings`: listed model name -> its name and aliases, as they are to be stored;
    listed models of those names (and `exclude_pk`, the row being edited) are the ones
    being changed and are not compared with.
    """
    every = set().union(*spellings.values()) if spellings else set()
    others = LanguageModel.objects.filter(listed=True).exclude(name__in=list(spellings))
    if exclude_pk is not None:
        others = others.exclude(pk=exclude_pk)
    problems = []
    for other in others.filter(Q(name__in=every) | Q(aliases__overlap=sorted(every))):
        for name, names in sorted(spellings.items()):
            shared = sorted(names & {other.name, *other.aliases})
            if shared:
                problems.append(
                    f'models ({name}): "{shared[0]}" is already a spelling of listed '
                    f'model "{other.name}"'
                )
    return problems


@transaction.atomic
def model_merge(*, source: LanguageModel, target: LanguageModel, actor, reason: str) -> int:
    """Merge the unlisted `source` into the listed `target`, recording who and why.

    Returns the number of runs and sessions moved. Refused (ValidationError) unless
    `source` is unlisted and `target` listed and they differ, as they are once locked.

    Against concurrent ingests: both rows are locked FOR UPDATE first, which waits for
    every ingest that has written runs or sessions of `source` (each holds a key-share
    lock on it through its foreign keys) to commit, so their runs move too. An ingest
    that resolved a name to `source` before the merge and writes after it fails on the
    foreign key (`source` is gone) and is retaken: the name then resolves to `target`.
    """
    permission_require(actor, MERGE_MODELS)
    reason = reason_require(reason)
    if source.pk == target.pk:
        raise ValidationError(f"{source.name} cannot be merged into itself")
    source, target = _pair_lock(source, target)
    if source.listed:
        raise ValidationError(
            f"{source.name} is listed in the registry: only unlisted models merge"
        )
    if not target.listed:
        raise ValidationError(f"{target.name} is not listed: merge into a listed model")
    moved = models_merge(source=source, target=target)
    LogEntry.objects.log_actions(
        actor.pk,
        [target],
        CHANGE,
        change_message=f"Merged {source.name} ({moved} runs and sessions): {reason}",
    )
    return moved


@transaction.atomic
def models_merge(*, source: LanguageModel, target: LanguageModel) -> int:
    """Move `source`'s runs and sessions to `target`, keep its spellings as aliases,
    delete it and announce the change. No permission check: callers make it.

    Runs keep their (harness, task, trial): after a merge two runs of one agent may
    share a task and trial, as runs of two spellings always could; the boards count
    runs, never deduplicate them by trial (the duplicate rule is the source id).

    Only the merged groups are rebuilt: the two models' rollups in the submissions that
    hold `source`'s runs, each submission once, so a merge costs what its runs cost.

    The board entries of `source` on the snapshot on show stay (their model column has
    no constraint, and carries the name) until the recompute announced here, in this
    transaction, replaces them with `target`'s.
    """
    source, target = _pair_lock(source, target)
    moved = Run.objects.filter(model=source).order_by()  # no ordering in the DISTINCTs
    harness_ids = set(moved.values_list("harness_id", flat=True).distinct())
    submission_ids = list(moved.values_list("submission_id", flat=True).distinct())
    runs = moved.update(model=target)
    rollups_rebuild(submission_ids=submission_ids, model_ids=[source.pk, target.pk])
    sessions = Session.objects.filter(model=source).update(model=target)
    _aliases_add(target, [source.name, *source.aliases])
    source.delete()
    label = f"model {source.name} merged into {target.name}"
    evidence_changed_announce(
        sender=__name__,
        harness_ids=harness_ids,
        sessions=bool(sessions),
        cause=EvidenceCause("merge", target.pk, label),
    )
    return runs + sessions


def _aliases_add(target: LanguageModel, spellings: list[str]) -> None:
    """Add spellings to the target's aliases in one statement, from the row as it is
    then: the target's row lock is taken only here, at the end of the merge."""
    with connection.cursor() as cursor:
        cursor.execute(_ALIASES_ADD, [spellings, target.name, target.pk])
        (target.aliases,) = cursor.fetchone()


def _pair_lock(source: LanguageModel, target: LanguageModel) -> tuple[LanguageModel, LanguageModel]:
    """Both rows as they are, in id order (two merges never deadlock): the source FOR
    UPDATE (it is deleted), the target only FOR KEY SHARE, so that it stays while
    ingests of it (their foreign keys take the same lock) go on during the rebuild.

    Refused (ValidationError) when either is gone: merged or deleted meanwhile."""
    for pk in sorted({source.pk, target.pk}):
        with connection.cursor() as cursor:
            cursor.execute(_LOCK_UPDATE if pk == source.pk else _LOCK_KEY_SHARE, [pk])
    # Read once both are locked: as they are now, not as the caller last saw them.
    locked = LanguageModel.objects.in_bulk([source.pk, target.pk])
    if source.pk not in locked or target.pk not in locked:
        raise ValidationError(f"{source.name} or {target.name} no longer exists")
    return locked[source.pk], locked[target.pk]
