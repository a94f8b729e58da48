"""Verified results at ingest: the registered verifiers, and the checks of
ingestion/bundles/verification.py run against them.

The ingest (processing._ingest_file) calls `bundle_verification_check` before it writes
a row, so a bundle that can never be Verified (unknown or inactive verifier, bad
signature, malformed verification.json) is refused at once; then, after its records
streamed (which hashed its results files), `submission_verification_record` compares
the digests and marks the submission Verified. A bundle without verification.json stays
Self-reported. Both run inside the ingest's transaction: a rejection undoes everything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction

from ingestion.bundles import Bundle
from ingestion.bundles.verification import (
    Statement,
    VerifierKey,
    check_digests,
    check_statement,
)
from ingestion.evidence import EvidenceCause, evidence_changed_announce
from ingestion.models import Submission, Verifier


@dataclass(frozen=True)
class PendingVerification:
    """A verification.json whose signature is good; its digests are still to compare."""

    statement: Statement
    verifier: Verifier


def verifier_key_lookup(name: str) -> VerifierKey | None:
    """The registered verifier of that name as the pure checks take it, or None."""
    verifier = Verifier.objects.filter(name=name).first()
    if verifier is None:
        return None
    return VerifierKey(name=verifier.name, public_key=verifier.public_key, active=verifier.active)


def bundle_verification_check(*, bundle: Bundle, uploader) -> PendingVerification | None:
    """None for a bundle without verification.json (Self-reported); else its statement,
    signed by an active registered verifier for this uploader and the manifest's harness.
    Raises BundleRejected with a named error."""
    statement = bundle.verification()
    if statement is None:
        return None
    harness = bundle.manifest.harness
    key = check_statement(
        statement, present=bundle.signed_files(), lookup=verifier_key_lookup,
        account=uploader.get_username(), harness=harness.name if harness else "",
    )  # fmt: skip
    return PendingVerification(statement=statement, verifier=Verifier.objects.get(name=key.name))


def submission_verification_record(
    *, submission: Submission, bundle: Bundle, pending: PendingVerification | None
) -> None:
    """After the records streamed: the results files must hash to what was signed (else
    a "digest mismatch" rejection naming the file); then the submission is Verified."""
    if pending is None:
        submission.verification = Submission.Verification.SELF_REPORTED
        submission.verifier = None
    else:
        check_digests(pending.statement, bundle.results_digests())
        submission.verification = Submission.Verification.VERIFIED
        submission.verifier = pending.verifier
    submission.save(update_fields=["verification", "verifier"])


def verification_label(submission: Submission) -> str:
    """How pages and the API name a submission's verification."""
    verifier = submission.verifier
    if submission.verification != Submission.Verification.VERIFIED or verifier is None:
        return "Self-reported"
    if not verifier.active:
        return f"Verified by {verifier.name} — verifier deactivated, counted as Self-reported"
    return f"Verified by {verifier.name}"


def verifier_harness_ids(verifier: Verifier) -> list[int]:
    """The harnesses whose entries its signatures decide: those of its submissions."""
    harness_ids = verifier.submissions.exclude(harness=None).values_list("harness_id", flat=True)
    return sorted(set(harness_ids))


@transaction.atomic
def verifiers_active_set(*, verifier_ids: Iterable[int], active: bool) -> int:
    """(De)activate verifiers; the boards recompute the entries of their submissions,
    which turn Self-reported (or Verified again). Returns how many changed."""
    rows = Verifier.objects.filter(pk__in=list(verifier_ids)).exclude(active=active)
    changed = list(rows.select_for_update())
    if not changed:
        return 0
    Verifier.objects.filter(pk__in=[v.pk for v in changed]).update(active=active)
    harness_ids = sorted({i for verifier in changed for i in verifier_harness_ids(verifier)})
    if harness_ids:
        state = "activated" if active else "deactivated"
        label = f"{len(changed)} verifier{'s' * (len(changed) != 1)} {state}"
        cause = EvidenceCause("verifier", changed[0].pk, label)
        evidence_changed_announce(sender=__name__, harness_ids=harness_ids, cause=cause)
    return len(changed)
