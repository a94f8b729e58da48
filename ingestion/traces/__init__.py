"""One agent run's trace, scored against its task's reference calls and checked
against its suite's written rules.

Pure (standard library and jsonschema): called at ingest, and its figure table
(`figures.FIGURES`) is what the methodology page renders.
"""

from __future__ import annotations

from dataclasses import dataclass

from ingestion.bundles.limits import TRACE_CALLS_MAX
from ingestion.traces.calls import Call, trajectory_calls
from ingestion.traces.figures import FIGURE_KEYS, FIGURES, Figure
from ingestion.traces.matching import Aligned, TrajectoryScore, trajectory_score
from ingestion.traces.rules import Violation, rules_check
from ingestion.traces.spec import (
    ArgumentRule,
    ReferenceCall,
    Rule,
    TraceSpec,
    TraceSpecError,
    reference_calls_parse,
    trace_spec_parse,
)

__all__ = [
    "FIGURES",
    "FIGURE_KEYS",
    "Aligned",
    "ArgumentRule",
    "Call",
    "Figure",
    "ReferenceCall",
    "Rule",
    "RunTrace",
    "TraceSpec",
    "TraceSpecError",
    "TrajectoryScore",
    "Violation",
    "reference_calls_parse",
    "rules_check",
    "run_trace",
    "trace_spec_parse",
    "trajectory_calls",
    "trajectory_score",
]


@dataclass(frozen=True)
class RunTrace:
    score: TrajectoryScore | None  # None when the task has no reference calls
    violations: tuple[Violation, ...]


def run_trace(
    turns: list | None, reference: tuple[ReferenceCall, ...] | None, spec: TraceSpec
) -> RunTrace:
    """A run's score (when its task has reference calls) and rule violations (when its
    suite has rules); a run without a trajectory has no calls. A trajectory of more than
    TRACE_CALLS_MAX calls is checked against the rules (linear) but not scored: pairing
    grows with calls × reference calls."""
    calls = trajectory_calls(turns) if turns is not None else []
    scored = reference is not None and len(calls) <= TRACE_CALLS_MAX
    score = trajectory_score(calls, reference, spec) if scored else None
    violations = tuple(rules_check(calls, spec)) if spec.rules else ()
    return RunTrace(score, violations)
