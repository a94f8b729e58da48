"""The run page: one run's outcome, trajectory and verifier facts."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from leaderboard.boards import display, selectors
from leaderboard.boards.trace_views import run_trace_view


@require_safe
def run(request: HttpRequest, pk: int) -> HttpResponse:
    found = selectors.run_for_page(pk)
    if found is None:
        raise Http404("no such run")
    context = {
        "run": found,
        "conflict_excluded": selectors.run_is_conflict_excluded(found),
        "turns": display.trajectory_turns(found.trajectory),
        "verifier": display.verifier_facts(found.verifier),
        "trace": run_trace_view(found),
        "computed_at": selectors.current_computed_at(),
    }
    return render(request, "leaderboard/run.html", context)
