"""The methodology page: every rule, with the constants the code uses."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from ingestion.importers import harbor_exceptions
from ingestion.importers.transcripts.claude_code_lines import INTERRUPTED
from ingestion.importers.transcripts.common import INTERRUPTION_TEXT
from ingestion.models import Suite
from ingestion.traces.figures import FIGURES
from leaderboard.boards import selectors
from leaderboard.boards.label_agreement import label_agreement_published
from leaderboard.methodology import (
    capabilities,
    cohorts,
    rank_correlation,
    release_gate,
    safety,
    shell,
    stats,
)
from leaderboard.presentation.releases import margin_text
from leaderboard.presentation.signals import SIGNAL_LABELS
from leaderboard.presentation.trajectory_example import trajectory_example


@require_safe
def methodology(request: HttpRequest) -> HttpResponse:
    example_low, example_high = stats.wilson_interval(7, 9)
    context = {
        "suites": selectors.official_suites(),
        "harbor_exceptions": harbor_exceptions.table_rows(),
        "coding_categories": selectors.coding_categories(),
        "z": stats.Z,
        "under_review_rate": stats.UNDER_REVIEW_INFRA_RATE,
        "token_saving_ratio": stats.TOKEN_SAVING_RATIO,
        "cost_disagreement": f"{stats.COST_DISAGREEMENT:.0%}",
        "pass_k_max": stats.PASS_K_MAX,
        "min_ranked_sessions": stats.MIN_RANKED_SESSIONS,
        "concentration_share": stats.CONCENTRATION_SHARE,
        "settled_sessions": stats.SETTLED_SESSIONS,
        "correlation_resamples": rank_correlation.CORRELATION_RESAMPLES,
        "min_correlation_models": rank_correlation.MIN_CORRELATION_MODELS,
        "user_cohorts": cohorts.COHORTS,
        "shell_tools": sorted(shell.DEFAULT_SHELL_TOOLS),
        "interruption_markers": INTERRUPTED,
        "interruption_text": INTERRUPTION_TEXT,
        "shell_wrappers": list(shell.WRAPPERS),
        "shell_keywords": sorted(shell.KEYWORDS),
        "shell_helpers": sorted(shell.HELPERS),
        "error_signatures": shell.ERROR_SIGNATURES,
        "capabilities": capabilities.CAPABILITIES,
        "anonymous_cohort": cohorts.ANONYMOUS,
        "label_agreement": label_agreement_published(),
        "example": {
            "low": example_low,
            "high": example_high,
            "pass_rate": 7 / 9,
            "infra_rate": 2 / 12,
        },
        "asr_budget": safety.ASR_BUDGET,
        "trajectory_figures": FIGURES,
        "trajectory_example": trajectory_example(),
        # Every suite that states rules, with them (one query).
        "rule_suites": list(
            Suite.objects.exclude(rules=[])
            .order_by("slug", "version")
            .only("slug", "version", "name", "rules")
        ),
        "computed_at": selectors.current_computed_at(),
        "gate_margins": [
            (SIGNAL_LABELS[figure], margin_text(figure, margin))
            for figure, margin in release_gate.MARGINS.items()
        ],
        "gate_min_sessions": release_gate.MIN_SESSIONS,
        "gate_exit_status": release_gate.EXIT_STATUS,
        "gate_usage_error": release_gate.USAGE_ERROR,
    }
    return render(request, "leaderboard/methodology.html", context)
