"""Loading the official suite registry (`arena-registry/1`) into the database.

One parser (`registry_parse`) serves the command line, the admin upload and the test
fixtures; every load announces that evidence changed, since suites, tasks, categories,
authors and models all decide what the boards count. The format, and the checks that
name every problem of a file before anything is written, are in `registry_format`.

Models: each listed model is stored with `listed=True` and its aliases. Loading adds
aliases and never removes one (a merge may have added it, and dropping it would split
the model again at the next ingest); an unlisted model whose name or alias a listed
model now claims is merged into it (ingestion.services.language_models). A load that lists
models first takes the models lock exclusively, so an unlisted model an ingest is
creating meanwhile is committed before the load looks for the ones to merge.
Prices are stored as the format check rounded them (registry_format.price_stored).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import transaction
from django.db.models import Q, QuerySet

from ingestion.aggregate_boards import suite_flags
from ingestion.bundles.depth import too_deep, too_deep_message
from ingestion.bundles.run_config import run_config_check
from ingestion.evidence import EvidenceCause, evidence_changed_announce
from ingestion.models import Category, LanguageModel, ModelPrice, Person, Suite, Task
from ingestion.services.language_models import (
    listed_spelling_conflicts,
    models_merge,
    unlisted_models_lock,
)
from ingestion.services.permissions import permission_require
from ingestion.services.registry_format import (
    GROUPS,
    HORIZON_MODE_DEFAULT,
    LEGACY_PRICE_FROM,
    PRICE_FIELDS,
    REGISTRY_FORMAT,
    date_parsed,
    price_stored,
    registry_problems,
)
from ingestion.services.traces import trace_statements_lock, traces_rescore

DEFAULT_REGISTRY_PATH = Path(__file__).resolve().parent.parent / "fixtures" / "registry.json"
# Who may load a registry file from the admin (the command line is an operator's).
LOAD_REGISTRY = "ingestion.change_suite"


class RegistryError(ValueError):
    """A registry file that cannot be loaded; `problems` names each thing wrong with it."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        self.problems = problems or [message]
        lines = [message, *(f"  - {p}" for p in problems or [])]
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class RegistryLoadResult:
    suites: int
    tasks_created: int
    tasks_updated: int
    models: int = 0
    models_merged: int = 0


def registry_parse(raw: bytes, *, source: str = "registry") -> dict[str, Any]:
    """A registry file's bytes as data; RegistryError when it is not `arena-registry/1`."""
    if too_deep(raw):  # the parser would recurse until RecursionError
        raise RegistryError(f"{source}: cannot read registry: {too_deep_message()}")
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RegistryError(f"{source}: cannot read registry: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != REGISTRY_FORMAT:
        raise RegistryError(f"{source}: format must be {REGISTRY_FORMAT!r}")
    problems = registry_problems(data)
    if problems:
        raise RegistryError(f"{source}: {len(problems)} problem(s) in the registry", problems)
    return data


def registry_read(path: Path) -> dict[str, Any]:
    """Read and parse a registry file from disk."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise RegistryError(f"{path}: cannot read registry: {exc}") from exc
    return registry_parse(raw, source=str(path))


@transaction.atomic
def registry_file_load(*, data: dict[str, Any], user) -> RegistryLoadResult:
    """Load a registry file on behalf of `user` (who needs LOAD_REGISTRY)."""
    permission_require(user, LOAD_REGISTRY)
    return registry_load(data=data)


@transaction.atomic
def registry_load(*, data: dict[str, Any]) -> RegistryLoadResult:
    """Create or update suites, categories, tasks, authors and models; running it twice
    changes nothing. RegistryError (nothing written) names every problem of the file.

    Tasks and listed models missing from the file are left as they are: retiring a task
    is an explicit admin decision (un-approve it), not a side effect of loading an older file.
    """
    problems = registry_problems(data)
    if problems:
        raise RegistryError(f"{len(problems)} problem(s) in the registry", problems)
    if data.get("models"):
        # First, holding no row lock: ingests creating unlisted models finish, and no
        # new one starts, so every unlisted model the file claims is seen and merged.
        unlisted_models_lock()
    result = _registry_apply(data)
    evidence_changed_announce(
        sender=__name__, cause=EvidenceCause("registry", label="registry loaded")
    )
    return result


def _registry_apply(data: dict[str, Any]) -> RegistryLoadResult:
    coding = set(data.get("coding_categories", []))
    for name in coding:
        Category.objects.update_or_create(name=name, defaults={"coding": True})
    created = updated = 0
    keys = [(s["slug"], s["version"]) for s in data.get("suites", [])]
    trace_statements_lock(exclusive=True)
    before = _trace_statements(keys)
    for suite_data in data.get("suites", []):
        suite = _suite_upsert(suite_data)
        for task_data in suite_data.get("tasks", []):
            was_created = _task_upsert(suite, task_data, coding)
            created += was_created
            updated += not was_created
    after = _trace_statements(keys)
    # A suite whose statement or reference calls changed has its runs read again.
    traces_rescore(suite_ids=[pk for pk, stated in after.items() if before.get(pk) != stated])
    models, merged = _models_apply(data.get("models", []))
    return RegistryLoadResult(
        suites=len(data.get("suites", [])),
        tasks_created=created,
        tasks_updated=updated,
        models=models,
        models_merged=merged,
    )


def _trace_statements(keys: list[tuple[str, str]]) -> dict[int, tuple]:
    """Suite id -> what it states for trace reading, for the suites of a file."""
    query = Q(pk__in=[])
    for slug, version in keys:
        query |= Q(slug=slug, version=version)
    stated = {}
    for suite in Suite.objects.filter(query).prefetch_related("tasks"):
        references = sorted(
            (t.task_id, json.dumps(t.reference_calls, sort_keys=True)) for t in suite.tasks.all()
        )
        stated[suite.pk] = (
            json.dumps(suite.trajectory, sort_keys=True),
            json.dumps(suite.rules, sort_keys=True),
            references,
        )
    return stated


def _suite_upsert(suite_data: dict[str, Any]) -> Suite:
    joins = suite_data.get("joins", list(GROUPS))
    suite, _ = Suite.objects.update_or_create(
        slug=suite_data["slug"],
        version=suite_data["version"],
        defaults={
            "name": suite_data.get("name", suite_data["slug"]),
            "official": bool(suite_data.get("official", False)),
            **suite_flags(joins),
            "execution": suite_data.get("execution", ""),
            "scoring": suite_data.get("scoring", ""),
            "limitations": suite_data.get("limitations", ""),
            # As a bundle's run_config is stored: only the fields it states.
            "standard_run_config": run_config_check(suite_data.get("standard_run_config"))[0],
            "trajectory": suite_data.get("trajectory") or {},
            "rules": suite_data.get("rules") or [],
            "horizon_mode": suite_data.get("horizon_mode", HORIZON_MODE_DEFAULT),
        },
    )
    return suite


def _task_upsert(suite: Suite, task_data: dict[str, Any], coding: set[str]) -> bool:
    category, _ = Category.objects.get_or_create(
        name=task_data["category"], defaults={"coding": task_data["category"] in coding}
    )
    approved = task_data.get("approved")
    defaults = {"category": category, "approved": True if approved is None else bool(approved)}
    if "published" in task_data:
        defaults["published_on"] = date_parsed(task_data["published"])
    if "reference_calls" in task_data:
        defaults["reference_calls"] = task_data["reference_calls"]
    if "human_minutes" in task_data:
        defaults["human_minutes"] = float(task_data["human_minutes"])
    if "family" in task_data:
        defaults["family"] = task_data["family"]
    task, created = Task.objects.update_or_create(
        suite=suite, task_id=task_data["task_id"], defaults=defaults
    )
    authors = [Person.objects.get_or_create(handle=h)[0] for h in task_data.get("authors", [])]
    task.authors.set(authors)
    return created


def _models_apply(models_data: list[dict[str, Any]]) -> tuple[int, int]:
    """Upsert the listed models, then merge the unlisted ones they claim: (models, merged)."""
    if not models_data:
        return 0, 0
    spellings = {m["name"]: {m["name"], *m.get("aliases", [])} for m in models_data}
    _listed_conflicts_check(spellings)
    owner = {spelling: name for name, names in spellings.items() for spelling in names}
    listed = {
        m["name"]: _model_upsert(m, foreign={s for s, n in owner.items() if n != m["name"]})
        for m in models_data
    }
    merged = 0
    for unlisted in _claimed_unlisted(set(owner)):
        # Its own name decides first; otherwise the first of its aliases a model claims.
        claimant = next(s for s in [unlisted.name, *sorted(unlisted.aliases)] if s in owner)
        models_merge(source=unlisted, target=listed[owner[claimant]])
        merged += 1
    return len(listed), merged


def _listed_conflicts_check(spellings: dict[str, set[str]]) -> None:
    """A listed model the file does not name may not share a spelling with one it does."""
    problems = listed_spelling_conflicts(spellings)
    if problems:
        raise RegistryError(f"{len(problems)} problem(s) in the registry", problems)


def _model_upsert(model_data: dict[str, Any], *, foreign: set[str]) -> LanguageModel:
    """Store a listed model; it keeps the aliases it had, except those now another's.

    Locked while read: a merge into it meanwhile would otherwise lose the aliases it adds.
    """
    name = model_data["name"]
    stored = LanguageModel.objects.select_for_update().filter(name=name).first()
    model = stored or LanguageModel(name=name)
    model.listed = True
    model.provider = model_data.get("provider", model.provider)
    model.organisation = model_data.get("organisation", model.organisation)
    model.open_weights = model_data.get("open_weights", model.open_weights)
    for day in ("release_date", "knowledge_cutoff"):
        if day in model_data:
            setattr(model, day, date_parsed(model_data[day]))
    kept = set(model.aliases) - foreign
    model.aliases = sorted((kept | set(model_data.get("aliases", []))) - {name})
    for price in ("input_price_per_mtok", "output_price_per_mtok"):
        if price in model_data:
            value = model_data[price]
            setattr(model, price, None if value is None else price_stored(value))
    model.save()
    _prices_store(model, model_data)
    return model


def _prices_store(model: LanguageModel, model_data: dict[str, Any]) -> None:
    """A file's price history replaces the model's; its two legacy fields alone set the
    period in force since always and keep the others (a moderator's, say)."""
    if "prices" in model_data:
        periods = model_data["prices"]
        ModelPrice.objects.filter(model=model).delete()
    elif "input_price_per_mtok" in model_data or "output_price_per_mtok" in model_data:
        periods = [
            {
                "effective_from": LEGACY_PRICE_FROM.isoformat(),
                "input_price_per_mtok": model.input_price_per_mtok,
                "output_price_per_mtok": model.output_price_per_mtok,
            }
        ]
        ModelPrice.objects.filter(model=model, effective_from=LEGACY_PRICE_FROM).delete()
    else:
        return
    ModelPrice.objects.bulk_create(
        ModelPrice(
            model=model,
            effective_from=date_parsed(period["effective_from"]),
            **{
                f.name: _price_or_none(period.get(f.name))
                for f in PRICE_FIELDS
                if f.kind == "price"
            },
        )
        for period in periods
    )


def _price_or_none(value):
    return None if value is None else price_stored(value)


def _claimed_unlisted(spellings: set[str]) -> list[LanguageModel]:
    claimed = Q(name__in=spellings) | Q(aliases__overlap=sorted(spellings))
    return list(LanguageModel.objects.filter(claimed, listed=False).order_by("pk"))


# Who may approve or retire tasks (moderators hold it).
CHANGE_REGISTRY = "ingestion.change_task"


@transaction.atomic
def tasks_approval_set(*, tasks: QuerySet[Task], approved: bool, user) -> int:
    """Approve or retire tasks; runs on retired tasks leave every board."""
    permission_require(user, CHANGE_REGISTRY)
    changed = tasks.exclude(approved=approved).update(approved=approved)
    if changed:
        label = f"{changed} task{'s' * (changed != 1)} {'approved' if approved else 'retired'}"
        evidence_changed_announce(sender=__name__, cause=EvidenceCause("registry", label=label))
    return changed
