from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from ingestion.models import Submission


class BundleErrorSerializer(serializers.Serializer):
    file = serializers.CharField()
    line = serializers.IntegerField(allow_null=True)
    field = serializers.CharField(allow_blank=True)
    message = serializers.CharField()


def submission_api_url(submission: Submission) -> str:
    return reverse("api-submission-detail", args=[submission.pk])


class SubmissionSerializer(serializers.ModelSerializer):
    runs = serializers.IntegerField(source="runs_count")
    sessions = serializers.IntegerField(source="sessions_count")
    errors = BundleErrorSerializer(many=True)
    harness = serializers.StringRelatedField()
    url = serializers.SerializerMethodField()

    class Meta:
        model = Submission
        fields = [
            "id", "status", "sha256", "original_name", "harness", "runs", "sessions",
            "errors", "error_count", "notes", "created_at", "started_at", "finished_at", "url",
        ]  # fmt: skip

    def get_url(self, submission: Submission) -> str:
        return submission_api_url(submission)


class SubmissionCreatedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    url = serializers.CharField()


class SubmissionUploadSerializer(serializers.Serializer):
    """Multipart form with one bundle file (`.tar.gz`, `.tgz` or `.zip`)."""

    file = serializers.FileField()


class NativeUploadSerializer(serializers.Serializer):
    """Multipart upload of native results, converted to arena-bundle/1 on the way in."""

    file = serializers.FileField(
        help_text="a τ-bench results file, or a .tar.gz/.zip of a Harbor job folder"
    )
    format = serializers.ChoiceField(choices=["harbor", "tau-bench"])
    harness = serializers.CharField(max_length=100)
    harness_version = serializers.CharField(max_length=100)
    contributors = serializers.CharField(
        required=False, allow_blank=True, help_text="comma-separated handles"
    )
    suite = serializers.CharField(max_length=100)
    suite_version = serializers.CharField(max_length=50)
    model = serializers.CharField(max_length=200, required=False, allow_blank=True)

    def validate(self, data: dict) -> dict:
        if data["format"] == "tau-bench" and not data.get("model"):
            raise serializers.ValidationError({"model": "τ-bench files do not name the model"})
        return data
