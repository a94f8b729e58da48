"""The API's own pages: the root listing (/api/v1/), the schema and the interactive docs.

The root names every endpoint with an absolute address (a URI template, RFC 6570, where
the path has a parameter), its formats and whether it needs a token. The docs are
Swagger UI served from this site (drf-spectacular-sidecar, no CDN) in the split form:
the page loads its start-up script from a URL of its own, so it runs under the site's
Content-Security-Policy without 'unsafe-inline'. The schema stays YAML or JSON for
tools, and a browser that opens it is shown the YAML as text rather than handed a file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.http import HttpResponseBase
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from drf_spectacular.utils import extend_schema, inline_serializer
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer, TemplateHTMLRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from leaderboard.web.terms import terms_url

# Stand-ins for path parameters while reversing; replaced by `{name}` afterwards.
_INT_STAND_IN = 987654321
_TEXT_STAND_IN = "zzstandinzz"


@dataclass(frozen=True)
class Endpoint:
    name: str  # the URL name, also the listing's `name`
    description: str
    params: tuple[tuple[str, str, type], ...] = ()  # (path kwarg, template name, type)
    formats: tuple[str, ...] = ("json",)
    auth: str = "none"  # "none" or "token"
    methods: tuple[str, ...] = ("GET",)


ENDPOINTS = (
    Endpoint("api-boards", "The current boards: slug, title, time computed, entries.",
             formats=("json", "csv")),
    Endpoint("api-board-detail", "One board's entries in display order (Entry, api.md).",
             params=(("slug", "slug", str),), formats=("json", "csv")),
    Endpoint("api-board-changes", "A board's change log: what each recompute changed and why.",
             params=(("slug", "slug", str),), formats=("json", "csv")),
    Endpoint("api-safety-board", "A suite board's safety board (`<board>-safety`): benign "
             "utility, utility under attack, targeted ASR per agent and attack.",
             params=(("slug", "slug", str),), formats=("json", "csv")),
    Endpoint("api-board-harnesses", "Harness × model effects on a board (odds ratios).",
             params=(("slug", "slug", str),), formats=("json", "csv")),
    Endpoint("api-signals", "The signal board (SignalEntry); ?scenario=, ?capability=, ?by=.",
             formats=("json", "csv")),
    Endpoint("api-signals-validation", "Each model's signal figures against its Overall "
             "pass rate, Spearman's rho across models with its interval, and the label "
             "agreement."),
    Endpoint("api-signal-release", "One agent's signals before and after a release.",
             params=(("harness", "harness", str),)),
    Endpoint("api-signal-release-gate", "The release gate: pass, fail or not enough data per "
             "figure and overall (?before=&after=), with the exit status of manage.py "
             "release_gate.", params=(("harness", "harness", str),)),
    Endpoint("api-compare", "Two agents on one board (?board=&a=&b=) or two models (?signals=1).",
             formats=("json", "csv")),
    Endpoint("api-run-detail", "One run with its trajectory.", params=(("pk", "id", int),)),
    Endpoint("api-submissions", "Your submissions (GET); upload a bundle (POST, multipart "
             "`file` or a JSON body).", auth="token", methods=("GET", "POST")),
    Endpoint("api-submission-detail", "One of your submissions: status, counts, errors.",
             params=(("pk", "id", int),), auth="token"),
    Endpoint("api-dry-run-detail", "One of your dry runs (POST dry_run=1 answers 202 with its "
             "url): status, then the check's result.", params=(("pk", "id", int),), auth="token"),
    Endpoint("api-schema", "The OpenAPI 3 document (?format=json or yaml).",
             formats=("yaml", "json")),
    Endpoint("api-docs", "Interactive documentation of the schema (Swagger UI).",
             formats=("html",)),
)  # fmt: skip


def endpoint_url(request: Request, endpoint: Endpoint) -> str:
    """The endpoint's absolute address; a parameter as `{name}` (a URI template)."""
    stand_ins = {
        kwarg: _stand_in(index, kind) for index, (kwarg, _, kind) in enumerate(endpoint.params)
    }
    url = request.build_absolute_uri(reverse(endpoint.name, kwargs=stand_ins or None))
    for index, (_, template, kind) in enumerate(endpoint.params):
        url = url.replace(str(_stand_in(index, kind)), f"{{{template}}}")
    return url


def _stand_in(index: int, kind: type) -> int | str:
    return _INT_STAND_IN + index if kind is int else f"{_TEXT_STAND_IN}{index}"


class ApiRootPage(TemplateHTMLRenderer):
    """The root listing as a page of the site (its header, styles and CSP-clean): every
    endpoint's address a link where it has no parameter to fill in."""

    template_name = "api/root.html"

    def get_template_context(self, data: Any, renderer_context: Any) -> dict[str, Any]:
        context = dict(super().get_template_context(data, renderer_context))
        context["endpoints"] = [
            {**endpoint, "linkable": "{" not in endpoint["url"]} for endpoint in data["endpoints"]
        ]
        return context


class ApiRootView(APIView):
    """GET /api/v1/: where everything is, for a person or a program starting here.

    JSON unless the client asks for HTML first (a browser): then the same listing as a
    page of the site. ?format=json forces JSON."""

    authentication_classes: list = []
    permission_classes: list = []
    renderer_classes = [JSONRenderer, ApiRootPage]

    @extend_schema(
        responses=inline_serializer(
            "ApiRoot",
            {
                "title": serializers.CharField(),
                "version": serializers.CharField(),
                "docs": serializers.URLField(),
                "schema": serializers.URLField(),
                "terms": serializers.URLField(),
                "authentication": serializers.CharField(),
                "endpoints": serializers.ListField(child=serializers.DictField()),
            },
        ),
        tags=["api"],
        description="Every endpoint: name, absolute URL (a URI template where the path "
        "has parameters), methods, formats, authentication and a one-line description.",
    )
    def get(self, request: Request) -> Response:
        spectacular = settings.SPECTACULAR_SETTINGS
        return Response(
            {
                "title": spectacular["TITLE"],
                "version": spectacular["VERSION"],
                "docs": request.build_absolute_uri(reverse("api-docs")),
                "schema": request.build_absolute_uri(reverse("api-schema")),
                "terms": terms_url(request),
                "authentication": "Submissions need your API token (from /submit/): "
                "`Authorization: Bearer <key>` or `Authorization: Token <key>`. "
                "Everything else is public.",
                "endpoints": [_listing(request, endpoint) for endpoint in ENDPOINTS],
            }
        )


def _listing(request: Request, endpoint: Endpoint) -> dict[str, Any]:
    return {
        "name": endpoint.name.removeprefix("api-"),
        "url": endpoint_url(request, endpoint),
        "methods": list(endpoint.methods),
        "formats": list(endpoint.formats),
        "authentication": endpoint.auth,
        "description": endpoint.description,
    }


class SchemaView(SpectacularAPIView):
    """The OpenAPI document: YAML (the default) or JSON by ?format= or Accept; a browser
    opening the address (Accept: text/html, no ?format) gets the YAML as plain text, so
    that it is shown rather than saved."""

    def finalize_response(
        self, request: Request, response: HttpResponseBase, *args: Any, **kwargs: Any
    ) -> HttpResponseBase:
        response = super().finalize_response(request, response, *args, **kwargs)
        if _browser_navigation(request) and isinstance(response, Response):
            response.content_type = "text/plain; charset=utf-8"
        patch_vary_headers(response, ("Accept",))
        return response


def _browser_navigation(request: Request) -> bool:
    fmt = request.query_params.get("format")
    return fmt is None and "text/html" in request.META.get("HTTP_ACCEPT", "")


class DocsView(SpectacularSwaggerSplitView):
    """Swagger UI from the schema; the page and its start-up script are two responses."""

    url_name = "api-schema"
    template_name = "api/docs.html"
    title = f"{settings.SPECTACULAR_SETTINGS['TITLE']} documentation"
