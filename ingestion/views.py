"""Web pages for submitters: the upload form and a submission's status page."""

from __future__ import annotations

import math

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.http import require_GET, require_POST

from ingestion.example_bundle import EXAMPLE_FILENAME, example_bundle_bytes, example_tasks
from ingestion.format_docs import bundle_format_html
from ingestion.forms import CHECK_ONLY, BundleUploadForm
from ingestion.models import ApiToken, DryRun, Submission
from ingestion.services.api_tokens import api_token_create, api_token_rotate
from ingestion.services.checking import BundleCheck
from ingestion.services.dry_runs import dry_run_queue, dry_run_result
from ingestion.services.intake import (
    TAKEN_AGAIN,
    SubmittedByAnother,
    UploadTooLarge,
    submission_receive,
    submission_taken_again,
)
from ingestion.services.verification import verification_label
from ingestion.throttling import api_token_wait, upload_wait


@never_cache
@login_required
def submit(request: HttpRequest) -> HttpResponse:
    form = BundleUploadForm(request.POST or None, request.FILES or None)
    status = 200
    wait = upload_wait(request) if request.method == "POST" else None
    if wait is not None:  # the API's limit, counted in the same history
        form.is_valid()  # a bound form, so that an error can be added
        form.add_error(None, f"Too many uploads: try again in {math.ceil(wait)} seconds.")
        status = 429
    elif request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        if CHECK_ONLY in request.POST:
            return _check_only(request, form)
        try:
            submission, _ = submission_receive(
                upload=upload, user=request.user, filename=upload.name
            )
        except (UploadTooLarge, SubmittedByAnother) as exc:
            form.add_error("file", str(exc))
        else:
            if submission_taken_again(submission):
                messages.info(request, f"Submission {submission.pk} {TAKEN_AGAIN}.")
            return redirect("submission-detail", pk=submission.pk)
    return _submit_page(request, form, status=status)


def _check_only(request: HttpRequest, form: BundleUploadForm) -> HttpResponse:
    """The "Check only" button: the upload's full validation by the worker, nothing
    stored; the dry run's page shows the result when it is done. Checked at once (no
    worker), the result is shown above the form (which keeps no file: choose it again)."""
    upload = form.cleaned_data["file"]
    try:
        dry_run = dry_run_queue(upload=upload, user=request.user, filename=upload.name)
    except UploadTooLarge as exc:
        form.add_error("file", str(exc))
        return _submit_page(request, form)
    check = dry_run_result(dry_run)
    if check is None:
        return redirect("dry-run-detail", pk=dry_run.pk)
    return _submit_page(request, BundleUploadForm(), check=check, checked_name=upload.name)


@never_cache
@login_required
def dry_run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A dry run of the user's: "checking" (htmx polls it; without JavaScript the page
    refreshes itself) until the worker is done, then the result."""
    dry_run = get_object_or_404(DryRun.objects.owned_by(request.user), pk=pk)
    template = "ingestion/dry_run.html"
    if request.htmx:
        template += "#dry-run-status"
    context = {"dry_run": dry_run, "check": dry_run_result(dry_run),
               "checked_name": dry_run.original_name}  # fmt: skip
    return render(request, template, context)


def _submit_page(
    request: HttpRequest,
    form: BundleUploadForm,
    *,
    new_key: str = "",
    status: int = 200,
    check: BundleCheck | None = None,
    checked_name: str = "",
) -> HttpResponse:
    # Whether the account has a token, never its key: a key is shown once, in the
    # response that created it (`new_key`).
    token = ApiToken.objects.filter(user=request.user).only("created").first()
    submissions = Submission.objects.owned_by(request.user).select_related(
        "harness__independent_by"
    )[:20]
    context = {
        "form": form, "token": token, "new_key": new_key, "submissions": submissions,
        "check": check, "checked_name": checked_name, "check_only": CHECK_ONLY,
    }  # fmt: skip
    return render(request, "ingestion/submit.html", context, status=status)


# API tokens: created and rotated by explicit POSTs (CSRF-checked by the middleware);
# the new key is in that response only, never in a page that a GET shows again.


@never_cache  # the response shows a new key: no browser or proxy may keep a copy
@login_required
@require_POST
def api_token_create_view(request: HttpRequest) -> HttpResponse:
    return _api_token_change(request, rotate=False)


@never_cache  # the response shows a new key: no browser or proxy may keep a copy
@login_required
@require_POST
def api_token_rotate_view(request: HttpRequest) -> HttpResponse:
    return _api_token_change(request, rotate=True)


def _api_token_change(request: HttpRequest, *, rotate: bool) -> HttpResponse:
    wait = api_token_wait(request)
    if wait is not None:
        messages.error(request, f"Too many token changes: try again in {math.ceil(wait)} seconds.")
        return _submit_page(request, BundleUploadForm(), status=429)
    token = (api_token_rotate if rotate else api_token_create)(user=request.user)
    if token is None:  # one exists: its key is not shown again
        messages.info(request, "You already have an API token; rotate it to get a new key.")
        return redirect("submit")
    return _submit_page(request, BundleUploadForm(), new_key=token.key)


@login_required
def submission_detail(request: HttpRequest, pk: int) -> HttpResponse:
    # Staff can look at any submission; a submitter only at their own (404 otherwise).
    submissions = Submission.objects.select_related(
        "harness__independent_by", "uploader", "verifier", "duplicate_of"
    )
    if not request.user.is_staff:
        submissions = submissions.owned_by(request.user)
    submission = get_object_or_404(submissions, pk=pk)
    template = "ingestion/submission_detail.html"
    if request.htmx:
        template += "#submission-status"
    # The latest withdraw/restore decision (if any) tells the submitter why; read
    # through the relation so that ingestion does not import the moderation room.
    moderation = submission.decisions.select_related("decided_by").first()
    # Likewise the latest approval or rejection of one held for review.
    review = submission.reviews.first()
    # Errors past the listed ones and their causes' counts (too many distinct causes).
    listed = sum(error.get("count") or 1 for error in submission.errors)
    context = {
        "submission": submission,
        "moderation": moderation,
        "review": review,
        "unlisted_errors": max(submission.error_count - listed, 0),
        "verification": verification_label(submission),
        "agent_models": _agent_models(submission),
    }
    return render(request, template, context)


def _agent_models(submission: Submission) -> list[str]:
    """The models of its runs: with its harness, the agent pages it feeds."""
    if submission.harness_id is None or submission.status != Submission.Status.INGESTED:
        return []
    runs = submission.runs.order_by("model__name").values_list("model__name", flat=True)
    return [name for name in runs.distinct() if name]


# The format and its example: public, like the registry they draw on.


@require_GET
def bundle_format(request: HttpRequest) -> HttpResponse:
    return render(request, "ingestion/bundle_format.html", {"body": bundle_format_html()})


@require_GET
@cache_control(public=True, max_age=300)
def example_bundle(request: HttpRequest) -> HttpResponse:
    """A tar.gz generated from this deployment's registry (ingestion/example_bundle.py)."""
    response = HttpResponse(example_bundle_bytes(example_tasks()), content_type="application/gzip")
    response["Content-Disposition"] = f'attachment; filename="{EXAMPLE_FILENAME}"'
    return response
