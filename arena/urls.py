from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView


def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness probe for load balancers; also the trivial baseline of bench/pages.py."""
    return HttpResponse("ok", content_type="text/plain")


urlpatterns = [
    path("healthz/", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/v1/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("", include("ingestion.urls")),
    path("", include("leaderboard.urls")),
]
