"""Submission API: token-authenticated uploads and the caller's own submissions."""

from __future__ import annotations

import io

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework import status
from rest_framework.parsers import FileUploadParser, JSONParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ingestion.bundles.limits import NATIVE_FORMATS
from ingestion.models import DryRun, Submission
from ingestion.serializers import (
    DryRunSerializer,
    NativeUploadSerializer,
    SubmissionCreatedSerializer,
    SubmissionSerializer,
    SubmissionUploadSerializer,
    dry_run_api_url,
    submission_api_url,
)
from ingestion.services.dry_runs import dry_run_queue, dry_run_result
from ingestion.services.intake import (
    TAKEN_AGAIN,
    NativeSource,
    SubmittedByAnother,
    UploadTooLarge,
    json_body,
    submission_receive,
    submission_receive_native,
    submission_taken_again,
)
from ingestion.throttling import UPLOAD_THROTTLE_SCOPE, UploadThrottle

DRY_RUN_TRUE = frozenset({"1", "true", "yes", "on"})


class SubmissionListCreateApi(APIView):
    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser, JSONParser, FileUploadParser]
    throttle_classes = [UploadThrottle]
    throttle_scope = UPLOAD_THROTTLE_SCOPE

    @extend_schema(responses=SubmissionSerializer(many=True))
    def get(self, request: Request) -> Response:
        submissions = Submission.objects.owned_by(request.user).select_related(
            "harness__independent_by", "verifier", "duplicate_of"
        )
        context = {"request": request}
        return Response(SubmissionSerializer(submissions, many=True, context=context).data)

    @extend_schema(
        request={
            "multipart/form-data": SubmissionUploadSerializer,
            "application/json": dict,
        },
        parameters=[
            OpenApiParameter(
                "dry_run",
                bool,
                description="1: validate fully (registry lookups included) and store "
                "nothing. The worker checks the upload: 202 with the dry run's `url` to GET "
                "until its `status` is `done`; 200 with the result at once when the check "
                "ran within the request (a server without a worker). Done, it has `valid` "
                "and a summary or the errors.",
            )
        ],
        description="A bundle as multipart `file` or a JSON body; or native results "
        "(`format=harbor|tau-bench|tau2-bench|claude-code|agentdojo|swebench|task-matrix` with the parameters that format "
        "needs: harness, harness_version, suite, suite_version, model, scenario, confirmation;"
        " run_config, a JSON object, for the settings the files do not record; agentdojo:"
        " attack and task_ids, a JSON list; swebench and task-matrix: entry, which entry"
        " or agent of a file holding several).",
        responses={
            202: OpenApiResponse(
                response=PolymorphicProxySerializer(
                    component_name="UploadAccepted",
                    serializers=[SubmissionCreatedSerializer, DryRunSerializer],
                    resource_type_field_name=None,
                ),
                description="the upload is queued (poll its `url`); with dry_run=1, a "
                "DryRun whose `url` to poll",
            ),
            200: OpenApiResponse(
                response=DryRunSerializer,
                description="the same bytes' existing submission (SubmissionCreated's "
                "fields), or a dry run done within the request",
            ),
            400: OpenApiResponse(description="no bundle in the request"),
            409: OpenApiResponse(description="these bytes are another account's submission"),
            413: OpenApiResponse(description="over the upload size limit"),
        },
    )
    def post(self, request: Request) -> Response:
        # A JSON bundle is hashed as the exact bytes sent: streamed to disk unparsed
        # (never request.body, which would hold the whole of it in memory).
        is_json = request.content_type.startswith("application/json")
        dry_run = _dry_run(request, is_json)
        if is_json:
            upload, filename = json_body(request.stream or io.BytesIO()), "bundle.json"
        elif request.data.get("format") in NATIVE_FORMATS:
            return self._post_native(request, dry_run)
        else:
            file = request.FILES.get("file")
            if file is None:
                return Response({"detail": "send the bundle as multipart field 'file'"}, status=400)
            upload, filename = file, file.name
        if dry_run:
            return _checked(request, upload=upload, filename=filename)
        try:
            submission, created = submission_receive(
                upload=upload, user=request.user, filename=filename
            )
        except UploadTooLarge as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
        except SubmittedByAnother as exc:
            return _submitted_by_another(exc)
        return _created(request, submission, created)

    def _post_native(self, request: Request, dry_run: bool) -> Response:
        # Only the parameters are checked here; the worker converts the files (a slow,
        # memory-hungry step no web request should take) and reports errors on the
        # submission (GET its url).
        form = NativeUploadSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        contributors = [c.strip() for c in data.get("contributors", "").split(",") if c.strip()]
        text = {
            name: (data.get(name) or "").strip()
            for name in ("harness", "harness_version", "suite", "suite_version")
        }
        source = NativeSource(
            format=data["format"], **text, model=(data.get("model") or "").strip() or None,
            contributors=tuple(contributors), scenario=data.get("scenario"),
            confirmation=data.get("confirmation"), run_config=data.get("run_config") or {},
            attack=(data.get("attack") or "").strip() or None,
            task_ids=tuple(data["task_ids"]) if data.get("task_ids") is not None else None,
            entry=(data.get("entry") or "").strip() or None,
        )  # fmt: skip
        if dry_run:
            file = data["file"]
            return _checked(request, upload=file, filename=file.name, native=source)
        try:
            submission, created = submission_receive_native(
                upload=data["file"], user=request.user, filename=data["file"].name, source=source
            )
        except UploadTooLarge as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
        except SubmittedByAnother as exc:
            return _submitted_by_another(exc)
        return _created(request, submission, created)


def _dry_run(request: Request, is_json: bool) -> bool:
    """`dry_run=1` in the query string, or as a multipart field (a JSON body is the
    bundle itself: there only the query string can say it)."""
    value = request.query_params.get("dry_run")
    if value is None and not is_json:
        value = request.data.get("dry_run")
    return (value or "").strip().lower() in DRY_RUN_TRUE


def _checked(
    request: Request, *, upload, filename: str, native: NativeSource | None = None
) -> Response:
    """A dry run's answer: 202 and its `url` while the worker checks it; 200 with `valid`
    and either the summary or the named errors (those the submission would list) when
    it was checked at once. Nothing is stored but the bytes until they are checked."""
    try:
        dry_run = dry_run_queue(upload=upload, user=request.user, filename=filename, native=native)
    except UploadTooLarge as exc:
        return Response({"detail": str(exc)}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    body = _dry_run_body(request, dry_run)
    done = body["status"] == DryRun.Status.DONE
    return Response(body, status=status.HTTP_200_OK if done else status.HTTP_202_ACCEPTED)


def _dry_run_body(request: Request, dry_run: DryRun) -> dict:
    body = {"dry_run": True, "id": dry_run.pk, "status": dry_run.status,
            "url": dry_run_api_url(dry_run, request)}  # fmt: skip
    check = dry_run_result(dry_run)
    if check is not None:
        body.update(check.to_json(), status=DryRun.Status.DONE)
    return body


def _submitted_by_another(exc: SubmittedByAnother) -> Response:
    body = {"detail": str(exc), "code": "submitted_by_another", "submission": exc.submission_id}
    return Response(body, status=status.HTTP_409_CONFLICT)


def _created(request: Request, submission: Submission, created: bool) -> Response:
    # 202 for work queued (a new submission, or a rejected one taken again), 200 when
    # the same bytes only return their submission as it is.
    taken_again = submission_taken_again(submission)
    body = {
        "id": submission.pk, "status": submission.status, "url": submission_api_url(submission, request),
        "taken_again": taken_again,
    }  # fmt: skip
    if taken_again:
        body["detail"] = TAKEN_AGAIN
    elif not created:
        body["detail"] = "already uploaded: the same bytes return their submission as it is"
        if submission.duplicate_of_id is not None:
            body["detail"] += f"; {submission.summary}"
    queued = created or taken_again
    return Response(body, status=status.HTTP_202_ACCEPTED if queued else status.HTTP_200_OK)


class SubmissionDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=SubmissionSerializer)
    def get(self, request: Request, pk: int) -> Response:
        submission = get_object_or_404(Submission.objects.owned_by(request.user), pk=pk)
        return Response(SubmissionSerializer(submission, context={"request": request}).data)


class DryRunDetailApi(APIView):
    """A dry run of the caller's: poll it until `status` is `done`."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=DryRunSerializer)
    def get(self, request: Request, pk: int) -> Response:
        dry_run = get_object_or_404(DryRun.objects.owned_by(request.user), pk=pk)
        return Response(_dry_run_body(request, dry_run))
