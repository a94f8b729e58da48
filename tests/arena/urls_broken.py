"""The site's URLs plus one view that always fails, for the 500 page's test."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import include, path


def broken(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a view that fails, to see the error page around it")


urlpatterns = [path("broken/", broken), path("", include("arena.urls"))]
