"""The cross-validation page: signal figures against benchmark pass rates, per model,
with the rank correlation across models and the moderators' label agreement."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from leaderboard.compare.cross_validation import SIGNAL_FIGURES, CrossValidation, cross_validation
from leaderboard.methodology.bootstrap import CONFIDENCE
from leaderboard.methodology.rank_correlation import CORRELATION_RESAMPLES, MIN_CORRELATION_MODELS
from leaderboard.methodology.stats import MIN_RANKED_SESSIONS, SETTLED_SESSIONS
from leaderboard.presentation.validation_charts import ValidationPoint, validation_chart
from leaderboard.web.pages import cached_page

TEMPLATE = "leaderboard/signal_validation.html"


@require_safe
def signal_validation(request: HttpRequest) -> HttpResponse:
    return cached_page(request, template=TEMPLATE, key="validation", context=_context)


def _context() -> dict[str, Any]:
    view = cross_validation()
    return {
        "view": view,
        "computed_at": view.computed_at,
        "charts": [
            {
                "name": name,
                "label": label,
                "figure": validation_chart(_points(view, name), figure_name=name),
                "correlation": view.correlations[name],
                "element_id": f"validation-{name.replace('_', '-')}",
            }
            for name, label in SIGNAL_FIGURES.items()
        ],
        "min_models": MIN_CORRELATION_MODELS,
        "resamples": CORRELATION_RESAMPLES,
        "confidence": CONFIDENCE,
        "min_sessions": MIN_RANKED_SESSIONS,
        "settled_sessions": SETTLED_SESSIONS,
    }


def _points(view: CrossValidation, name: str) -> list[ValidationPoint]:
    points = []
    for row in view.rows:
        figure = row.figure(name)
        if row.benchmark.pass_rate is None or figure.get("value") is None:
            continue
        points.append(
            ValidationPoint(
                model=row.model,
                pass_rate=row.benchmark.pass_rate,
                pass_low=row.benchmark.low,
                pass_high=row.benchmark.high,
                value=figure["value"],
                low=figure.get("low"),
                high=figure.get("high"),
                ranked=row.signal.rank is not None,
            )
        )
    return points
