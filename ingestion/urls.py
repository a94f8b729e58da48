from __future__ import annotations

from django.urls import path

from ingestion import api, views

urlpatterns = [
    path("submit/", views.submit, name="submit"),
    path("submit/format/", views.bundle_format, name="bundle-format"),
    path("submit/example-bundle.tar.gz", views.example_bundle, name="example-bundle"),
    path("submit/token/", views.api_token_create_view, name="api-token-create"),
    path("submit/token/rotate/", views.api_token_rotate_view, name="api-token-rotate"),
    path("submit/checks/<int:pk>/", views.dry_run_detail, name="dry-run-detail"),
    path("submissions/<int:pk>/", views.submission_detail, name="submission-detail"),
    path("api/v1/submissions/", api.SubmissionListCreateApi.as_view(), name="api-submissions"),
    path(
        "api/v1/submissions/<int:pk>/",
        api.SubmissionDetailApi.as_view(),
        name="api-submission-detail",
    ),
    path("api/v1/dry-runs/<int:pk>/", api.DryRunDetailApi.as_view(), name="api-dry-run-detail"),
]
