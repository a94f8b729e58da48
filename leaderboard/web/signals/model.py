"""A model's signal page: its composite figures, how stable they are, who they rest on
(accounts and the largest share; the accounts themselves for moderators only) and the
sessions the conflict rule left out."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from leaderboard.methodology.stats import CONCENTRATION_SHARE
from leaderboard.signalboard.uploaders import (
    ModelSignals,
    may_see_uploaders,
    model_signals,
    model_uploaders,
)
from leaderboard.web.pages import cached_page

TEMPLATE = "leaderboard/signal_model.html"


@require_safe
def signal_model(request: HttpRequest, model: str) -> HttpResponse:
    found = model_signals(model)
    if found is None:
        raise Http404("no signal row names this model")
    # Only a signed-in account can hold the permission, and cached_page never shares a
    # signed-in visitor's page: the accounts never reach the public cache.
    show_uploaders = may_see_uploaders(request.user)
    return cached_page(
        request,
        template=TEMPLATE,
        key=f"model {model}",
        context=lambda: _context(found, show_uploaders),
        version=found.snapshot_id,
    )


def _context(found: ModelSignals, show_uploaders: bool) -> dict[str, Any]:
    uploaders = model_uploaders(found.snapshot_id, found.model) if show_uploaders else []
    counted = sum(row.sessions for row in uploaders)
    return {
        "model": found.model,
        "entry": found.entry,
        "computed_at": found.computed_at,
        "conflict_excluded": found.conflict_excluded,
        "threshold": CONCENTRATION_SHARE,
        "show_uploaders": show_uploaders,
        "uploaders": [
            {"row": row, "share": row.sessions / counted if counted else None} for row in uploaders
        ],
    }
