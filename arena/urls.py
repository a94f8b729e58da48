from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from arena.api import ApiRootView, DocsView, SchemaView
from arena.health import healthz

# The admin says whose it is (its pending counts: templates/admin/index.html).
admin.site.site_header = admin.site.site_title = "Arena administration"
admin.site.index_title = "Moderation and data"


def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask /favicon.ico whatever a page links: sent to the SVG icon."""
    return RedirectView.as_view(url=static("favicon.svg"), permanent=True)(request)


urlpatterns = [
    path("healthz/", healthz, name="healthz"),
    path("favicon.ico", favicon, name="favicon"),
    path("admin/", admin.site.urls),
    # Sign-up, e-mail verification, log in/out and password reset (django-allauth);
    # its log-in page keeps the address /accounts/login/.
    path("accounts/", include("allauth.urls")),
    # The API's own pages (arena.api): its root, the OpenAPI document, the docs.
    path("api/v1/", ApiRootView.as_view(), name="api-root"),
    path("api/v1/schema/", SchemaView.as_view(), name="api-schema"),
    path("api/v1/docs/", DocsView.as_view(), name="api-docs"),
    path("", include("ingestion.urls")),
    path("", include("leaderboard.web.urls")),
]
