"""Builders shared by the signal board tests: sessions, ingests, published snapshots."""

from __future__ import annotations

import json
import tarfile

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from ingestion.models import Submission
from ingestion.services.intake import submission_ingest
from leaderboard.methodology.stats import Z, wilson_interval
from leaderboard.models import BoardSnapshot, SignalEntry
from leaderboard.signalboard.compute import slice_rows
from leaderboard.signalboard.slices import CAPABILITIES, CAPABILITY_PREFIX, SCENARIOS
from leaderboard.signalboard.snapshot import signals_snapshot_write
from tests.builders import EXAMPLE_SESSIONS_BUNDLE, tar_gz_bundle

SESSIONS_MANIFEST = {"format": "arena-bundle/1", "source": {"name": "t", "kind": "sessions"}}
EXACT = {"abs": 1e-9, "rel": 0}
API = "/api/v1/signals/"


def reference_sessions() -> list[dict]:
    with tarfile.open(EXAMPLE_SESSIONS_BUNDLE) as archive:
        member = next(m for m in archive.getmembers() if m.name.endswith("sessions.jsonl"))
        lines = archive.extractfile(member).read().decode().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def session(session_id: str, model: str = "tiny-model", **fields) -> dict:
    base = {
        "session_id": session_id,
        "model": model,
        "scenario": "general_assistant",
        "user": f"raw-user-{session_id}",
        "confirmation": "yes",
        "toolset": ["bash"],
        "turns": [
            {"role": "user", "text": "Set it up.", "label": None},
            {
                "role": "assistant",
                "text": "Done.",
                "tool_calls": [{"tool": "bash", "arguments": {"command": "make"}, "exit_code": 0}],
            },
            {"role": "user", "text": "Great, thanks!", "label": "praise"},
        ],
    }
    base.update(fields)
    return base


def without_nulls(toolset: list | None) -> list | None:
    """A toolset as scoring reads it: ingest spells out absent keys (`kind`) as null."""
    if toolset is None:
        return None
    return [
        {k: v for k, v in entry.items() if v is not None} if isinstance(entry, dict) else entry
        for entry in toolset
    ]


def ingest(user, upload) -> Submission:
    submission, _ = submission_ingest(upload=upload, user=user)
    assert submission.status == Submission.Status.INGESTED, submission.errors
    return submission


def ingest_sessions(user, sessions: list[dict]) -> Submission:
    return ingest(user, tar_gz_bundle(SESSIONS_MANIFEST, sessions=sessions))


def publish() -> BoardSnapshot:
    """A new current snapshot holding the signal boards, whatever recompute ran before."""
    BoardSnapshot.objects.filter(is_current=True).update(is_current=False)
    snapshot = BoardSnapshot.objects.create(computed_at=timezone.now(), is_current=True)
    signals_snapshot_write(snapshot)
    return snapshot


def api_entries(**query) -> list[dict]:
    response = APIClient().get(API, query)
    assert response.status_code == 200, response.content
    return response.json()["entries"]


def scores_of(entries: list[dict]) -> dict[str, dict]:
    return {entry["model"]: entry for entry in entries}


def assert_figures_match(got: dict, expected: dict, context: str) -> None:
    """Every figure of `expected` (nested one level) equals `got` to 1e-9."""
    for signal, figures in expected.items():
        if not isinstance(figures, dict):
            assert got[signal] == figures, (context, signal)
            continue
        for name, value in figures.items():
            if value is None:
                assert got[signal][name] is None, (context, signal, name)
            else:
                assert got[signal][name] == pytest.approx(value, **EXACT), (context, signal, name)


def model_scores(
    sessions: int = 100,
    *,
    success: float = 0.5,
    nir: float = 0.02,
    sd: float = 0.02,
    p: float = 0.3,
    hallucination: float = 0.04,
    shell_ok: int = 90,
    shell_calls: int = 120,
) -> dict:
    """One model's figures in the SignalEntry shape, Wilson intervals from the counts."""
    confirmed = round(success * sessions)
    low, high = wilson_interval(confirmed, sessions)
    calls = 700
    bad = round(hallucination * calls)
    bad_low, bad_high = wilson_interval(bad, calls)
    shell_low, shell_high = wilson_interval(shell_ok, shell_calls)
    return {
        "sessions": sessions,
        "confirmed_success": {
            "value": confirmed / sessions,
            "low": low,
            "high": high,
            "n": sessions,
        },
        "praise_complaint": {"value": 0.6, "low": 0.5, "high": 0.7, "n": 50},
        "steerability": {
            "value": 0.85,
            "low": 0.8,
            "high": 0.9,
            "mean_effort": 0.45,
            "turns": 400,
            "turns_to_recover": 1.4,
            "turns_to_recover_low": 1.1,
            "turns_to_recover_high": 1.7,
            "corrections": 60,
            "corrections_open": 3,
        },
        "bash_recovery": {
            "value": 0.1,
            "low": 0.05,
            "high": 0.15,
            "episodes": 80,
            "recovery_rate": 0.2,
            "median_attempts": 2,
            **_recovery_split(10, 6, 80),
        },
        "tool_hallucination": {
            "value": bad / calls,
            "low": bad_low,
            "high": bad_high,
            "calls": calls,
        },
        "shell_success": {
            "value": shell_ok / shell_calls,
            "low": shell_low,
            "high": shell_high,
            "calls": shell_calls,
        },
        "net_improvement": {
            "value": nir,
            "low": nir - Z * sd,
            "high": nir + Z * sd,
            "p_value": p,
            "observed_gap": nir,
            "null_mean": 0.0,
            "null_sd": sd,
        },
    }


def _recovery_split(autonomous: int, after_user: int, episodes: int) -> dict:
    """Bash recovery's shares fixed before and after the user's words, Wilson intervals."""
    split = {}
    for key, count in (("autonomous", autonomous), ("after_user", after_user)):
        low, high = wilson_interval(count, episodes)
        split |= {key: count, f"{key}_rate": count / episodes}
        split |= {f"{key}_rate_low": low, f"{key}_rate_high": high}
    return split


def publish_board(composite: dict[str, dict], scenarios: dict[str, dict[str, dict]] | None = None):
    """A current snapshot with these composite figures; each scenario and capability
    slice repeats them unless given."""
    BoardSnapshot.objects.filter(is_current=True).update(is_current=False)
    snapshot = BoardSnapshot.objects.create(
        computed_at=timezone.now(),
        is_current=True,
        sessions_total=sum(s["sessions"] for s in composite.values()),
    )
    rows = slice_rows("all", "composite", composite)
    for scenario in SCENARIOS:
        rows += slice_rows(scenario, "scenario", (scenarios or {}).get(scenario, composite))
    for capability in CAPABILITIES:
        rows += slice_rows(CAPABILITY_PREFIX + capability, "capability", composite)
    SignalEntry.objects.bulk_create([SignalEntry(snapshot=snapshot, **row) for row in rows])
    return snapshot


def order_of(content: str, names: list[str]) -> list[str]:
    """The names in the order they first appear in the table body."""
    body = content[content.index("<tbody") :]
    return sorted(names, key=body.index)


# Texts the extractor labels (praise, complaint, correction) or leaves unlabelled.
_USER_TEXTS = (
    "Great, thanks!",
    "This is still broken.",
    "No, use the other config file.",
    "Now add a README.",
)
_COMMANDS = ("make", "pytest -q", "npm test", "ls", "sudo apt-get install jq")
_TOOLSETS = (
    None,
    [],
    ["bash"],
    [
        {"name": "bash", "kind": "shell"},
        {
            "name": "write_file",
            "parameters": {"properties": {"path": {}, "content": {}}, "required": ["path"]},
        },
    ],
)


def varied_sessions(rng, count: int, prefix: str = "v") -> list[dict]:
    """`count` sessions drawn from `rng` (a random.Random) over three models, every
    scenario (and none), bundle labels and unlabelled turns, shell calls that fail and
    recover, unknown tools and arguments, and every kind of toolset."""
    sessions = []
    for i in range(count):
        turns = []
        for _ in range(rng.randint(1, 4)):
            turns.append(_varied_user_turn(rng))
            calls = [_varied_call(rng) for _ in range(rng.randint(0, 3))]
            turns.append({"role": "assistant", "text": "Done.", "tool_calls": calls})
        if rng.random() < 0.7:
            turns.append(_varied_user_turn(rng))
        fields = {
            "scenario": rng.choice([*SCENARIOS, None]),
            "confirmation": rng.choice(["yes", "no", None]),
            "toolset": rng.choice(_TOOLSETS),
            "turns": turns,
        }
        sessions.append(session(f"{prefix}-{i}", rng.choice(["m-a", "m-b", "m-c"]), **fields))
    return sessions


def _varied_user_turn(rng) -> dict:
    turn = {"role": "user", "text": rng.choice(_USER_TEXTS)}
    if rng.random() < 0.5:  # else no label key: the extractor decides
        turn["label"] = rng.choice(["praise", "complaint", "correction", None])
    return turn


def _varied_call(rng) -> dict:
    kind = rng.random()
    if kind < 0.7:
        return {
            "tool": "bash",
            "arguments": {"command": rng.choice(_COMMANDS)},
            "exit_code": rng.choice([0, 0, 1, 2, None]),
        }
    if kind < 0.85:
        return {"tool": "write_file", "arguments": {"path": "a.txt"}, "exit_code": None}
    return {"tool": "browse", "arguments": {"url": "x"}, "exit_code": None}
