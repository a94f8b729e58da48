"""Harness ownership: who a bundle's harness belongs to, and which row its runs go to.

A harness name belongs to the account that first published it and to the accounts it
names as maintainers (`HarnessOwner`). Their bundles register versions and change
metadata (contributors, URL, maintainers); anyone else's runs of the same name go to
an independent row of their own (`Harness.independent_by`), shown beside the
maintainers' entry and never pooled into it. A bundle from anyone else that tries to
change metadata is rejected with a named error, so nobody can add a contributor to a
rival's harness (and so exclude its runs as conflicted) or claim its next version.

A name whose maintainers' rows hold only withdrawn submissions (a rejected bundle never
leaves a claim behind: its transaction is rolled back) is released: the next account
to publish it claims it. See docs/decisions.md.

A bundle held for review (an uploader not yet trusted, services/trust.py) changes
nothing public: it claims no name, releases none and applies no metadata. Its runs wait
in the uploader's own row, its harness metadata in its stored manifest; approval
(`submission_harness_publish`) decides ownership as a published bundle's is decided
then, and rejection leaves everything as it was.
"""

from __future__ import annotations

import msgspec
from django.contrib.auth import get_user_model
from django.db import connection, transaction

from ingestion.bundles import BundleError, BundleRejected
from ingestion.bundles.schema import Harness as HarnessSpec
from ingestion.evidence import EvidenceCause, evidence_changed_announce
from ingestion.models import Harness, HarnessOwner, Run, Submission
from ingestion.services.people import people_ensure
from ingestion.services.rollups import rollups_rebuild

MANIFEST = "manifest.json"


@transaction.atomic
def harness_register(*, spec: HarnessSpec, uploader, held: bool = False) -> Harness:
    """The harness row a bundle's runs go to; raises BundleRejected with a named error.

    Runs in the ingest's transaction: a rejected bundle leaves no claim and no row.
    `held`: the bundle waits for review, and its runs go to a row that changes nothing
    public (`_held_harness`).
    """
    if held:
        return _held_harness(spec, uploader)
    ownership = _ownership_for(spec.name, uploader)
    if ownership.is_maintainer(uploader):
        harness = _maintained_harness(spec, ownership)
    else:
        harness = _independent_harness(spec, uploader)
    if harness.minimal_baseline and not uploader.is_staff:
        _reject(
            "harness.minimal_baseline", "only staff may submit runs of the Minimal baseline harness"
        )
    return harness


def _held_harness(spec: HarnessSpec, uploader) -> Harness:
    """The uploader's own row of this version, for a bundle held for review.

    A rival of a name held by others is judged as at publication (its metadata may
    restate, never change, theirs). Anyone else's metadata (a maintainer's, a claimant's
    of a free or released name) is kept in the submission's manifest until approval:
    only the maintainer names are checked now, so an unknown one is refused at once.
    """
    if spec.minimal_baseline and not uploader.is_staff:
        _reject(
            "harness.minimal_baseline", "only staff may submit runs of the Minimal baseline harness"
        )
    ownership = HarnessOwner.objects.filter(name=spec.name).first()
    if ownership is not None:
        _share_lock(ownership)  # a release decides against committed rows only
        if not ownership.is_maintainer(uploader) and not _is_released(spec.name):
            return _independent_harness(spec, uploader)
    if spec.maintainers is not None:
        _accounts(spec.maintainers, exclude=uploader.pk)
    original = Harness.objects.maintained().filter(name=spec.name, version=spec.version).first()
    minimal = original.minimal_baseline if original else spec.minimal_baseline
    return _independent_row(
        original or Harness(name=spec.name, version=spec.version, minimal_baseline=minimal),
        uploader,
    )


@transaction.atomic
def submission_harness_publish(*, submission: Submission) -> list[int]:
    """Give an approved submission the harness row its manifest earns now, as if it were
    published at this moment: the name claimed or released, its metadata applied, its
    runs moved to the row (and their rollups rebuilt) if that is another. Returns the
    rows whose evidence changed.

    Raises BundleRejected (a named error of its manifest) when it may no longer be
    published as it stands: the name has other maintainers since, whose metadata it
    would change. The caller (the moderator's approval) refuses the approval then.
    """
    if submission.harness_id is None or not submission.manifest.get("harness"):
        return [submission.harness_id] if submission.harness_id else []
    spec = msgspec.convert(submission.manifest["harness"], HarnessSpec)
    held = submission.harness
    harness = harness_register(spec=spec, uploader=submission.uploader)
    if harness.pk == held.pk:
        return [harness.pk]
    _duplicates_refuse(submission, harness)
    Run.objects.filter(submission=submission).update(harness=harness)
    Submission.objects.filter(pk=submission.pk).update(harness=harness)
    submission.harness = harness
    rollups_rebuild(submission_ids=[submission.pk])
    return [held.pk, harness.pk]


def _duplicates_refuse(submission: Submission, harness: Harness) -> None:
    """Refuse the move when the row holds some of its trials already (their source ids)."""
    keys = Run.objects.filter(submission=submission).exclude(source_key="").values("source_key")
    if Run.objects.filter(harness=harness, source_key__in=keys).exists():
        _reject(
            "harness.name",
            f"{harness} holds some of these trials already (stored since this upload)",
        )


def _ownership_for(name: str, uploader) -> HarnessOwner:
    """The name's ownership, claimed by `uploader` when nobody holds it.

    Every ingest of the name holds a shared lock on it until it commits, so ingests of
    one name never wait for each other; only a release takes the exclusive lock, which
    waits for the ingests in flight, so that it is decided against committed rows only.
    """
    ownership, created = HarnessOwner.objects.get_or_create(name=name, defaults={"owner": uploader})
    if created:
        return ownership
    if not ownership.is_maintainer(uploader) and _is_released(name):
        ownership = HarnessOwner.objects.select_for_update().get(pk=ownership.pk)
        if _is_released(name):  # still, now that every ingest in flight has committed
            _release(ownership, uploader)
        return ownership
    _share_lock(ownership)
    return ownership


def _share_lock(ownership: HarnessOwner) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM ingestion_harnessowner WHERE id = %s FOR SHARE", [ownership.pk]
        )


def _is_released(name: str) -> bool:
    """Every submission in the maintainers' rows was withdrawn or rejected (or there is
    none).

    "Not withdrawn or rejected" rather than "ingested": a bundle whose runs are written
    but whose outcome is not yet recorded (processing), or one held for review, still
    holds its name; one the moderators rejected on review (its runs deleted) does not,
    so a newcomer's held upload cannot keep a name after its rejection.
    """
    gone = [Submission.Status.WITHDRAWN, Submission.Status.REJECTED]
    return not (
        Submission.objects.filter(harness__name=name, harness__independent_by__isnull=True)
        .exclude(status__in=gone)
        .exists()
    )


def _release(ownership: HarnessOwner, claimant) -> None:
    """Hand a released name to `claimant`, leaving nothing of the old maintainers behind.

    Their withdrawn submissions become independent runs of their uploaders, so that a
    later restoration never pools them into the new maintainers' entry, and the
    maintainers' rows start again without contributors or URL.
    """
    rows = Harness.objects.maintained().filter(name=ownership.name)
    moved = list(Submission.objects.filter(harness__in=rows).select_related("harness"))
    for submission in moved:
        independent = _independent_row(submission.harness, submission.uploader)
        Run.objects.filter(submission=submission).update(harness=independent)
        Submission.objects.filter(pk=submission.pk).update(harness=independent)
    rollups_rebuild(submission_ids=[submission.pk for submission in moved])
    for row in rows:
        row.contributors.clear()
    rows.update(url="")
    _announce_independent(name=ownership.name)
    ownership.owner = claimant
    ownership.save(update_fields=["owner"])
    ownership.maintainers.clear()


def _maintained_harness(spec: HarnessSpec, ownership: HarnessOwner) -> Harness:
    harness, created = Harness.objects.maintained().get_or_create(
        name=spec.name,
        version=spec.version,
        defaults={"minimal_baseline": spec.minimal_baseline, "url": spec.url or ""},
    )
    if harness.minimal_baseline != spec.minimal_baseline:
        flag = str(harness.minimal_baseline).lower()
        _reject("harness.minimal_baseline", f"{harness} is registered with minimal_baseline={flag}")
    if spec.url and spec.url != harness.url:
        Harness.objects.filter(pk=harness.pk).update(url=spec.url)
        harness.url = spec.url
    # Contributors only ever grow: leaving a name out of a later manifest must not
    # hide a conflict of interest. Admins correct mistakes at the source.
    known = set(harness.contributors.values_list("handle", flat=True))
    people = people_ensure(handles=spec.contributors)
    harness.contributors.add(*people)
    if created or set(spec.contributors) - known:
        # Independent runs of this version are judged with these contributors.
        _announce_independent(name=harness.name, version=harness.version)
    if spec.maintainers is not None:
        ownership.maintainers.set(_accounts(spec.maintainers, exclude=ownership.owner_id))
    return harness


def _accounts(usernames: list[str], *, exclude: int) -> list:
    """The accounts named as maintainers (the owner needs no naming); unknown names reject."""
    found = {u.username: u for u in get_user_model().objects.filter(username__in=usernames)}
    for index, username in enumerate(usernames):
        if username not in found:
            _reject(f"harness.maintainers[{index}]", f"no account is named {username!r}")
    return [user for user in found.values() if user.pk != exclude]


def _independent_harness(spec: HarnessSpec, uploader) -> Harness:
    """The uploader's own row of this version; the bundle may restate, never change, metadata."""
    original = Harness.objects.maintained().filter(name=spec.name, version=spec.version).first()
    known = set(original.contributors.values_list("handle", flat=True)) if original else set()
    label = f'"{spec.name}"'
    if set(spec.contributors) - known:
        _reject(
            "harness.contributors", f"only the maintainers of {label} may change its contributors"
        )
    if spec.url and spec.url != (original.url if original else ""):
        _reject("harness.url", f"only the maintainers of {label} may change its URL")
    minimal = original.minimal_baseline if original else False
    if spec.minimal_baseline != minimal:
        _reject(
            "harness.minimal_baseline",
            f"only the maintainers of {label} may change its Minimal-baseline flag",
        )
    if spec.maintainers is not None:
        _reject("harness.maintainers", f"only the maintainers of {label} may name its maintainers")
    if original is None:  # the maintainers have not published this version
        original = Harness(name=spec.name, version=spec.version, minimal_baseline=minimal)
    return _independent_row(original, uploader)


def _independent_row(original: Harness, uploader) -> Harness:
    harness, _ = Harness.objects.get_or_create(
        name=original.name,
        version=original.version,
        independent_by=uploader,
        defaults={"minimal_baseline": original.minimal_baseline},
    )
    return harness


def _announce_independent(*, name: str, version: str | None = None) -> None:
    """Independent runs whose conflicts follow the maintainers' contributors changed."""
    rows = Harness.objects.filter(name=name, independent_by__isnull=False)
    if version is not None:
        rows = rows.filter(version=version)
    ids = list(rows.values_list("pk", flat=True))
    if ids:
        cause = EvidenceCause("transfer", label=f"maintainers of {name} changed")
        evidence_changed_announce(sender=__name__, harness_ids=ids, cause=cause)


def _reject(field: str, message: str) -> None:
    error = BundleError(file=MANIFEST, line=None, field=field, message=message)
    raise BundleRejected([error], 1)
