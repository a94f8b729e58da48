from __future__ import annotations

import json

from django.http import HttpRequest
from django.urls import reverse
from rest_framework import serializers

from ingestion.bundles.limits import CONFIRMATIONS, NATIVE_FORMATS, SCENARIOS
from ingestion.bundles.run_config import run_config_check
from ingestion.importers import DESCRIPTIONS, REQUIRED_PARAMS
from ingestion.models import DryRun, Submission
from ingestion.services.verification import verification_label


class BundleErrorSerializer(serializers.Serializer):
    """One error line; past the first 20, one entry per cause with `count`."""

    file = serializers.CharField(allow_blank=True)
    line = serializers.IntegerField(allow_null=True)
    field = serializers.CharField(allow_blank=True)
    message = serializers.CharField()
    count = serializers.IntegerField(
        default=None,
        allow_null=True,
        help_text="null for one error line; on a grouped entry (line null), how many more "
        "lines have this error",
    )


def submission_api_url(submission: Submission, request: HttpRequest | None = None) -> str:
    """The submission's API address: absolute when the request is known (api.md's `url`
    fields are absolute)."""
    path = reverse("api-submission-detail", args=[submission.pk])
    return request.build_absolute_uri(path) if request is not None else path


def dry_run_api_url(dry_run: DryRun, request: HttpRequest | None = None) -> str:
    path = reverse("api-dry-run-detail", args=[dry_run.pk])
    return request.build_absolute_uri(path) if request is not None else path


class DryRunSerializer(serializers.Serializer):
    """A dry run: `status` `queued` or `checking` until the worker is done (poll `url`),
    then `done` with the check's fields (those of a submission's validation)."""

    dry_run = serializers.BooleanField(default=True)
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=DryRun.Status.choices)
    url = serializers.URLField(help_text="this dry run's address: GET it until `status` is done")
    valid = serializers.BooleanField(required=False, help_text="when done: no error")
    error_count = serializers.IntegerField(required=False)
    errors = BundleErrorSerializer(many=True, required=False)
    runs = serializers.IntegerField(required=False, help_text="runs the upload would add")
    sessions = serializers.IntegerField(required=False)
    harness = serializers.CharField(required=False, help_text="name and version")
    suites = serializers.ListField(child=serializers.CharField(), required=False)
    models = serializers.ListField(child=serializers.CharField(), required=False)
    held_for_review = serializers.BooleanField(required=False)
    warnings = serializers.ListField(child=serializers.CharField(), required=False)
    nothing_new = serializers.CharField(required=False, allow_blank=True)
    duplicate_of = serializers.IntegerField(required=False, allow_null=True)
    added = serializers.CharField(required=False, allow_blank=True)


class VerifierSerializer(serializers.Serializer):
    """The verifier whose signature made a submission Verified; an inactive one's
    submissions count as Self-reported on the boards."""

    name = serializers.CharField()
    active = serializers.BooleanField()


class SubmissionSerializer(serializers.ModelSerializer):
    runs = serializers.IntegerField(source="runs_count")
    sessions = serializers.IntegerField(source="sessions_count")
    errors = BundleErrorSerializer(many=True)
    harness = serializers.StringRelatedField()
    url = serializers.SerializerMethodField()
    verifier = VerifierSerializer(allow_null=True, help_text="who signed it, when Verified")
    verification_text = serializers.SerializerMethodField(
        help_text="as the page says it: Verified by <name>, Self-reported, or Verified by "
        "<name> — verifier deactivated, counted as Self-reported"
    )
    duplicate_of = serializers.IntegerField(
        source="duplicate_of_id", allow_null=True,
        help_text="nothing new: the id of your earlier submission that holds these results"
        " (this one is `ingested`, with no runs or sessions of its own); null otherwise",
    )  # fmt: skip
    run_config = serializers.JSONField(
        read_only=True, help_text="the run configuration it states ({} when none)"
    )
    summary = serializers.CharField(
        help_text='what it added, in words, where the counts do not say it: "nothing new: '
        'these runs are already submission N", or "2 sessions grew by 14 turns (stored in '
        'submission N), 1 new session"; empty otherwise'
    )

    class Meta:
        model = Submission
        fields = [
            "id", "status", "sha256", "original_name", "harness", "runs", "sessions",
            "errors", "error_count", "report", "notes", "created_at", "started_at", "finished_at",
            "url", "verification", "verifier", "verification_text", "duplicate_of", "summary",
            "run_config",
        ]  # fmt: skip

    def get_url(self, submission: Submission) -> str:
        return submission_api_url(submission, self.context.get("request"))

    def get_verification_text(self, submission: Submission) -> str:
        return verification_label(submission)


class SubmissionCreatedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    url = serializers.CharField()
    taken_again = serializers.BooleanField(
        help_text="the same bytes of a rejected submission of yours: it is queued again"
    )
    detail = serializers.CharField(required=False, help_text="what happened, when not new")


class SubmissionUploadSerializer(serializers.Serializer):
    """Multipart form with one bundle file (`.tar.gz`, `.tgz` or `.zip`)."""

    file = serializers.FileField()


class NativeUploadSerializer(serializers.Serializer):
    """Multipart upload of native results, converted to arena-bundle/1 on the way in."""

    file = serializers.FileField(
        help_text="a τ-bench or τ²-bench results file, a Claude Code transcript (.jsonl), "
        "or a .tar.gz/.zip of a Harbor job folder, of an AgentDojo pipeline's run folder or "
        "of a folder of transcripts"
    )
    format = serializers.ChoiceField(choices=list(NATIVE_FORMATS))
    harness = serializers.CharField(max_length=100, required=False, allow_blank=True)
    harness_version = serializers.CharField(max_length=100, required=False, allow_blank=True)
    contributors = serializers.CharField(
        required=False, allow_blank=True, help_text="comma-separated handles"
    )
    suite = serializers.CharField(max_length=100, required=False, allow_blank=True)
    suite_version = serializers.CharField(max_length=50, required=False, allow_blank=True)
    model = serializers.CharField(max_length=200, required=False, allow_blank=True)
    entry = serializers.CharField(
        max_length=200, required=False, allow_blank=True,
        help_text="swebench, task-matrix: which entry (agent) of a file holding several",
    )  # fmt: skip
    scenario = serializers.ChoiceField(choices=list(SCENARIOS), required=False)
    confirmation = serializers.ChoiceField(choices=list(CONFIRMATIONS), required=False)
    run_config = serializers.CharField(
        required=False, allow_blank=True,
        help_text='the run configuration the files do not record, a JSON object: '
        '{"user_simulator": {"model": "gpt-4o"}, "internet": false} (the fields of the '
        "bundle format's run_config; one that contradicts what the files record is an error)",
    )  # fmt: skip

    attack = serializers.CharField(
        max_length=100, required=False, allow_blank=True,
        help_text="agentdojo: convert the runs under this attack (default: the benign runs)",
    )  # fmt: skip
    task_ids = serializers.CharField(
        required=False, allow_blank=True,
        help_text='agentdojo: keep only the runs of these tasks, a JSON list of "<suite>/<task>" '
        "ids (user and injection tasks of one benchmark version)",
    )  # fmt: skip

    def validate_task_ids(self, value: str) -> list[str] | None:
        if not value.strip():
            return None
        try:
            parsed = json.loads(value, parse_constant=_not_json)
        except ValueError as exc:
            raise serializers.ValidationError(f"must be a JSON list of task ids ({exc})") from None
        if not isinstance(parsed, list) or not all(isinstance(t, str) and t for t in parsed):
            raise serializers.ValidationError("must be a JSON list of task ids (strings)")
        return parsed

    def validate_run_config(self, value: str) -> dict:
        if not value.strip():
            return {}
        try:
            parsed = json.loads(value, parse_constant=_not_json)
        except ValueError as exc:
            raise serializers.ValidationError(f"must be a JSON object ({exc})") from None
        config, problems = run_config_check(parsed)
        if problems:
            raise serializers.ValidationError(problems)
        return config

    def validate(self, data: dict) -> dict:
        missing = {
            name: f"{DESCRIPTIONS[data['format']]} does not record it: this field is required"
            for name in REQUIRED_PARAMS[data["format"]]
            if not (data.get(name) or "").strip()
        }
        if missing:
            raise serializers.ValidationError(missing)
        if data["format"] != "agentdojo":
            given = {
                name: "applies to the agentdojo format only"
                for name in ("attack", "task_ids")
                if data.get(name)
            }
            if given:
                raise serializers.ValidationError(given)
        return data


def _not_json(name: str):
    raise ValueError(f"{name} is not JSON")
