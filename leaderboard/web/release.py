"""The release page: /signals/releases/<harness>/?before=<version>&after=<version>.

Thin: parse, compare (signalboard.releases), render. A plain GET form picks the two
versions, so the page works without JavaScript; with htmx the form and the version
links swap the `release-page` partial and push the canonical address (as the compare
page does). A harness without sessions on the agent view is a 404; versions that
cannot be compared are said beside the form, never a server error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe

from leaderboard.methodology import paired, release
from leaderboard.methodology import release_gate as gate_rule
from leaderboard.presentation.releases import (
    difference_text,
    margin_text,
    value_text,
    verdict_text,
)
from leaderboard.presentation.signals import p_value
from leaderboard.signalboard import release_gate, releases
from leaderboard.web.pages import cached_page, htmx_template

TEMPLATE = "leaderboard/signal_release.html"
PARTIAL = "release-page"


@dataclass(frozen=True)
class ReleaseParams:
    """`?before=<version>&after=<version>`, both optional, cut to a version's width."""

    before: str = ""
    after: str = ""

    @classmethod
    def from_query(cls, query: Mapping[str, Any]) -> ReleaseParams:
        def text(name: str) -> str:
            value = query.get(name) or ""
            return value.strip()[: releases.MAX_VERSION_LENGTH] if isinstance(value, str) else ""

        return cls(before=text("before"), after=text("after"))

    def querystring(self) -> str:
        pairs = [(k, v) for k, v in (("before", self.before), ("after", self.after)) if v]
        return "?" + urlencode(pairs) if pairs else ""


@require_safe
def signal_release(request: HttpRequest, harness: str) -> HttpResponse:
    params = ReleaseParams.from_query(request.GET)
    try:
        # Read before the cache: its bytes keep no status, and a 404 must stay one.
        versions = releases.agent_versions(harness)
    except releases.UnknownHarness as error:
        context = {"harness": harness, "error": str(error), "signals_url": reverse("signals")}
        return render(request, TEMPLATE, context, status=404)
    return cached_page(
        request,
        template=htmx_template(request, TEMPLATE, {PARTIAL}, PARTIAL),
        key=f"{harness} {params.querystring()}",
        context=lambda: page_context(harness, params, versions),
        push_url=reverse("signal-release", args=[harness]) + params.querystring(),
    )


def page_context(
    harness: str, params: ReleaseParams, versions: releases.AgentVersions
) -> dict[str, Any]:
    context: dict[str, Any] = {
        "harness": harness,
        "params": params,
        "release_url": reverse("signal-release", args=[harness]),
        "signals_url": reverse("signals"),
        "versions": [e.harness_version for e in versions.entries],
        "computed_at": versions.computed_at,
        "alpha": paired.ALPHA,
    }
    try:
        comparison = releases.release_comparison(
            harness, params.before, params.after, versions=versions
        )
    except releases.ReleaseError as error:
        context["error"] = str(error)
        return context
    context["comparison"] = comparison
    context["rows"] = [_row(change) for change in comparison.changes]
    context["nir_row"] = _nir_row(comparison)
    context["gate"] = gate_context(release_gate.gate_of(comparison))
    context["api_query"] = ReleaseParams(
        comparison.before.harness_version, comparison.after.harness_version
    ).querystring()
    return context


def _row(change: releases.SignalChange) -> dict[str, str]:
    d = change.difference
    return {
        "label": change.label,
        "before": value_text(change.signal, (change.before or {}).get("value")),
        "after": value_text(change.signal, (change.after or {}).get("value")),
        "difference": difference_text(change.signal, d.value, d.low, d.high),
        "p_value": p_value(d.p_value),
        "method": change.method,
    }


def _nir_row(c: releases.ReleaseComparison) -> dict[str, str]:
    before = (c.before.data.get("net_improvement") or {}).get("value")
    after = (c.after.data.get("net_improvement") or {}).get("value")
    return {
        "label": "Net improvement (NIR)",
        "before": value_text("net_improvement", before),
        "after": value_text("net_improvement", after),
        "difference": difference_text("net_improvement", c.nir.value, c.nir.low, c.nir.high),
        "p_value": p_value(c.nir.p_value),
        "method": release.NIR_METHOD,
    }


def gate_context(result: release_gate.GateResult) -> dict[str, Any]:
    """The gate's verdict and one row per figure, as `manage.py release_gate` prints them."""
    return {
        "verdict": result.verdict,
        "verdict_text": verdict_text(result.verdict),
        "min_sessions": gate_rule.MIN_SESSIONS,
        "rows": [
            {
                "label": f.label,
                "verdict": f.verdict,
                "verdict_text": verdict_text(f.verdict),
                "difference": difference_text(
                    f.figure, f.difference.value, f.difference.low, f.difference.high
                ),
                "margin": margin_text(f.figure, f.judged.margin),
                "reason": f.judged.reason,
            }
            for f in result.figures
        ],
    }
