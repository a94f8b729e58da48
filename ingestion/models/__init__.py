"""What Arena knows: the registry (`registry`) and the evidence uploaded (`evidence`)."""

from ingestion.models.checks import DryRun, DryRunQuerySet
from ingestion.models.evidence import (
    InfraErrorKind,
    Outcome,
    Run,
    RunTrace,
    Scenario,
    Session,
    Submission,
    SubmissionQuerySet,
    ToolCall,
    Turn,
    run_range_constraints,
)
from ingestion.models.organisations import Organisation
from ingestion.models.registry import (
    Category,
    Harness,
    HarnessOwner,
    HarnessQuerySet,
    LanguageModel,
    ModelPrice,
    Person,
    Suite,
    Task,
    TaskQuerySet,
    Verifier,
)
from ingestion.models.rollups import (
    LatencyRollup,
    RunRollup,
    SafetyRollup,
    TraceRollup,
    ViolationRollup,
)
from ingestion.models.tokens import ApiToken

__all__ = [
    "ApiToken",
    "Category",
    "DryRun",
    "DryRunQuerySet",
    "Harness",
    "HarnessOwner",
    "HarnessQuerySet",
    "InfraErrorKind",
    "LanguageModel",
    "LatencyRollup",
    "ModelPrice",
    "Organisation",
    "Outcome",
    "Person",
    "Run",
    "RunRollup",
    "RunTrace",
    "SafetyRollup",
    "Scenario",
    "Session",
    "Submission",
    "SubmissionQuerySet",
    "Suite",
    "Task",
    "TaskQuerySet",
    "ToolCall",
    "TraceRollup",
    "Turn",
    "Verifier",
    "ViolationRollup",
    "run_range_constraints",
]
